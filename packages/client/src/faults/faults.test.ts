import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, type RawRequest, type RawResponse, type Transport } from '@kplane/api';
import { createClient } from '../client.js';
import { createFaults, describeRequest, formatRequest, type FaultClock } from './index.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A transport that answers every request with 200 `{}` and records what reached it. */
function server(): { transport: Transport; seen: RawRequest[] } {
  const seen: RawRequest[] = [];
  const transport: Transport = async (req) => {
    seen.push(req);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: enc.encode(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' } })) };
  };
  return { transport, seen };
}

/** A transport whose watches stream `events` lines and then stay open until aborted. */
function watchServer(events: number): { transport: Transport; aborted: () => boolean } {
  const signals: AbortSignal[] = [];
  const transport: Transport = async (req) => {
    if (req.signal) signals.push(req.signal);
    async function* stream(): AsyncGenerator<Uint8Array> {
      for (let i = 1; i <= events; i++) yield enc.encode(JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `c${i}`, resourceVersion: String(i) } } }) + '\n');
      await new Promise<void>((resolve) => {
        if (req.signal?.aborted) return resolve();
        req.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    return { status: 200, headers: { 'content-type': 'application/json' }, stream: stream() };
  };
  return { transport, aborted: () => signals.length > 0 && signals.every((x) => x.aborted) };
}

/** A hand-driven clock: timers fire only on advance(). */
function manualClock(): FaultClock & { advance(ms: number): Promise<void>; pending(): number } {
  let t = 0;
  let timers: { at: number; fn: () => void; id: object }[] = [];
  return {
    now: () => t,
    setTimeout(fn, ms) {
      const id = {};
      timers.push({ at: t + ms, fn, id });
      return id;
    },
    clearTimeout(h) {
      timers = timers.filter((x) => x.id !== h);
    },
    async advance(ms) {
      t += ms;
      for (const x of timers.filter((x) => x.at <= t)) {
        timers = timers.filter((y) => y !== x);
        x.fn();
      }
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    },
    pending: () => timers.length,
  };
}

const cmPath = '/api/v1/namespaces/default/configmaps';
const put = (name = 'x'): RawRequest => ({ method: 'PUT', path: `${cmPath}/${name}`, body: enc.encode('{}') });
const get = (name = 'x'): RawRequest => ({ method: 'GET', path: `${cmPath}/${name}` });
const watch = (rv?: string, signal?: AbortSignal): RawRequest => ({ method: 'GET', path: cmPath, query: { watch: 'true', ...(rv !== undefined ? { resourceVersion: rv } : {}) }, signal });
const json = (r: RawResponse): any => JSON.parse(dec.decode(r.body));
async function lines(r: RawResponse): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of r.stream!) out.push(...dec.decode(chunk).split('\n').filter(Boolean));
  return out;
}

describe('describeRequest', () => {
  it('reads the verb and the resource as kube-apiserver does', () => {
    const cases: [RawRequest, string, Partial<ReturnType<typeof describeRequest>>][] = [
      [{ method: 'GET', path: '/api/v1/namespaces/ns/pods/p' }, 'get pods ns/p', { namespace: 'ns', name: 'p' }],
      [{ method: 'GET', path: '/api/v1/pods' }, 'list pods', { namespace: '' }],
      [{ method: 'GET', path: '/apis/apps/v1/namespaces/ns/deployments', query: { watch: '1', resourceVersion: '7' } }, 'watch deployments.apps -n ns', { resourceVersion: '7' }],
      [{ method: 'GET', path: '/api/v1/watch/namespaces/ns/pods' }, 'watch pods -n ns', {}],
      [{ method: 'POST', path: '/api/v1/namespaces/ns/pods/p/eviction' }, 'create pods/eviction ns/p', { subresource: 'eviction' }],
      [{ method: 'PUT', path: '/apis/apps/v1/namespaces/ns/deployments/d/status' }, 'update deployments.apps/status ns/d', { group: 'apps' }],
      [{ method: 'PATCH', path: '/api/v1/nodes/n1' }, 'patch nodes n1', { namespace: '' }],
      [{ method: 'DELETE', path: '/api/v1/namespaces/ns/configmaps' }, 'deletecollection configmaps -n ns', {}],
      [{ method: 'DELETE', path: '/api/v1/namespaces/ns/configmaps/a%20b' }, 'delete configmaps ns/a b', { name: 'a b' }],
      [{ method: 'PUT', path: '/api/v1/namespaces/ns/finalize' }, 'update namespaces/finalize ns', { namespace: 'ns', name: 'ns' }],
      [{ method: 'GET', path: '/healthz' }, 'get /healthz', { resource: '' }],
    ];
    for (const [req, line, parts] of cases) {
      const info = describeRequest(req);
      assert.equal(formatRequest(info), line);
      for (const [k, v] of Object.entries(parts)) assert.equal(info[k as keyof typeof info], v, `${line}: ${k}`);
    }
  });
});

