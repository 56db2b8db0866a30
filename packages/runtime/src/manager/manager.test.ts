import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, RawRequest, RawResponse, Transport } from '@kplane/api';
import { createFakeClock } from '../clock.js';
import { CacheSyncTimeoutError, GracefulShutdownTimeoutError, LeaderElectionLostError } from '../controller/errors.js';
import { leaseResource, type Lease } from '../leader/lease-lock.js';
import { startTestKplane, type TestKplane } from '@kplane/apiserver/testing';
import { settle, tick } from '../testing/index.js';
import { createManager } from './manager.js';
import { parseBindAddress } from './probes.js';

const CM = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' };
const START = Date.UTC(2026, 0, 1);

/** A promise and its resolver, to hold a reconcile or a request until the test lets it go. */
function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

const configMap = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
const holderOf = async (kp: TestKplane, name: string) =>
  (await kp.client.resource<Lease>(leaseResource).get(name, { namespace: 'default' })).spec?.holderIdentity;

test('bind addresses: host:port, :port, [v6]:port; "0" or nothing disables', () => {
  assert.deepEqual(parseBindAddress('127.0.0.1:8080', 'x'), { host: '127.0.0.1', port: 8080 });
  assert.deepEqual(parseBindAddress(':8081', 'x'), { host: undefined, port: 8081 });
  assert.deepEqual(parseBindAddress('[::1]:0', 'x'), { host: '::1', port: 0 });
  assert.equal(parseBindAddress('0', 'x'), undefined);
  assert.equal(parseBindAddress(undefined, 'x'), undefined);
  assert.throws(() => parseBindAddress('8080', 'metricsBindAddress'), /^Error: invalid metricsBindAddress "8080": want host:port, :port or "0" to disable$/);
});

test('manager: /metrics with controller-runtime names, /healthz, and /readyz failing until the caches sync', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const lists = gate();
  // Reads of ConfigMaps wait for the test: the cache cannot sync before.
  const client = kp.clientWith(async (req: RawRequest, next: Transport): Promise<RawResponse> => {
    if (req.path.endsWith('/configmaps')) await lists.promise;
    return next(req);
  });
  // Virtual time: the reconcile takes 0 s, whatever the machine's load.
  const clock = createFakeClock(START);
  const mgr = createManager({ client, clock, metricsBindAddress: '127.0.0.1:0', healthProbeBindAddress: '127.0.0.1:0', maxConcurrentReconciles: 3 });
  const reconciled = gate<string>();
  mgr.controller().named('sonde').for(CM).complete((req) => reconciled.open(req.key));
  assert.throws(() => mgr.addReadyzCheck('informer-sync', () => true), /^Error: readyz check named "informer-sync" already exists$/);
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  t.after(() => (stop.abort(), done));
  const { metrics, healthProbe } = await mgr.serving();
  assert.match(metrics!, /^http:\/\/127\.0\.0\.1:\d+$/);

  assert.deepEqual(await get(`${healthProbe}/readyz`), { status: 500, body: '[-]informer-sync failed: reason withheld\nhealthz check failed\n' });
  assert.deepEqual(await get(`${healthProbe}/readyz/informer-sync`), { status: 500, body: 'internal server error: caches not synced\n' });
  assert.deepEqual(await get(`${healthProbe}/healthz`), { status: 200, body: 'ok' }, 'alive while syncing');
  assert.deepEqual(await get(`${healthProbe}/healthz?verbose`), { status: 200, body: '[+]ping ok\nhealthz check passed\n' });
  assert.equal(mgr.ready(), false);

  lists.open();
  assert.equal(await mgr.factory.waitForCacheSync(), true);
  await settle();
  assert.deepEqual(await get(`${healthProbe}/readyz`), { status: 200, body: 'ok' });
  assert.deepEqual(await get(`${healthProbe}/readyz?verbose`), { status: 200, body: '[+]informer-sync ok\nhealthz check passed\n' });

  // Named checks: a failing one fails the endpoint, shows its error on its own path, can be excluded.
  let dbUp = false;
  mgr.addReadyzCheck('db', () => dbUp || new Error('db unreachable'));
  assert.deepEqual(await get(`${healthProbe}/readyz`), { status: 500, body: '[+]informer-sync ok\n[-]db failed: reason withheld\nhealthz check failed\n' });
  assert.deepEqual(await get(`${healthProbe}/readyz/db`), { status: 500, body: 'internal server error: db unreachable\n' });
  assert.deepEqual(await get(`${healthProbe}/readyz?exclude=db&exclude=nope`), { status: 200, body: 'ok' });
  assert.deepEqual(await get(`${healthProbe}/readyz?exclude=db&exclude=nope&verbose`), {
    status: 200,
    body: '[+]informer-sync ok\n[+]db excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n',
  });
  dbUp = true;
  assert.equal((await get(`${healthProbe}/readyz`)).status, 200);
  mgr.addHealthzCheck('boucle', async () => {
    throw new Error('stuck');
  });
  assert.deepEqual(await get(`${healthProbe}/healthz`), { status: 500, body: '[-]boucle failed: reason withheld\nhealthz check failed\n' }, 'the ping is only there when no check was added');
  assert.equal((await get(`${healthProbe}/nope`)).status, 404);

  await kp.client.resource(CM).create(configMap('un'));
  assert.equal(await reconciled.promise, 'default/un');
  await settle();
  const text = (await get(`${metrics}/metrics`)).body;
  for (const line of [
    'controller_runtime_max_concurrent_reconciles{controller="sonde"} 3',
    'controller_runtime_active_workers{controller="sonde"} 0',
    'controller_runtime_reconcile_total{controller="sonde",result="success"} 1',
    'controller_runtime_reconcile_errors_total{controller="sonde"} 0',
    'controller_runtime_terminal_reconcile_errors_total{controller="sonde"} 0',
    'controller_runtime_reconcile_time_seconds_count{controller="sonde"} 1',
    'workqueue_adds_total{name="sonde"} 1',
  ]) {
    assert.ok(text.split('\n').includes(line), `${line} in\n${text}`);
  }
  assert.match(text, /^controller_runtime_reconcile_time_seconds_bucket\{le="0.005",controller="sonde"\} 1$/m);
  assert.equal((await get(`${metrics}/nope`)).status, 404);

  stop.abort();
  await done;
  await assert.rejects(fetch(`${healthProbe}/healthz`), 'the endpoints are closed');
});

