import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONTROLLER_OWNER_INDEX, type Pod, type ReplicaSet } from '@kplane/runtime';
import { createStore, deepFreeze, type StoreDelta } from '@kplane/runtime/internal';
import { factsOf, fullyLabeled, rsFactsOf, selects } from './pod-facts.js';
import { createPodTally, type PodTally } from './pod-tally.js';
import { podKey } from './pods.js';

const NS = 'ns';

function replicaSet(uid: string, selector: Record<string, string>, template: Record<string, string>): ReplicaSet {
  return deepFreeze({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: `rs-${uid}`, namespace: NS, uid },
    spec: { replicas: 1, selector: { matchLabels: selector }, template: { metadata: { labels: template }, spec: { containers: [] } } },
  });
}

/** A tiny deterministic random source (xorshift), so a failure can be replayed. */
function rng(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) % 1_000_000) / 1_000_000;
  };
}

/** The counts computed from scratch over the cache, as a sync without a tally would. */
function fromScratch(pods: Pod[], rs: ReplicaSet) {
  const facts = rsFactsOf(rs);
  let matched = 0;
  let labeled = 0;
  let ready = 0;
  const unmatched = new Set<string>();
  for (const p of pods) {
    if ((p.metadata?.namespace ?? '') !== NS || !factsOf(p).active) continue;
    if (!selects(facts, p)) {
      unmatched.add(podKey(p));
      continue;
    }
    matched++;
    if (fullyLabeled(p, facts)) labeled++;
    if (factsOf(p).ready) ready++;
  }
  return { matched, fullyLabeled: labeled, ready, unmatched: [...unmatched].sort() };
}

const view = (t: PodTally, rs: ReplicaSet) => {
  const c = t.countsFor(rs);
  return { matched: c.matched, fullyLabeled: c.fullyLabeled, ready: c.ready, unmatched: [...c.unmatched].sort() };
};

describe('pod tally', () => {
  it('counts kept up by events equal counts computed from scratch, through random changes', () => {
    const random = rng(42);
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
    const store = createStore<Pod>();
    const tally = createPodTally(store);
    const feed = (deltas: StoreDelta<Pod>[]): void => {
      for (const d of deltas) {
        if (d.type === 'add') tally.observe(undefined, d.object);
        else if (d.type === 'update') tally.observe(d.old, d.object);
        else tally.observe(d.object, undefined);
      }
    };
    let rsA = replicaSet('a', { app: 'x' }, { app: 'x', tier: 'web' });
    const rsB = replicaSet('b', { app: 'y' }, { app: 'y' });
    let rv = 0;
    const names = Array.from({ length: 40 }, (_, i) => `p${i}`);
    for (let step = 0; step < 4000; step++) {
      const name = pick(names);
      const r = random();
      if (r < 0.15) {
        const cur = store.get(`${NS}/${name}`);
        if (cur) feed(store.apply({ type: 'delete', object: cur }));
      } else if (r < 0.17) {
        // The ReplicaSet's template labels change: the tally recounts.
        rsA = replicaSet('a', { app: 'x' }, pick<Record<string, string>>([{ app: 'x', tier: 'web' }, { app: 'x' }, { app: 'x', tier: 'db' }]));
      } else {
        const owner = pick(['a', 'b', 'c', undefined]);
        const pod: Pod = deepFreeze({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: {
            name,
            namespace: pick([NS, NS, NS, 'other']),
            uid: `uid-${name}`,
            resourceVersion: String(++rv),
            labels: pick<Record<string, string>>([{ app: 'x' }, { app: 'x', tier: 'web' }, { app: 'y' }, {}]),
            ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${owner}`, uid: owner, controller: true }] } : {}),
            ...(random() < 0.1 ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}),
          },
          spec: { containers: [] },
          status: {
            phase: pick(['Pending', 'Running', 'Running', 'Succeeded', 'Failed']),
            conditions: [{ type: 'Ready', status: pick(['True', 'False']) }],
          },
        });
        feed(store.apply({ type: 'apply', object: pod }));
      }
      if (step % 7 === 0) {
        assert.deepEqual(view(tally, rsA), fromScratch(store.byIndex(CONTROLLER_OWNER_INDEX, 'a'), rsA), `ReplicaSet a at step ${step}`);
        assert.deepEqual(view(tally, rsB), fromScratch(store.byIndex(CONTROLLER_OWNER_INDEX, 'b'), rsB), `ReplicaSet b at step ${step}`);
      }
    }
  });

  it('counts each pod once when its event arrives after the first count already saw it', () => {
    const store = createStore<Pod>();
    const tally = createPodTally(store);
    const rs = replicaSet('a', { app: 'x' }, { app: 'x' });
    const pod = (rv: string, ready: 'True' | 'False'): Pod =>
      deepFreeze({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: NS, uid: 'u', resourceVersion: rv, labels: { app: 'x' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs-a', uid: 'a', controller: true }] },
        spec: { containers: [] },
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready }] },
      });
    const v1 = pod('1', 'False');
    const v2 = pod('2', 'True');
    const [added] = store.apply({ type: 'apply', object: v1 });
    const [updated] = store.apply({ type: 'apply', object: v2 });
    assert.deepEqual(view(tally, rs), { matched: 1, fullyLabeled: 1, ready: 1, unmatched: [] });
    // Late deliveries of the two events: the first takes back the counted version, the second restores it.
    if (added?.type === 'add') tally.observe(undefined, added.object);
    assert.equal(tally.countsFor(rs).matched, 1);
    if (updated?.type === 'update') tally.observe(updated.old, updated.object);
    assert.deepEqual(view(tally, rs), { matched: 1, fullyLabeled: 1, ready: 1, unmatched: [] });
    tally.observe(v2, undefined);
    assert.deepEqual(view(tally, rs), { matched: 0, fullyLabeled: 0, ready: 0, unmatched: [] });
  });
});
