/**
 * Fault injection finds a real bug. A "mirror" controller keeps ConfigMap dst-X's data equal
 * to src-X's. The naive version reads both from the cache, writes with the cached
 * resourceVersion and swallows every error (no retry on a 409): a conflict or a server error
 * on its last write leaves dst-X stale forever. The correct version reads dst-X fresh, retries
 * conflicts and returns any other error, so the runtime requeues it with backoff. Both run in
 * a test control plane (its API server only) on virtual time, the faults seeded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '@kplane/api';
import { createClient, type Client } from '@kplane/client';
import { Action, ConfigMaps, createManager, Namespaces, type ConfigMap, type Reconciler } from '@kplane/runtime';
import { startControlPlane, type TestControlPlane } from '../control-plane.js';
import { createRecorder, type Recorder } from '../recorder.js';
import { createFaults, type Faults } from './index.js';

const WHO = 'mirror';
const PAIRS = ['a', 'b', 'c'];

/** What a mirror reconcile needs: the cache and a client on the faulty transport. */
interface MirrorContext {
  cached(namespace: string, name: string): ConfigMap | undefined;
  client: Client;
}

const pairOf = (name: string): string | undefined => /^(?:src|dst)-(.+)$/.exec(name)?.[1];
const sameData = (a: ConfigMap | undefined, b: ConfigMap | undefined): boolean => JSON.stringify(a?.data ?? {}) === JSON.stringify(b?.data ?? {});

/** The bug: the cache's dst (stale resourceVersion), every error swallowed, nothing retried. */
function naiveMirror(ctx: MirrorContext): Reconciler {
  const cms = ctx.client.resource<ConfigMap>(ConfigMaps);
  return async ({ namespace, name }) => {
    const pair = pairOf(name);
    const src = pair && ctx.cached(namespace, `src-${pair}`);
    if (!src) return Action.awaitChange();
    const dst = ctx.cached(namespace, `dst-${pair}`);
    try {
      if (!dst) await cms.create({ metadata: { name: `dst-${pair}`, namespace }, data: { ...src.data } });
      else if (!sameData(src, dst)) await cms.update({ ...dst, data: { ...src.data } });
    } catch {
      // "It will be fine next time": there may be no next time.
    }
    return Action.awaitChange();
  };
}

/** The fix: dst read fresh, conflicts retried, other errors returned (the runtime requeues with backoff). */
function correctMirror(ctx: MirrorContext): Reconciler {
  const cms = ctx.client.resource<ConfigMap>(ConfigMaps);
  return async ({ namespace, name }) => {
    const pair = pairOf(name);
    const src = pair && ctx.cached(namespace, `src-${pair}`);
    if (!src) return Action.awaitChange();
    for (let attempt = 0; attempt < 5; attempt++) {
      const dst = await cms.get(`dst-${pair}`, { namespace }).catch((err: unknown) => {
        if (err instanceof ApiError && err.code === 404) return undefined;
        throw err;
      });
      try {
        if (!dst) await cms.create({ metadata: { name: `dst-${pair}`, namespace }, data: { ...src.data } });
        else if (!sameData(src, dst)) await cms.update({ ...dst, data: { ...src.data } });
        return Action.awaitChange();
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 409)) throw err;
      }
    }
    throw new Error(`dst-${pair}: still conflicting after 5 attempts`);
  };
}

/** Conflicts, server errors, lost answers, latency, cut and expired watches, all on the mirror's requests. */
function storm(faults: Faults): void {
  // Latency on the cache's lists and watches only: settle() takes a reconcile waiting on a
  // timer past the bound of an advance() for work that never ends.
  faults.add({ who: WHO, verb: ['list', 'watch'], latencyMs: [0, 30] });
  faults.add({ who: WHO, verb: 'update', rate: 0.3, error: 409 });
  faults.add({ who: WHO, verb: ['create', 'update'], rate: 0.1, error: 500 });
  faults.add({ who: WHO, verb: 'update', rate: 0.05, error: 504, passThrough: true });
  faults.add({ who: WHO, verb: 'get', rate: 0.1, error: 429 });
  faults.add({ who: WHO, verb: 'watch', rate: 0.2, expire: true });
  faults.add({ who: WHO, verb: 'watch', rate: 0.4, drop: { afterEvents: [0, 6] } });
}

