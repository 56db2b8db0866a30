/**
 * Finalizers: the list helpers of controller-runtime's controllerutil, and a reconcile
 * wrapper in the style of kube-rs's `finalizer()` that guarantees cleanup runs before the
 * object goes away.
 */
import type { KubeObject } from '@kplane/api';
import { isNotFound, type ResourceClient } from '@kplane/client';

/** True when `obj.metadata.finalizers` contains `finalizer`. */
export function containsFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/** Appends `finalizer` unless present (mutates `obj`); returns whether the list changed. */
export function addFinalizer(obj: KubeObject, finalizer: string): boolean {
  if (containsFinalizer(obj, finalizer)) return false;
  const meta = (obj.metadata ??= {});
  meta.finalizers = [...(meta.finalizers ?? []), finalizer];
  return true;
}

/** Removes every occurrence of `finalizer` (mutates `obj`); returns whether the list changed. */
export function removeFinalizer(obj: KubeObject, finalizer: string): boolean {
  const list = obj.metadata?.finalizers;
  if (!list) return false;
  const kept = list.filter((f) => f !== finalizer);
  if (kept.length === list.length) return false;
  obj.metadata!.finalizers = kept;
  return true;
}

/** What `finalizer()` did. */
export type FinalizerOutcome<R> =
  /** The finalizer was added; the write triggers a new reconcile, which will run `apply`. */
  | { event: 'added' }
  /** Not being deleted: `apply` ran. */
  | { event: 'applied'; result: R }
  /** Being deleted: `cleanup` ran and the finalizer was removed. */
  | { event: 'cleaned-up'; result: R }
  /** Being deleted and our finalizer is gone: nothing to do. */
  | { event: 'none' };

/** The stage that failed, as kube-rs's finalizer::Error. */
export type FinalizerErrorKind = 'ApplyFailed' | 'CleanupFailed' | 'AddFinalizer' | 'RemoveFinalizer' | 'UnnamedObject' | 'InvalidFinalizer';

const messages: Record<FinalizerErrorKind, string> = {
  ApplyFailed: 'failed to apply object',
  CleanupFailed: 'failed to clean up object',
  AddFinalizer: 'failed to add finalizer',
  RemoveFinalizer: 'failed to remove finalizer',
  UnnamedObject: 'object has no name',
  InvalidFinalizer: 'invalid finalizer',
};

/** An error from `finalizer()`: which stage failed, and the underlying error as `cause`. */
export class FinalizerError extends Error {
  constructor(
    readonly kind: FinalizerErrorKind,
    cause?: unknown,
  ) {
    super(cause === undefined ? messages[kind] : `${messages[kind]}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'FinalizerError';
  }
}

/** The two halves of a reconciler guarded by a finalizer. */
export interface FinalizerHandlers<T extends KubeObject, R> {
  /** Brings the world in line with an object that is not being deleted. */
  apply(obj: T): R | Promise<R>;
  /** Tears down what `apply` made; the finalizer is removed only after it succeeds. */
  cleanup(obj: T): R | Promise<R>;
}

/**
 * Runs one reconcile of `obj` behind the finalizer `name`:
 * - not deleting, finalizer missing → adds it with a JSON patch and returns 'added' (apply
 *   runs on the reconcile that write triggers);
 * - not deleting → runs `apply`;
 * - deleting with the finalizer → runs `cleanup`, then removes the finalizer;
 * - deleting without it → does nothing.
 *
 * Guarantees: cleanup has succeeded whenever our finalizer is removed. Both JSON patches
 * guard what they change — adding `test`s the whole finalizers list (or, when there is
 * none, carries the resourceVersion read as a precondition); removing `test`s the entry at
 * the removed index — so a concurrent writer makes the patch fail (422 or 409) instead of
 * being overwritten; the next reconcile starts over on fresh data.
 *
 * A 404 is no error: when removing the finalizer, the object is already gone (cleanup ran, so
 * 'cleaned-up'); when adding it, the object went before it was guarded ('none').
 *
 * Errors: FinalizerError with `kind` naming the stage and the original error as `cause`.
 */
export async function finalizer<T extends KubeObject, R>(
  client: ResourceClient<T>,
  obj: T,
  name: string,
  handlers: FinalizerHandlers<T, R>,
): Promise<FinalizerOutcome<R>> {
  if (name === '') throw new FinalizerError('InvalidFinalizer');
  const objName = obj.metadata?.name;
  const namespace = obj.metadata?.namespace;
  const finalizers = obj.metadata?.finalizers ?? [];
  const index = finalizers.indexOf(name);
  const deleting = !!obj.metadata?.deletionTimestamp;

  if (!deleting && index >= 0) {
    try {
      return { event: 'applied', result: await handlers.apply(obj) };
    } catch (err) {
      throw new FinalizerError('ApplyFailed', err);
    }
  }

  if (deleting && index >= 0) {
    if (!objName) throw new FinalizerError('UnnamedObject');
    let result: R;
    try {
      result = await handlers.cleanup(obj);
    } catch (err) {
      throw new FinalizerError('CleanupFailed', err);
    }
    const path = `/metadata/finalizers/${index}`;
    try {
      await client.patch(objName, [{ op: 'test', path, value: name }, { op: 'remove', path }], 'json', { namespace });
    } catch (err) {
      // Already gone (every other finalizer removed meanwhile): our removal is done.
      if (!isNotFound(err)) throw new FinalizerError('RemoveFinalizer', err);
    }
    return { event: 'cleaned-up', result };
  }

  if (!deleting) {
    if (!objName) throw new FinalizerError('UnnamedObject');
    const patch =
      finalizers.length === 0
        ? [
            // Nothing to `test` against: carry the resourceVersion read instead, which the
            // server checks as a precondition (409 Conflict when the object moved on).
            ...(obj.metadata?.resourceVersion ? [{ op: 'add', path: '/metadata/resourceVersion', value: obj.metadata.resourceVersion }] : []),
            { op: 'add', path: '/metadata/finalizers', value: [name] },
          ]
        : [
            { op: 'test', path: '/metadata/finalizers', value: finalizers },
            { op: 'add', path: '/metadata/finalizers/-', value: name },
          ];
    try {
      await client.patch(objName, patch, 'json', { namespace });
    } catch (err) {
      // Deleted before our finalizer was added: there is nothing to guard or clean up.
      if (isNotFound(err)) return { event: 'none' };
      throw new FinalizerError('AddFinalizer', err);
    }
    return { event: 'added' };
  }

  return { event: 'none' };
}
