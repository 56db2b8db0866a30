import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createFakeClock, Pods, type FakeClock, type kinds } from '@kplane/runtime';
import { createKubelet, type Kubelet } from './kubelet.js';
import { annotatedLines } from './pod-log.js';
import { settle, startKplane, tickUntil, type TestKplane } from './test-kplane.js';

const START = Date.parse('2025-06-01T12:00:00Z');

async function text(it: unknown): Promise<string> {
  assert.ok(it && typeof it === 'object' && Symbol.asyncIterator in it, JSON.stringify(it));
  let s = '';
  for await (const c of it as AsyncIterable<string>) s += c;
  return s;
}

describe('container logs of the simulated kubelet (fake clock)', () => {
  let k: TestKplane;
  let clock: FakeClock;
  let kubelet: Kubelet;
  before(async () => {
    k = await startKplane();
    clock = createFakeClock(START);
    kubelet = createKubelet({ client: k.client, nodes: 1, clock, events: false });
    await kubelet.start();
  });
  after(async () => {
    await kubelet.stop();
    await k.close();
  });
  const pods = () => k.client.resource(Pods);
  const make = (name: string, annotations: Record<string, string>, spec: Partial<kinds.PodSpec> = {}) =>
    pods().create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', annotations }, spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: 'kplane-node-0', ...spec } });

  it('reads the annotation: one container\'s own lines win over the pod\'s', () => {
    const pod = { metadata: { annotations: { 'kplane.io/log': 'hello\nworld\n', 'kplane.io/log.side': 'side car' } } } as kinds.Pod;
    assert.deepEqual(annotatedLines(pod, 'app'), ['hello', 'world']);
    assert.deepEqual(annotatedLines(pod, 'side'), ['side car']);
  });

  it('logs start, annotation lines, readiness probe and stop, timed by the clock', async () => {
    const p = await make('web', { 'kplane.io/log': 'listening on :8080', 'kplane.io/ready-after-ms': '1100' }, {
      containers: [{ name: 'app', image: 'nginx', readinessProbe: { httpGet: { path: '/healthz', port: 8080 } } }],
    });
    const uid = p.metadata!.uid!;
    await tickUntil(clock, async () => (await pods().get('web')).status?.containerStatuses?.[0]?.ready === true, 100, 5000);
    await settle();
    const log = await text(kubelet.logs.read(uid, 'app', { timestamps: true }));
    assert.deepEqual(log.split('\n'), [
      '2025-06-01T12:00:00.100000000Z kplane: started container app (image nginx); simulated, no process runs',
      '2025-06-01T12:00:00.100000000Z listening on :8080',
      '2025-06-01T12:00:01.100000000Z kplane: readiness probe http-get http://:8080/healthz succeeded; container app is ready',
      '',
    ]);
    // A follower gets the stop lines, then the end.
    const following = text(kubelet.logs.read(uid, 'app', { follow: true, tailLines: 0 }));
    await pods().delete('web');
    await tickUntil(clock, async () => !kubelet.logs.has(uid, 'app'), 50, 5000);
    assert.deepEqual((await following).split('\n'), [
      'kplane: container app received SIGTERM (grace period 30s)',
      'kplane: container app exited with code 0 (Completed)',
      '',
    ]);
  });

  it('keeps the previous instance of a crashing container', async () => {
    const p = await make('crash', { 'kplane.io/fail': 'CrashLoopBackOff', 'kplane.io/fail-after-ms': '500', 'kplane.io/log.app': 'boom' });
    const uid = p.metadata!.uid!;
    await tickUntil(clock, async () => (await pods().get('crash')).status?.containerStatuses?.[0]?.restartCount === 1 && (await pods().get('crash')).status?.containerStatuses?.[0]?.state?.running, 100, 10_000);
    await settle();
    assert.equal(await text(kubelet.logs.read(uid, 'app', { previous: true })), [
      'kplane: started container app (image nginx); simulated, no process runs',
      'boom',
      'kplane: container app is ready',
      'kplane: container app exited with code 1 (Error)',
      '',
    ].join('\n'));
    assert.equal(await text(kubelet.logs.read(uid, 'app')), 'kplane: started container app (image nginx); simulated, no process runs\nboom\nkplane: container app is ready\n');
  });

  it('logs init containers too, each in its turn', async () => {
    const p = await make('staged', { 'kplane.io/run-ms.setup': '300', 'kplane.io/log.setup': 'migrating' }, { restartPolicy: 'Never', initContainers: [{ name: 'setup', image: 'busybox' }] });
    const uid = p.metadata!.uid!;
    await tickUntil(clock, async () => (await pods().get('staged')).status?.phase === 'Succeeded', 100, 5000);
    await settle();
    const setup = (await text(kubelet.logs.read(uid, 'setup', { timestamps: true }))).trim().split('\n');
    assert.deepEqual(setup.map((l) => l.slice(31)), [
      'kplane: started container setup (image busybox); simulated, no process runs',
      'migrating',
      'kplane: container setup exited with code 0 (Completed)',
    ]);
    const app = (await text(kubelet.logs.read(uid, 'app', { timestamps: true }))).trim().split('\n');
    assert.equal(Date.parse(setup[2]!.slice(0, 30)) - Date.parse(setup[0]!.slice(0, 30)), 300);
    assert.ok(Date.parse(app[0]!.slice(0, 30)) >= Date.parse(setup[2]!.slice(0, 30)), 'the app starts once setup has exited');
  });
});
