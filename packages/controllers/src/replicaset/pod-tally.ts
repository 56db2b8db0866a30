/**
 * Running counts of the pods each ReplicaSet controls, kept up to date from the pod informer's
 * events, so that a sync reads its counts in O(1) instead of walking every pod it owns. A burst
 * of N pod events thus costs O(N) in total, not O(N) per sync.
 */
import { CONTROLLER_OWNER_INDEX, type Cache, type Pod, type ReplicaSet } from '@kplane/runtime';
import { controllerOf } from './controller-ref.js';
import { factsOf, fullyLabeled, rsFactsOf, selects, type RsFacts } from './pod-facts.js';
import { podKey } from './pods.js';

/** The counts of one ReplicaSet over the active pods it controls (in its namespace). */
export interface PodCounts {
  /** Active pods whose labels the selector matches (the replicas, before adoption). */
  readonly matched: number;
  /** Of those, pods carrying every label of the template. */
  readonly fullyLabeled: number;
  /** Of those, pods whose Ready condition is True. */
  readonly ready: number;
  /** Keys ("namespace/name") of active pods it controls that its selector no longer matches. */
  readonly unmatched: ReadonlySet<string>;
}

/** Per-ReplicaSet pod counts fed by pod events. */
export interface PodTally {
  /** Feeds one change of the pod cache: an add (`old` undefined), an update, or a delete (`pod` undefined). */
  observe(old: Pod | undefined, pod: Pod | undefined): void;
  /**
   * The counts of `rs` (by uid), computed from the cache the first time and whenever its selector,
   * template labels or namespace differ from the last call, then kept up to date by `observe`.
   */
  countsFor(rs: ReplicaSet): PodCounts;
  /** Forgets a ReplicaSet (deleted). */
  forget(uid: string): void;
}

interface Entry {
  namespace: string;
  /** Selector, template labels and namespace the counts were computed for. */
  key: string;
  facts: RsFacts;
  /** The version of each pod counted, by pod key: what a later event takes back. */
  counted: Map<string, Pod>;
  matched: number;
  fullyLabeled: number;
  ready: number;
  unmatched: Set<string>;
}

/**
 * Creates a tally over `pods`, the pod informer's cache (read for the first count of a ReplicaSet
 * through the controller-owner index).
 *
 * Guarantees: once every change of the cache has been passed to `observe`, `countsFor(rs)`
 * equals the counts computed from scratch over `pods.byIndex(CONTROLLER_OWNER_INDEX, uid)`.
 * Each pod is counted at most once per ReplicaSet, whatever the order events arrive in
 * relative to the first count (an event takes back the version counted before, not its `old`).
 */
export function createPodTally(pods: Cache<Pod>): PodTally {
  const entries = new Map<string, Entry>();

  const count = (e: Entry, pod: Pod, key: string, sign: 1 | -1): void => {
    if (!factsOf(pod).active) return;
    if (selects(e.facts, pod)) {
      e.matched += sign;
      if (fullyLabeled(pod, e.facts)) e.fullyLabeled += sign;
      if (factsOf(pod).ready) e.ready += sign;
    } else if (sign > 0) e.unmatched.add(key);
    else e.unmatched.delete(key);
  };
  const takeBack = (e: Entry, key: string): void => {
    const prev = e.counted.get(key);
    if (!prev) return;
    count(e, prev, key, -1);
    e.counted.delete(key);
  };
  const put = (e: Entry, pod: Pod): void => {
    if ((pod.metadata?.namespace ?? '') !== e.namespace) return;
    const key = podKey(pod);
    takeBack(e, key);
    e.counted.set(key, pod);
    count(e, pod, key, 1);
  };
  const entryOf = (pod: Pod | undefined): Entry | undefined => {
    const uid = pod && controllerOf(pod)?.uid;
    return uid === undefined ? undefined : entries.get(uid);
  };

  return {
    observe(old, pod) {
      if (old === pod) return;
      if (old) {
        const before = entryOf(old);
        if (before) takeBack(before, podKey(old));
      }
      if (pod) {
        const after = entryOf(pod);
        if (after) put(after, pod);
      }
    },
    countsFor(rs) {
      const uid = rs.metadata?.uid ?? '';
      const namespace = rs.metadata?.namespace ?? '';
      const facts = rsFactsOf(rs);
      const key = `${namespace}\n${facts.selectorKey}\n${facts.templateKey}`;
      let e = entries.get(uid);
      if (e?.key !== key) {
        e = { namespace, key, facts, counted: new Map(), matched: 0, fullyLabeled: 0, ready: 0, unmatched: new Set() };
        for (const pod of pods.byIndex(CONTROLLER_OWNER_INDEX, uid)) put(e, pod);
        entries.set(uid, e);
      }
      return e;
    },
    forget(uid) {
      entries.delete(uid);
    },
  };
}
