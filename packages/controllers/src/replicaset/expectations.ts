/**
 * Controller expectations (kube-controller-manager's UIDTrackingControllerExpectations): what a
 * controller asked the API server to create or delete and has not yet seen in its cache. While a
 * key has unmet expectations its controller must not count pods again, or a burst of stale
 * watch events would make it create or delete twice.
 */
import { realClock, type Clock } from '@kplane/runtime';

/** Options of createExpectations. */
export interface ExpectationsOptions {
  clock?: Clock;
  /** Expectations older than this are considered met (Kubernetes: 5 minutes). */
  ttlMs?: number;
}

/** What is still expected for one controller key (for inspection and tests). */
export interface PendingExpectations {
  adds: number;
  dels: number;
  /** Pod keys whose deletion is awaited. */
  deleting: string[];
  /** When the expectations were set (clock ms). */
  since: number;
}

/** Expectations of many controller keys. */
export interface Expectations {
  /** Expects `count` pod creations for `key` (replaces any earlier record). */
  expectCreations(key: string, count: number): void;
  /** Expects the deletion of these pods (by "namespace/name") for `key` (replaces any earlier record). */
  expectDeletions(key: string, podKeys: string[]): void;
  /** Expects `count` creations and the deletion of these pods at once (SetExpectations; replaces any earlier record). */
  expectCreationsAndDeletions(key: string, count: number, podKeys: string[]): void;
  /** A pod created for `key` was seen (or its creation was abandoned). */
  creationObserved(key: string): void;
  /** A pod deleted for `key` was seen gone or terminating; unknown pods are ignored. */
  deletionObserved(key: string, podKey: string): void;
  /** True when `key` may count and act again: nothing is expected, all was seen, or the record expired. */
  satisfied(key: string): boolean;
  /** Forgets `key` (its controller object was deleted). */
  delete(key: string): void;
  /** The record of `key`, if any. */
  pending(key: string): PendingExpectations | undefined;
}

/** Kubernetes' ExpectationsTimeout. */
export const EXPECTATIONS_TTL_MS = 5 * 60_000;

interface Entry {
  adds: number;
  dels: number;
  deleting: Set<string>;
  since: number;
}

/**
 * Creates an expectations registry.
 *
 * Guarantees: `satisfied` is false from an `expect*` call until every expected creation and
 * deletion was observed or `ttlMs` passed; a deletion is counted once per pod key, however many
 * events report it; counters never make a record satisfied early (extra observations only
 * drive them below zero, which counts as met).
 */
export function createExpectations(options: ExpectationsOptions = {}): Expectations {
  const clock = options.clock ?? realClock;
  const ttl = options.ttlMs ?? EXPECTATIONS_TTL_MS;
  const entries = new Map<string, Entry>();
  return {
    expectCreations(key, count) {
      entries.set(key, { adds: count, dels: 0, deleting: new Set(), since: clock.now() });
    },
    expectDeletions(key, podKeys) {
      const deleting = new Set(podKeys);
      entries.set(key, { adds: 0, dels: deleting.size, deleting, since: clock.now() });
    },
    expectCreationsAndDeletions(key, count, podKeys) {
      const deleting = new Set(podKeys);
      entries.set(key, { adds: count, dels: deleting.size, deleting, since: clock.now() });
    },
    creationObserved(key) {
      const e = entries.get(key);
      if (e) e.adds--;
    },
    deletionObserved(key, podKey) {
      const e = entries.get(key);
      if (e && e.deleting.delete(podKey)) e.dels--;
    },
    satisfied(key) {
      const e = entries.get(key);
      if (!e) return true;
      if (e.adds <= 0 && e.dels <= 0) return true;
      return clock.now() - e.since > ttl;
    },
    delete(key) {
      entries.delete(key);
    },
    pending(key) {
      const e = entries.get(key);
      return e && { adds: e.adds, dels: e.dels, deleting: [...e.deleting], since: e.since };
    },
  };
}