test('manager: an endpoint that cannot bind fails start, and serving() says so', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const first = createManager({ client: kp.client, metricsBindAddress: '127.0.0.1:0' });
  const stop = new AbortController();
  const done = first.start(stop.signal);
  const taken = new URL((await first.serving()).metrics!).port;
  const second = createManager({ client: kp.client, metricsBindAddress: `127.0.0.1:${taken}` });
  await assert.rejects(second.start(new AbortController().signal), /EADDRINUSE/);
  await assert.rejects(second.serving(), /EADDRINUSE/);
  stop.abort();
  await done;
});

test('manager: a graceful stop takes no new work, waits for the reconciles in flight, then releases the Lease', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const mgr = createManager({ client: kp.client, clock, leaderElection: { namespace: 'default', name: 'drain', identity: 'moi' } });
  const started = gate<AbortSignal>();
  const release = gate();
  const seen: string[] = [];
  mgr.controller().named('lent').for(CM).complete(async (req, { signal }) => {
    seen.push(req.key);
    started.open(signal);
    await release.promise;
  });
  t.after(() => release.open());
  const stop = new AbortController();
  let finished = false;
  const done = mgr.start(stop.signal).then(() => void (finished = true));
  await kp.client.resource(CM).create(configMap('a'));
  const signal = await started.promise;
  assert.equal(mgr.leading(), true);
  assert.equal(await holderOf(kp, 'drain'), 'moi');

  stop.abort();
  await settle();
  assert.equal(signal.aborted, true, 'the reconcile is told to stop');
  await kp.client.resource(CM).create(configMap('b'));
  await settle();
  assert.equal(finished, false, 'start waits for the reconcile in flight');
  assert.equal(await holderOf(kp, 'drain'), 'moi', 'the Lease is kept while a reconcile runs');

  release.open();
  await done;
  assert.deepEqual(seen, ['default/a'], 'no key was taken after the stop');
  assert.equal(await holderOf(kp, 'drain'), '', 'released once the reconciles returned');
  assert.equal(mgr.healthy(), false);
});

