import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@kplane/client';
import { ConfigMaps, Pods, createManager, type ConfigMap, type Manager } from '@kplane/runtime';
import { createRecorder, startControlPlane, type Recorder, type TestControlPlane } from '@kplane/testing';
import { LEASE_NAME, STATUS_ANNOTATION, messages } from './common.js';
import { addMiniReplicaSet } from './controller.js';

const say = messages('en');
const wish = (name: string, n: number): ConfigMap => ({ metadata: { name, labels: { 'cours/mini-rs': 'oui' } }, data: { repliques: String(n) } });

/**
 * The SDK version on a test control plane (memory storage, the built-in controllers, one
 * simulated node) in virtual time: cp.settle() runs everything until idle, so the tests read
 * final states without sleeping or polling.
 */
describe('mini-replicaset on the runtime SDK', () => {
  let cp: TestControlPlane;
  let recorder: Recorder;
  const stops: AbortController[] = [];

  before(async () => {
    cp = await startControlPlane({ nodes: 1 });
    recorder = createRecorder();
  });
  after(async () => {
    for (const s of stops) s.abort();
    await cp.stop();
  });

  /** Starts one copy in `namespace` on the control plane's clock; returns its log lines and its stop. */
  function run(namespace: string, options: { status?: boolean; identity?: string; who?: string } = {}): { lines: string[]; stop: AbortController; mgr: Manager } {
    const lines: string[] = [];
    const who = options.identity ?? options.who ?? 'mini-replicaset';
    const client = createClient({ transport: recorder.wrap(cp.transport, who), defaultNamespace: namespace });
    const mgr = createManager({
      client,
      clock: cp.clock,
      namespace,
      ...(options.identity ? { leaderElection: { namespace, name: LEASE_NAME, identity: options.identity }, onLeadershipLost: () => undefined } : {}),
    });
    addMiniReplicaSet(mgr, { namespace, status: options.status ?? false, say, log: (l) => lines.push(l) });
    const stop = new AbortController();
    stops.push(stop);
    void mgr.start(stop.signal);
    return { lines, stop, mgr };
  }

  const createNs = (name: string) => cp.client.resource({ group: '', version: 'v1', resource: 'namespaces', namespaced: false }).create({ metadata: { name } });
  const livePods = async (ns: string) => (await cp.client.resource(Pods).list({ namespace: ns, labelSelector: 'cours/proprietaire=vitrine' })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const settle = () => cp.settle({ advance: true, maxVirtualMs: 5_000 });
  const action = /^\d\d:\d\d:\d\d vitrine: (\d+) pod\(s\) for (\d+) wanted, (creating|deleting) (\S+)$/;
  const actions = (lines: string[]) => lines.flatMap((l) => (action.test(l) ? [l.replace(/^\S+ /, '')] : []));

  it('keeps the wanted count, replaces a pod deleted by hand, deletes the surplus, and catches up after a stop', async () => {
    await createNs('steps');
    let ctl = run('steps');
    await settle();
    await cp.client.resource(ConfigMaps).create(wish('vitrine', 3), { namespace: 'steps' });
    await settle();
    const first = await livePods('steps');
    assert.equal(first.length, 3);
    assert.deepEqual(actions(ctl.lines).map((l) => l.split(', ')[0]), ['vitrine: 0 pod(s) for 3 wanted', 'vitrine: 1 pod(s) for 3 wanted', 'vitrine: 2 pod(s) for 3 wanted']);

    await cp.client.resource(Pods).delete(first[0]!.metadata!.name!, { namespace: 'steps' });
    await settle();
    assert.equal((await livePods('steps')).length, 3);
    assert.match(actions(ctl.lines)[3]!, /^vitrine: 2 pod\(s\) for 3 wanted, creating vitrine-/);

    await cp.client.resource(ConfigMaps).patch('vitrine', { data: { repliques: '1' } }, 'merge', { namespace: 'steps' });
    await settle();
    assert.equal((await livePods('steps')).length, 1);
    assert.deepEqual(actions(ctl.lines).slice(4).map((l) => l.split(', ')[0]), ['vitrine: 3 pod(s) for 1 wanted', 'vitrine: 2 pod(s) for 1 wanted']);

    ctl.stop.abort();
    await settle();
    await cp.client.resource(ConfigMaps).patch('vitrine', { data: { repliques: '4' } }, 'merge', { namespace: 'steps' });
    await settle();
    assert.equal((await livePods('steps')).length, 1, 'nothing happens while it is stopped');
    ctl = run('steps');
    await settle();
    assert.equal((await livePods('steps')).length, 4);
    assert.equal(actions(ctl.lines).length, 3);

    ctl.stop.abort();
    await cp.client.resource(ConfigMaps).delete('vitrine', { namespace: 'steps' });
    await settle();
    assert.equal((await livePods('steps')).length, 0, 'the garbage collector follows the ownerReferences');
  });

  it('exercise 4: writes the status only when it changes, so nothing is written once it is reached', async () => {
    await createNs('status');
    const ctl = run('status', { status: true });
    await cp.client.resource(ConfigMaps).create(wish('vitrine', 2), { namespace: 'status' });
    await settle();
    const cm = await cp.client.resource(ConfigMaps).get('vitrine', { namespace: 'status' });
    assert.equal(cm.metadata?.annotations?.[STATUS_ANNOTATION], '2/2');
    assert.match(ctl.lines[0]!, /^\d\d:\d\d:\d\d vitrine: status 0\/2$/);
    assert.match(ctl.lines.at(-1)!, /^\d\d:\d\d:\d\d vitrine: status 2\/2$/);
    // Wake it: a pod's change, and time. It reconciles, and writes nothing.
    const mark = recorder.mark();
    const pod = (await livePods('status'))[0]!;
    await cp.client.resource(Pods).patch(pod.metadata!.name!, { metadata: { labels: { touched: 'yes' } } }, 'merge', { namespace: 'status' });
    await settle();
    recorder.expectNoWrites({ who: 'mini-replicaset', since: mark });
    assert.equal((await cp.client.resource(ConfigMaps).get('vitrine', { namespace: 'status' })).metadata?.resourceVersion, cm.metadata?.resourceVersion);
  });

  it('a count that is not one stops the reconcile without retries, until the ConfigMap is fixed', async () => {
    await createNs('bad');
    const { mgr } = run('bad', { who: 'bad-count' });
    await cp.client.resource(ConfigMaps).create({ ...wish('vitrine', 0), data: { repliques: 'trois' } }, { namespace: 'bad' });
    const mark = recorder.mark();
    await settle();
    recorder.expectNoWrites({ who: 'bad-count', since: mark });
    const text = await mgr.metrics.metricsText();
    assert.match(text, /^controller_runtime_terminal_reconcile_errors_total\{controller="mini-replicaset"\} 1$/m);
    assert.match(text, /^controller_runtime_reconcile_total\{controller="mini-replicaset",result="error"\} 1$/m, 'once, not retried');
    assert.equal((await livePods('bad')).length, 0);
    await cp.client.resource(ConfigMaps).patch('vitrine', { data: { repliques: '2' } }, 'merge', { namespace: 'bad' });
    await settle();
    assert.equal((await livePods('bad')).length, 2);
  });

  it('exercise 1: two copies at once create 6 pods, then delete the same 3', async () => {
    await createNs('twins');
    const a = run('twins', { who: 'copy-a' });
    const b = run('twins', { who: 'copy-b' });
    await settle();
    await cp.client.resource(ConfigMaps).create(wish('vitrine', 3), { namespace: 'twins' });
    await settle();
    // Both see the wish with no pod and create 3; then both see 6 for 3 and delete the 3 newest,
    // the same ones, chosen by the same rule from caches that saw the same events.
    const counts = (lines: string[]) => actions(lines).map((l) => l.split(', ')[0]);
    const expected = ['0 pod(s) for 3', '1 pod(s) for 3', '2 pod(s) for 3', '6 pod(s) for 3', '5 pod(s) for 3', '4 pod(s) for 3'].map((c) => `vitrine: ${c} wanted`);
    assert.deepEqual(counts(a.lines), expected);
    assert.deepEqual(counts(b.lines), expected);
    const named = (lines: string[], verb: string) => actions(lines).filter((l) => l.includes(verb)).map((l) => l.split(' ').at(-1)!);
    assert.deepEqual(named(a.lines, 'deleting'), named(b.lines, 'deleting'));
    const left = (await livePods('twins')).map((p) => p.metadata!.name!).sort();
    const created = [...named(a.lines, 'creating'), ...named(b.lines, 'creating')];
    assert.deepEqual(left, created.filter((n) => !named(a.lines, 'deleting').includes(n)).sort());
    assert.equal(left.length, 3);
  });

  it('exercise 1 with leader election: only the holder of the Lease acts; the other takes over when it stops', async () => {
    await createNs('lease');
    const a = run('lease', { identity: 'copy-a' });
    const b = run('lease', { identity: 'copy-b' });
    await settle();
    await cp.client.resource(ConfigMaps).create(wish('vitrine', 3), { namespace: 'lease' });
    await settle();
    assert.equal((await livePods('lease')).length, 3);
    const lease = await cp.client.resource({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true }).get(LEASE_NAME, { namespace: 'lease' });
    const holder = (lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity;
    const [leader, standby] = holder === 'copy-a' ? [a, b] : [b, a];
    assert.equal(actions(leader.lines).length, 3);
    assert.deepEqual(standby.lines, []);

    leader.stop.abort(); // releases the Lease
    await cp.client.resource(ConfigMaps).patch('vitrine', { data: { repliques: '4' } }, 'merge', { namespace: 'lease' });
    await cp.settle({ advance: true, maxVirtualMs: 10_000 });
    assert.equal((await livePods('lease')).length, 4);
    assert.deepEqual(actions(standby.lines).map((l) => l.split(', ')[0]), ['vitrine: 3 pod(s) for 4 wanted']);
  });
});