describe('createFaults: errors', () => {
  it('answers with kube-apiserver Status bodies that the client turns into ApiErrors', async () => {
    const s = server();
    const faults = createFaults({ seed: 1 });
    faults.add({ verb: 'update', error: 409, count: 1 });
    faults.add({ verb: 'update', error: 429, count: 1 });
    faults.add({ verb: 'update', error: 500, count: 1 });
    faults.add({ verb: 'update', error: 504, count: 1 });
    faults.add({ verb: 'get', error: 410, count: 1 });
    const client = createClient({ transport: faults.wrap(s.transport, 'ctl') });
    const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' });
    const update = () => cms.update({ metadata: { name: 'x', namespace: 'default', resourceVersion: '5' } }).then(() => undefined, (e: unknown) => e as ApiError);
    const e409 = await update();
    assert.ok(e409 instanceof ApiError);
    assert.equal(e409.code, 409);
    assert.equal(e409.reason, 'Conflict');
    assert.equal(e409.message, 'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again');
    const e429 = (await update())!;
    assert.equal(e429.reason, 'TooManyRequests');
    assert.equal(e429.details?.retryAfterSeconds, 1);
    assert.equal((await update())!.reason, 'InternalError');
    const e504 = (await update())!;
    assert.equal(e504.reason, 'Timeout');
    assert.equal(e504.message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
    assert.equal(await update(), undefined, 'the counts are used up');
    const e410 = await cms.get('x', { resourceVersion: '3' }).catch((e: ApiError) => e);
    assert.ok(e410 instanceof ApiError && e410.code === 410 && e410.reason === 'Expired' && e410.message === 'too old resource version: 3 (4)');
    assert.equal(s.seen.length, 1, 'only the last update reached the server');
  });

  it('sends Retry-After with a 429', async () => {
    const faults = createFaults({ seed: 1 });
    faults.add({ error: 429, retryAfterSeconds: 3 });
    const r = await faults.wrap(server().transport)(get());
    assert.equal(r.status, 429);
    assert.equal(r.headers['retry-after'], '3');
    assert.deepEqual(json(r), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.', reason: 'TooManyRequests', details: { retryAfterSeconds: 3 }, code: 429 });
  });

  it('sends a 429 as plain text, as the max-in-flight filter does; the client still reads it as TooManyRequests', async () => {
    const faults = createFaults({ seed: 1 });
    faults.add({ error: 429, plainText: true });
    const t = faults.wrap(server().transport);
    const r = await t(get());
    assert.equal(r.status, 429);
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.headers['retry-after'], '1');
    assert.equal(dec.decode(r.body), 'Too many requests, please try again later.\n');
    const err = await createClient({ transport: t }).request({ path: `${cmPath}/x` }).catch((e: ApiError) => e);
    assert.ok(err instanceof ApiError && err.reason === 'TooManyRequests' && err.details?.retryAfterSeconds === 1, String(err));
  });

  it('selects by verb, resource, subresource, namespace, name and who', async () => {
    const faults = createFaults({ seed: 1 });
    faults.add({ verb: ['update', 'patch'], resource: 'configmaps', subresource: '', namespace: 'default', name: /^x/, who: 'naive', error: 500 });
    const s = server();
    const naive = faults.wrap(s.transport, 'naive');
    const other = faults.wrap(s.transport, 'other');
    assert.equal((await naive(put('x1'))).status, 500);
    assert.equal((await naive(put('y'))).status, 200);
    assert.equal((await naive(get('x1'))).status, 200);
    assert.equal((await naive({ method: 'PUT', path: `${cmPath}/x1/status` })).status, 200);
    assert.equal((await naive({ method: 'PUT', path: '/api/v1/namespaces/other/configmaps/x1' })).status, 200);
    assert.equal((await other(put('x1'))).status, 200);
  });

  it('with passThrough, the write reaches the server and only the answer is lost', async () => {
    const s = server();
    const faults = createFaults({ seed: 1 });
    faults.add({ verb: 'update', error: 504, passThrough: true, count: 1 });
    faults.add({ verb: 'update', disconnect: true, passThrough: true, count: 1 });
    faults.add({ verb: 'update', disconnect: true, count: 1 });
    const t = faults.wrap(s.transport);
    assert.equal((await t(put())).status, 504);
    assert.equal(s.seen.length, 1);
    await assert.rejects(t(put()), (e: Error & { code?: string }) => e.code === 'ECONNRESET');
    assert.equal(s.seen.length, 2);
    await assert.rejects(t(put()), (e: Error & { code?: string }) => e.code === 'ECONNREFUSED' && e.message === 'connect ECONNREFUSED');
    assert.equal(s.seen.length, 2, 'a refused connection never reached the server');
  });

  it('rejects a rule with no effect or with two, and a rate out of range', () => {
    const faults = createFaults({ seed: 1 });
    assert.throws(() => faults.add({ verb: 'get' }), /exactly one of/);
    assert.throws(() => faults.add({ error: 500, latencyMs: 3 }), /got error, latencyMs/);
    assert.throws(() => faults.add({ error: 500, rate: 2 }), /rate/);
    assert.throws(() => faults.add({ error: 500, count: -1 }), /count/);
  });
});

describe('createFaults: triggers and seeds', () => {
  const run = async (seed: number, who = 'a'): Promise<number[]> => {
    const faults = createFaults({ seed });
    faults.add({ verb: 'get', rate: 0.5, error: 500 });
    const t = faults.wrap(server().transport, who);
    const out: number[] = [];
    for (let i = 0; i < 40; i++) out.push((await t(get())).status);
    return out;
  };

  it('the same seed and requests inject the same faults; another seed others', async () => {
    const a = await run(7);
    assert.deepEqual(await run(7), a);
    assert.notDeepEqual(await run(8), a);
    const hits = a.filter((s) => s === 500).length;
    assert.ok(hits > 8 && hits < 32, `about half: ${hits}`);
  });

  it('each client has its own stream: requests of another client do not shift it', async () => {
    const faults = createFaults({ seed: 3 });
    faults.add({ verb: 'get', rate: 0.5, error: 500 });
    const a = faults.wrap(server().transport, 'a');
    const b = faults.wrap(server().transport, 'b');
    const out: number[] = [];
    for (let i = 0; i < 40; i++) {
      out.push((await a(get())).status);
      await b(get());
    }
    assert.deepEqual(out, await run(3, 'a'));
  });

  it('after skips the first matches, count and times bound the hits, remove and clear stop rules', async () => {
    const faults = createFaults({ seed: 1 });
    const r = faults.add({ verb: 'get', after: 2, count: 2, error: 500 });
    const t = faults.wrap(server().transport);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await t(get())).status);
    assert.deepEqual(statuses, [200, 200, 500, 500, 200, 200]);
    assert.equal(r.matched, 6);
    assert.equal(r.injected, 2);
    const capped = faults.add({ verb: 'get', rate: 1, times: 1, error: 429 });
    assert.equal((await t(get())).status, 429);
    assert.equal((await t(get())).status, 200);
    assert.equal(capped.injected, 1);
    const always = faults.add({ verb: 'get', error: 500 });
    assert.equal((await t(get())).status, 500);
    always.remove();
    assert.equal((await t(get())).status, 200);
    faults.add({ verb: 'get', error: 500 });
    faults.clear();
    assert.equal((await t(get())).status, 200);
  });

  it('the first outcome rule that hits wins; a pre-empted rule keeps its count for later', async () => {
    const faults = createFaults({ seed: 1 });
    faults.add({ error: 409, count: 1 });
    faults.add({ error: 500, count: 1 });
    const t = faults.wrap(server().transport);
    assert.deepEqual([(await t(put())).status, (await t(put())).status, (await t(put())).status], [409, 500, 200]);
  });

  it('logs every fault with the seed, for a failing test to print', async () => {
    const faults = createFaults({ seed: 4242 });
    faults.add({ verb: 'update', error: 409, count: 1 });
    await faults.wrap(server().transport, 'ctl')(put());
    assert.equal(faults.seed, 4242);
    assert.deepEqual(faults.log.map((f) => [f.request, f.who, f.target, f.fault, f.rule]), [[1, 'ctl', 'update configmaps default/x', '409 Conflict', 0]]);
    assert.match(faults.describe(), /^faults seed 4242 .*KPLANE_FAULTS_SEED=4242.*1 injected\n {2}#1 \[ctl\] update configmaps default\/x -> 409 Conflict \(rule 0\)$/);
  });

  it('takes its default seed from KPLANE_FAULTS_SEED, else a random one it writes to stderr', (t) => {
    const before = process.env['KPLANE_FAULTS_SEED'];
    const written: string[] = [];
    t.mock.method(process.stderr, 'write', (chunk: string) => written.push(chunk) > 0);
    try {
      process.env['KPLANE_FAULTS_SEED'] = '99';
      assert.equal(createFaults().seed, 99);
      assert.deepEqual(written, []);
      delete process.env['KPLANE_FAULTS_SEED'];
      const { seed } = createFaults();
      assert.ok(Number.isInteger(seed));
      assert.deepEqual(written, [`kplane faults: random seed ${seed} (replay with KPLANE_FAULTS_SEED=${seed})\n`]);
    } finally {
      if (before === undefined) delete process.env['KPLANE_FAULTS_SEED'];
      else process.env['KPLANE_FAULTS_SEED'] = before;
    }
  });
});