test('manager: when the grace period runs out, start rejects and the Lease is left to expire', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const mgr = createManager({ client: kp.client, clock, gracefulShutdownTimeoutMs: 5_000, leaderElection: { namespace: 'default', name: 'stuck', identity: 'moi' } });
  const started = gate();
  mgr.controller().named('bloque').for(CM).complete(async () => {
    started.open();
    await new Promise(() => {}); // never returns
  });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  await kp.client.resource(CM).create(configMap('a'));
  await started.promise;
  stop.abort();
  const outcome = assert.rejects(done, (err: unknown) => err instanceof GracefulShutdownTimeoutError && err.message === 'failed waiting for all runnables to end within grace period of 5s: context deadline exceeded');
  await tick(clock, 5_000, 500);
  await outcome;
  assert.equal(await holderOf(kp, 'stuck'), 'moi', 'not released while a reconcile may still write');
});

test('manager: a lost Lease stops the controllers, calls onLeadershipLost and rejects start', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  let cutOff = false;
  const client = kp.clientWith(async (req, next) => {
    if (cutOff && req.path.includes('/leases')) throw new Error('connection refused');
    return next(req);
  });
  const lost: string[] = [];
  const mgr = createManager({
    client,
    clock,
    leaderElection: { namespace: 'default', name: 'perdu', identity: 'moi' },
    onLeadershipLost: (err) => lost.push(err.lease),
  });
  const started = gate<AbortSignal>();
  mgr.controller().named('ctl').for(CM).complete((_req, { signal }) => started.open(signal));
  const done = mgr.start(new AbortController().signal);
  await kp.client.resource(CM).create(configMap('a'));
  const signal = await started.promise;
  assert.equal(mgr.leading(), true);
  cutOff = true;
  const outcome = assert.rejects(done, (err: unknown) => err instanceof LeaderElectionLostError && err.message === 'leader election lost');
  // Renewals fail for the renew deadline (10 s) after the last success (at most one retry period, 2 s, before).
  await tick(clock, 13_000, 500);
  await outcome;
  assert.equal(signal.aborted, true);
  assert.deepEqual(lost, ['default/perdu']);
  assert.equal(mgr.leading(), false);
});

test('manager: by default a lost Lease exits the process with status 1', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  let cutOff = false;
  const client = kp.clientWith(async (req, next) => {
    if (cutOff && req.path.includes('/leases')) throw new Error('connection refused');
    return next(req);
  });
  const exits: (number | undefined)[] = [];
  t.mock.method(process, 'exit', (code?: number) => void exits.push(code));
  const errors: string[] = [];
  t.mock.method(console, 'error', (m: string) => void errors.push(m));
  const mgr = createManager({ client, clock, leaderElection: { namespace: 'default', name: 'sortie', identity: 'moi' } });
  mgr.add({ needLeaderElection: true, start: (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve())) });
  const done = mgr.start(new AbortController().signal);
  const outcome = assert.rejects(done, LeaderElectionLostError);
  await tick(clock, 500, 500);
  assert.equal(mgr.leading(), true);
  cutOff = true;
  await tick(clock, 13_000, 500);
  await outcome;
  assert.deepEqual(exits, [1]);
  assert.deepEqual(errors, ['leader election lost (lease default/sortie): exiting']);
});