interface Outcome {
  converged: boolean;
  faults: Faults;
  recorder: Recorder;
  /** Writes the mirror made once converged, while virtual time ran on. */
  writesAfterSettling: number;
}

let cp: TestControlPlane;
before(async () => {
  cp = await startControlPlane({ controllers: false, nodes: 0 });
});
after(async () => {
  await cp.stop();
});

/** One run: three pairs, two rounds of source changes, then time runs until the mirror converges (or the bound). */
async function scenario(kind: 'naive' | 'correct', seed: number, withFaults = true): Promise<Outcome> {
  const namespace = `${kind}-${seed}-${withFaults ? 'f' : 'n'}`;
  await cp.client.resource(Namespaces).create({ metadata: { name: namespace } });
  const cms = cp.client.resource<ConfigMap>(ConfigMaps);
  for (const p of PAIRS) await cms.create({ metadata: { name: `src-${p}`, namespace }, data: { v: '0' } });

  const faults = createFaults({ seed, clock: cp.clock });
  if (withFaults) storm(faults);
  const recorder = createRecorder();
  const client = createClient({ transport: recorder.wrap(faults.wrap(cp.transport, WHO), WHO) });
  const mgr = createManager({ client, clock: cp.clock, namespace, onCacheError: () => undefined });
  const informer = mgr.factory.informerFor<ConfigMap>(ConfigMaps);
  const ctx: MirrorContext = { cached: (ns, name) => informer.store.get(`${ns}/${name}`), client };
  mgr.controller().named(`${kind}-mirror`).for(ConfigMaps).complete(kind === 'naive' ? naiveMirror(ctx) : correctMirror(ctx));

  const converged = async (): Promise<boolean> => {
    const items = (await cms.list({ namespace })).items;
    const byName = new Map(items.map((c) => [c.metadata!.name!, c]));
    return PAIRS.every((p) => byName.has(`dst-${p}`) && sameData(byName.get(`src-${p}`), byName.get(`dst-${p}`)));
  };

  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  try {
    for (let round = 1; round <= 2; round++) {
      await cp.advance(100);
      for (const p of PAIRS) await cms.patch(`src-${p}`, { data: { v: String(round) } }, 'merge', { namespace });
    }
    await cp.settle({ advance: true, until: converged, maxVirtualMs: kind === 'naive' ? 30_000 : 600_000 });
    const ok = await converged();
    let writesAfterSettling = 0;
    if (ok) {
      const mark = recorder.mark();
      await cp.advance(10_000);
      writesAfterSettling = recorder.writes({ who: WHO, since: mark }).length;
    }
    return { converged: ok, faults, recorder, writesAfterSettling };
  } finally {
    stop.abort();
    await cp.advance(1_000); // what waits on a timer as it stops
    await running;
  }
}

describe('fault injection finds a naive controller bug', { concurrency: false }, () => {
  it('without faults, the naive mirror looks correct', async () => {
    const r = await scenario('naive', 1, false);
    assert.equal(r.converged, true);
  });

  it('under faults with seed 1, the naive mirror leaves a copy stale', async () => {
    const r = await scenario('naive', 1);
    assert.equal(r.converged, false, `the naive mirror converged:\n${r.faults.describe()}`);
    // What it lost: a write that failed and was never tried again.
    assert.ok(r.recorder.writes({ who: WHO, ok: false }).length > 0, r.recorder.describe({ who: WHO }));
  });

  it('the correct mirror converges under 100 seeds, and writes nothing once settled', async (t) => {
    t.mock.method(console, 'error', () => undefined); // the reconcile errors it returns are logged
    for (let seed = 1; seed <= 100; seed++) {
      const r = await scenario('correct', seed);
      assert.equal(r.converged, true, `seed ${seed} did not converge:\n${r.faults.describe()}`);
      assert.equal(r.writesAfterSettling, 0, `seed ${seed}: writes after settling\n${r.recorder.describe({ who: WHO })}`);
      assert.ok(r.faults.log.length > 0, `seed ${seed}: no fault was injected`);
    }
  });
});