describe('createFaults: latency and hangs', () => {
  it('delays requests on the clock, by a fixed or a seeded amount', async () => {
    const clock = manualClock();
    const faults = createFaults({ seed: 5, clock });
    faults.add({ verb: 'get', latencyMs: 100 });
    faults.add({ verb: 'get', latencyMs: [10, 20] });
    const s = server();
    const t = faults.wrap(s.transport);
    let done = false;
    const p = t(get()).then((r) => ((done = true), r));
    await clock.advance(99);
    assert.equal(done, false);
    assert.equal(s.seen.length, 0);
    await clock.advance(21);
    assert.equal(done, true);
    assert.equal((await p).status, 200);
    const extra = Number(/latency (\d+)ms/.exec(faults.log[1]!.fault)![1]);
    assert.ok(extra >= 10 && extra <= 20);
  });

  it('a hang answers nothing until the request is aborted, or 504 after its time', async () => {
    const clock = manualClock();
    const faults = createFaults({ seed: 1, clock });
    faults.add({ verb: 'get', hang: true, count: 1 });
    faults.add({ verb: 'get', hang: 5_000, count: 1 });
    const t = faults.wrap(server().transport);
    const ctl = new AbortController();
    const hung = t({ ...get(), signal: ctl.signal });
    let settled = false;
    hung.then(() => (settled = true), () => (settled = true));
    await clock.advance(1_000_000);
    assert.equal(settled, false);
    ctl.abort();
    await assert.rejects(hung, { name: 'AbortError' });
    const slow = t(get());
    await clock.advance(5_000);
    const r = await slow;
    assert.equal(r.status, 504);
    assert.equal(json(r).reason, 'Timeout');
  });
});