test('manager: caches that do not sync in time fail start with the resources named', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  // ConfigMaps cannot be listed (a CRD not installed, a missing permission...): that cache never syncs.
  const client = kp.clientWith(async (req, next) => {
    if (req.path.endsWith('/configmaps')) {
      const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden', reason: 'Forbidden', code: 403 };
      return { status: 403, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(status)) };
    }
    return next(req);
  });
  const mgr = createManager({ client, clock, cacheSyncTimeoutMs: 120_000, onCacheError: () => {} });
  let reconciles = 0;
  mgr.controller().named('jamais').for(CM).complete(() => void reconciles++);
  mgr.factory.informerFor({ group: '', version: 'v1', resource: 'namespaces', namespaced: false });
  const done = mgr.start(new AbortController().signal);
  const outcome = assert.rejects(done, (err: unknown) => {
    assert.ok(err instanceof CacheSyncTimeoutError);
    assert.equal(err.message, 'failed to wait for caches to sync: timed out waiting for cache to be synced for configmaps');
    assert.deepEqual(err.resources, ['/v1/configmaps']);
    return true;
  });
  await tick(clock, 119_000, 10_000);
  assert.equal(mgr.healthy(), true, 'still waiting before the timeout');
  await tick(clock, 1_000, 1_000);
  await outcome;
  assert.equal(reconciles, 0);
});

test('manager: a controller added after start whose cache does not sync stops the manager', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const clock = createFakeClock(START);
  const client = kp.clientWith(async (req, next) => {
    if (req.path.endsWith('/secrets')) throw new Error('connection reset');
    return next(req);
  });
  const mgr = createManager({ client, clock, cacheSyncTimeoutMs: 60_000, onCacheError: () => {} });
  const done = mgr.start(new AbortController().signal);
  await mgr.factory.waitForCacheSync();
  await settle();
  mgr.controller().named('tardif').for({ group: '', version: 'v1', resource: 'secrets', namespaced: true, kind: 'Secret' }).complete(() => {});
  const outcome = assert.rejects(done, /^CacheSyncTimeoutError: failed to wait for tardif caches to sync: timed out waiting for cache to be synced for secrets$/);
  await tick(clock, 60_000, 10_000);
  await outcome;
});

test('manager: maxConcurrentReconciles runs keys side by side, never one key twice at once', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const mgr = createManager({ client: kp.client });
  const inFlight = new Set<string>();
  let most = 0;
  const waiting: (() => void)[] = [];
  const log: string[] = [];
  const ctl = mgr
    .controller()
    .named('parallele')
    .for(CM)
    .withOptions({ maxConcurrentReconciles: 2 })
    .complete(async (req) => {
      assert.ok(!inFlight.has(req.key), `${req.key} reconciled twice at once`);
      inFlight.add(req.key);
      most = Math.max(most, inFlight.size);
      log.push(`start ${req.name}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight.delete(req.key);
      log.push(`end ${req.name}`);
    });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  await mgr.factory.waitForCacheSync();
  await settle();
  for (const k of ['default/a', 'default/b', 'default/c', 'default/a']) ctl.enqueue(k);
  await settle();
  assert.deepEqual(log, ['start a', 'start b'], 'two workers, two keys');
  const active = async () => (await mgr.metrics.activeWorkers.get()).values.find((v) => v.labels.controller === 'parallele')?.value;
  assert.equal(await active(), 2);
  ctl.enqueue('default/a'); // a change while a is in flight: one more reconcile of a, after this one
  waiting.shift()!();
  await settle();
  assert.deepEqual(log, ['start a', 'start b', 'end a', 'start c']);
  while (waiting.length > 0) {
    waiting.shift()!();
    await settle();
  }
  assert.deepEqual(log.slice(4), ['end b', 'start a', 'end c', 'end a']);
  assert.equal(most, 2);
  assert.equal(await active(), 0);
  stop.abort();
  await done;
});

test('manager: eventRecorderFor gives one recorder per component, writing with the manager client and clock', async (t) => {
  const kp = await startTestKplane();
  t.after(() => kp.close());
  const mgr = createManager({ client: kp.client, clock: createFakeClock(START) });
  const recorder = mgr.eventRecorderFor('demo-controller');
  assert.equal(mgr.eventRecorderFor('demo-controller'), recorder);
  assert.notEqual(mgr.eventRecorderFor('other-controller'), recorder);
  await kp.client.resource(CM).create(configMap('wish'), { namespace: 'default' });
  const ev = await recorder.event(configMap('wish'), 'Normal', 'Noticed', 'seen by the demo');
  assert.equal(ev?.reportingComponent, 'demo-controller');
  assert.deepEqual(ev?.source, { component: 'demo-controller' });
  assert.equal(ev?.firstTimestamp, '2026-01-01T00:00:00Z');
});
