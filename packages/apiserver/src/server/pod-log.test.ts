import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../testing.js';
import type { ContainerLogQuery } from './nodes.js';

const PODS = '/api/v1/namespaces/default/pods';
const NOW = Date.parse('2025-01-02T03:04:05Z');

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }], nodeName: 'node-a', ...spec },
});

describe('pods/log', () => {
  let t: TestServer;
  const asked: { uid: string; container: string; query: ContainerLogQuery }[] = [];
  /** Lines of the fake kubelet; a follow waits on `more`. */
  let more: (() => void) | undefined;
  before(async () => {
    t = await startTestServer({ now: () => new Date(NOW) });
    t.server.nodes.register(['node-a'], {
      read(uid, container, query) {
        asked.push({ uid, container, query });
        if (container === 'fresh') return { reason: 'NoContainer' };
        if (query.previous && container === 'c') return { reason: 'NoPrevious' };
        return (async function* () {
          yield 'one\n';
          yield 'two\n';
          if (!query.follow) return;
          await new Promise<void>((r) => (more = r));
          yield 'three\n';
        })();
      },
    });
    await t.call('POST', PODS, pod('one'));
    await t.call('POST', PODS, pod('two', { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }], initContainers: [{ name: 'init', image: 'x' }] }));
    await t.call('POST', PODS, pod('pending', { nodeName: undefined }));
    await t.call('POST', PODS, pod('elsewhere', { nodeName: 'node-z' }));
    await t.call('POST', PODS, pod('starting', { containers: [{ name: 'fresh', image: 'x' }] }));
  });
  after(async () => {
    await t.close();
  });

  it('serves the log as text/plain, passing the options to the kubelet', async () => {
    const r = await t.server.handle({ method: 'GET', path: `${PODS}/one/log`, query: { tailLines: '5', timestamps: 'true', sinceSeconds: '10' }, headers: {} });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/plain');
    assert.equal(Buffer.from(r.body!).toString(), 'one\ntwo\n');
    const q = asked.at(-1)!;
    assert.equal(q.container, 'c');
    assert.deepEqual([q.query.tailLines, q.query.timestamps, q.query.follow, q.query.previous, q.query.sinceMs], [5, true, false, false, NOW - 10_000]);
    await t.call('GET', `${PODS}/one/log`, undefined, {}, { sinceTime: '2025-01-02T03:00:00Z' });
    assert.equal(asked.at(-1)!.query.sinceMs, Date.parse('2025-01-02T03:00:00Z'));
  });

  it('cuts the log at limitBytes', async () => {
    const r = await t.call('GET', `${PODS}/one/log`, undefined, {}, { limitBytes: '5' });
    assert.equal(r.body, 'one\nt');
  });

  it('streams with follow until the client goes away', async () => {
    const ac = new AbortController();
    const r = await t.server.handle({ method: 'GET', path: `${PODS}/one/log`, query: { follow: 'true' }, headers: {}, signal: ac.signal });
    assert.equal(r.status, 200);
    assert.equal(asked.at(-1)!.query.signal, ac.signal);
    const it = r.stream![Symbol.asyncIterator]();
    assert.equal(Buffer.from((await it.next()).value!).toString(), 'one\n');
    assert.equal(Buffer.from((await it.next()).value!).toString(), 'two\n');
    const third = it.next();
    more!();
    assert.equal(Buffer.from((await third).value!).toString(), 'three\n');
    assert.equal((await it.next()).done, true);
  });

  it('needs a container in a multi-container pod, and a valid one (400 with kube\'s messages)', async () => {
    const r = await t.call('GET', `${PODS}/two/log`);
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, 'BadRequest');
    assert.equal(r.body.message, 'a container name must be specified for pod two, choose one of: [init a b]');
    const bad = await t.call('GET', `${PODS}/two/log`, undefined, {}, { container: 'zz' });
    assert.equal(bad.body.message, 'container zz is not valid for pod two');
    assert.equal((await t.call('GET', `${PODS}/two/log`, undefined, {}, { container: 'b' })).status, 200);
    assert.equal((await t.call('GET', `${PODS}/nope/log`)).status, 404);
  });

  it('checks the options as PodLogOptions (422)', async () => {
    const neg = await t.call('GET', `${PODS}/one/log`, undefined, {}, { tailLines: '-1' });
    assert.equal(neg.status, 422);
    assert.equal(neg.body.message, 'PodLogOptions "one" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0');
    const both = await t.call('GET', `${PODS}/one/log`, undefined, {}, { sinceSeconds: '1', sinceTime: '2025-01-02T03:00:00Z' });
    assert.equal(both.status, 422);
    assert.match(both.body.message, /at most one of `sinceTime` or `sinceSeconds` may be specified/);
    assert.equal((await t.call('GET', `${PODS}/one/log`, undefined, {}, { limitBytes: '0' })).status, 422);
    assert.equal((await t.call('GET', `${PODS}/one/log`, undefined, {}, { tailLines: 'x' })).status, 400);
  });

  it('answers the kubelet\'s messages for a container without a log', async () => {
    const waiting = await t.call('GET', `${PODS}/starting/log`);
    assert.equal(waiting.status, 400);
    assert.equal(waiting.body.message, 'container "fresh" in pod "starting" is waiting to start: ContainerCreating');
    const prev = await t.call('GET', `${PODS}/one/log`, undefined, {}, { previous: 'true' });
    assert.equal(prev.status, 400);
    assert.equal(prev.body.message, 'previous terminated container "c" in pod "one" not found');
  });

  it('is empty for a pod without a node, and an error for a node no kubelet serves', async () => {
    const pending = await t.call('GET', `${PODS}/pending/log`);
    assert.deepEqual([pending.status, pending.body], [200, '']);
    const elsewhere = await t.call('GET', `${PODS}/elsewhere/log`);
    assert.equal(elsewhere.status, 500);
    assert.match(elsewhere.body.message, /no kubelet serves node "node-z"/);
  });

  it('lists pods/log, exec, attach and portforward in discovery as kube-apiserver does', async () => {
    const list = await t.call('GET', '/api/v1');
    const subs = list.body.resources.filter((r: any) => /^pods\/(log|exec|attach|portforward)$/.test(r.name)).map((r: any) => `${r.name} ${r.kind} ${r.verbs.join(',')}`);
    assert.deepEqual(subs, ['pods/attach PodAttachOptions create,get', 'pods/exec PodExecOptions create,get', 'pods/log Pod get', 'pods/portforward PodPortForwardOptions create,get']);
  });

  it('answers exec, attach and portforward without an upgrade as kube-apiserver does', async () => {
    const r = await t.call('POST', `${PODS}/one/exec`, undefined, {}, { command: 'ls' });
    assert.deepEqual([r.status, r.body.message], [400, 'Upgrade request required']);
    const pending = await t.call('GET', `${PODS}/pending/attach`);
    assert.deepEqual([pending.status, pending.body.message], [400, 'pod pending does not have a host assigned']);
    assert.equal((await t.call('GET', `${PODS}/two/exec`, undefined, {}, { container: 'zz' })).body.message, 'container zz is not valid for pod two');
    assert.equal((await t.call('GET', '/api/v1/namespaces/default/configmaps/x/log')).status, 404);
  });
});
