/**
 * What a reconcile asks for next, and how it reports a failure that must not be retried
 * (kube-rs's `Action`, controller-runtime's `Result` and `TerminalError`).
 */

/** The key of the object to reconcile. The reconciler reads the object from the cache. */
export interface Request {
  /** Empty for cluster-scoped objects. */
  namespace: string;
  name: string;
  /** "namespace/name", or "name" for cluster-scoped objects: the workqueue key. */
  key: string;
}

/** What the controller does after a successful reconcile. */
export type Action = { readonly type: 'requeue'; readonly afterMs: number } | { readonly type: 'await-change' };

/** Actions. */
export const Action = {
  /** Reconcile this key again after `ms` milliseconds, even if nothing changes. */
  requeue(ms: number): Action {
    return { type: 'requeue', afterMs: Math.max(0, ms) };
  },
  /** Do nothing until a watched object changes (the usual answer). */
  awaitChange(): Action {
    return { type: 'await-change' };
  },
};

/**
 * A failure that retrying cannot fix (e.g. an invalid spec): the controller records it and
 * forgets the key instead of requeueing it with backoff.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** Parses a workqueue key into a Request. */
export function requestFromKey(key: string): Request {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key, key } : { namespace: key.slice(0, i), name: key.slice(i + 1), key };
}

/** The workqueue key of a namespace and name. */
export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