describe('createFaults: watches', () => {
  it('cuts a watch after N events, cleanly or with a reset, and closes the server side', async () => {
    const faults = createFaults({ seed: 1 });
    faults.add({ verb: 'watch', drop: { afterEvents: 2 }, count: 1 });
    faults.add({ verb: 'watch', drop: { afterEvents: [1, 3], reset: true }, count: 1 });
    const ws = watchServer(10);
    const t = faults.wrap(ws.transport, 'informer');
    assert.equal((await lines(await t(watch('1')))).length, 2);
    assert.equal(ws.aborted(), true);
    const res = await t(watch('1'));
    const got: string[] = [];
    await assert.rejects(async () => {
      for await (const c of res.stream!) got.push(dec.decode(c));
    }, (e: Error & { code?: string }) => e.code === 'ECONNRESET');
    assert.ok(got.length >= 1 && got.length <= 3);
    assert.deepEqual(faults.log.map((f) => f.fault), ['watch ended after 2 events', `watch reset after ${got.length} events`]);
  });

  it('forwards a watch that asks for objects without that flag: faults read bytes', async () => {
    const faults = createFaults({ seed: 1 });
    faults.add({ verb: 'watch', drop: { afterEvents: 2 }, count: 1 });
    const seen: RawRequest[] = [];
    const ws = watchServer(5);
    const t = faults.wrap((req) => (seen.push(req), ws.transport(req)), 'informer');
    const res = await t({ ...watch('1'), objects: true });
    assert.equal(res.events, undefined);
    assert.equal((await lines(res)).length, 2);
    await t({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/x', objects: true });
    assert.deepEqual(seen.map((r) => 'objects' in r), [false, false]);
  });

  it('cuts a watch after a time on the clock', async () => {
    const clock = manualClock();
    const faults = createFaults({ seed: 1, clock });
    faults.add({ verb: 'watch', drop: { afterMs: 30_000 } });
    const ws = watchServer(3);
    const res = await faults.wrap(ws.transport)(watch('1'));
    const got: string[] = [];
    const reading = (async () => {
      for await (const c of res.stream!) got.push(dec.decode(c));
    })();
    await clock.advance(10);
    assert.equal(got.length, 3);
    assert.equal(ws.aborted(), false);
    await clock.advance(30_000);
    await reading;
    assert.equal(ws.aborted(), true);
    assert.equal(clock.pending(), 0);
  });

  it('a watch resumed from a resourceVersion gets 410 Expired; a fresh watch does not', async () => {
    const faults = createFaults({ seed: 1 });
    faults.add({ verb: 'watch', expire: true, count: 1 });
    faults.add({ verb: 'watch', expire: 'response', count: 1 });
    const client = createClient({ transport: faults.wrap(watchServer(1).transport) });
    const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true });
    const first = async (rv?: string) => {
      const ctl = new AbortController();
      for await (const ev of cms.watch({ resourceVersion: rv, signal: ctl.signal })) {
        ctl.abort();
        return ev;
      }
      return undefined;
    };
    assert.equal((await first())?.type, 'ADDED', 'no resourceVersion: not a resumed watch');
    assert.equal((await first('0'))?.type, 'ADDED', '"0" is any version: not resumed either');
    const ev = await first('12');
    assert.equal(ev?.type, 'ERROR');
    assert.deepEqual(ev?.object, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 12 (13)', reason: 'Expired', code: 410 });
    await assert.rejects(first('12'), (e: ApiError) => e.code === 410 && e.reason === 'Expired');
    assert.equal((await first('12'))?.type, 'ADDED');
  });
});

describe('createFaults: control-plane actions', () => {
  it('runs attached actions now, at a time on the clock, or before a matching request', async () => {
    const clock = manualClock();
    const faults = createFaults({ seed: 1 });
    const ran: string[] = [];
    const s = server();
    const t = faults.wrap(async (req) => {
      ran.push(`request ${req.method}`);
      return s.transport(req);
    });
    faults.attach({
      restartApiServer: async () => void ran.push('restartApiServer'),
      restartControllerManager: () => void ran.push('restartControllerManager'),
      loseLeadership: () => void ran.push('loseLeadership'),
      clock,
    });
    await faults.now('loseLeadership');
    const timed = faults.at(1_000, 'restartControllerManager');
    await clock.advance(999);
    assert.deepEqual(ran, ['loseLeadership']);
    await clock.advance(1);
    await timed.done;
    const onWrite = faults.at({ verb: 'update', after: 1 }, 'restartApiServer');
    await t(put());
    await t(put());
    await onWrite.done;
    await t(put());
    assert.deepEqual(ran, ['loseLeadership', 'restartControllerManager', 'request PUT', 'restartApiServer', 'request PUT', 'request PUT']);
    assert.deepEqual(faults.log.map((f) => f.fault), ['loseLeadership', 'restartControllerManager', 'restartApiServer']);
  });

  it('a request that triggers an action does not wait for it; idle() does, and failures are logged', async () => {
    const clock = manualClock();
    const faults = createFaults({ seed: 1, clock });
    let restarted = false;
    faults.attach({
      restartControllerManager: async () => {
        await new Promise<void>((resolve) => clock.setTimeout(resolve, 500));
        restarted = true;
      },
      loseLeadership: async () => {
        throw new Error('no lease');
      },
    });
    faults.add({ verb: 'update', action: 'restartControllerManager', count: 1 });
    const r = await faults.wrap(server().transport, 'ctl')(put());
    assert.equal(r.status, 200);
    assert.equal(restarted, false);
    const idle = faults.idle();
    await clock.advance(500);
    await idle;
    assert.equal(restarted, true);
    await assert.rejects(faults.now('loseLeadership'), /no lease/);
    await faults.idle();
    assert.deepEqual(faults.log.map((f) => f.fault), ['restartControllerManager', 'loseLeadership', 'loseLeadership failed: no lease']);
  });

  it('a rule whose action was never attached fails the request with a clear error', async () => {
    const faults = createFaults({ seed: 1 });
    faults.add({ verb: 'get', action: 'restartApiServer' });
    await assert.rejects(faults.wrap(server().transport)(get()), /no restartApiServer attached/);
  });

  it('a cancelled timed action does not run', async () => {
    const clock = manualClock();
    const faults = createFaults({ seed: 1, clock });
    let ran = false;
    faults.attach({ loseLeadership: () => void (ran = true) });
    faults.at(10, 'loseLeadership').cancel();
    await clock.advance(20);
    assert.equal(ran, false);
  });
});
