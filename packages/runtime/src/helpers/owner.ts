/**
 * Owner references, with controller-runtime's controllerutil rules and messages: at most one
 * controller owner, and an owner must be cluster-scoped or in the object's own namespace.
 */
import type { KubeObject, OwnerReference } from '@kplane/api';

/** Options of setControllerReference / setOwnerReference. */
export interface OwnerReferenceOptions {
  /** Sets ownerReferences[].blockOwnerDeletion (controller references default to true). */
  blockOwnerDeletion?: boolean;
}

/** Thrown when an object already has a different controller owner. */
export class AlreadyOwnedError extends Error {
  constructor(
    readonly object: KubeObject,
    readonly owner: OwnerReference,
  ) {
    super(
      `Object ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''} is already owned by another ${owner.kind} controller ${owner.name}`,
    );
    this.name = 'AlreadyOwnedError';
  }
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** True when two references point at the same object: same API group, kind and name. */
function referSameObject(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function validateOwner(owner: KubeObject, object: KubeObject): void {
  const ownerNs = owner.metadata?.namespace ?? '';
  if (ownerNs === '') return;
  const objNs = object.metadata?.namespace ?? '';
  if (objNs === '') {
    throw new Error(`cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNs}`);
  }
  if (ownerNs !== objNs) {
    throw new Error(`cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objNs}`);
  }
}

function referenceTo(owner: KubeObject, caller: string): OwnerReference {
  if (!owner.apiVersion || !owner.kind) {
    throw new Error(`owner ${owner.metadata?.name ?? ''} has no apiVersion/kind, cannot call ${caller}`);
  }
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '' };
}

function upsert(object: KubeObject, ref: OwnerReference): void {
  const meta = (object.metadata ??= {});
  const refs = [...(meta.ownerReferences ?? [])];
  const i = refs.findIndex((r) => referSameObject(r, ref));
  if (i < 0) refs.push(ref);
  else refs[i] = ref;
  meta.ownerReferences = refs;
}

/** The owner reference with `controller: true`, if any. */
export function getControllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** True when the object has an owner reference with `controller: true`. */
export function hasControllerReference(object: KubeObject): boolean {
  return getControllerOf(object) !== undefined;
}

/**
 * Makes `owner` the controller of `object` (mutates `object.metadata.ownerReferences`):
 * adds `{ apiVersion, kind, name, uid, controller: true, blockOwnerDeletion }`, or replaces
 * an existing reference to the same owner.
 *
 * Errors: AlreadyOwnedError when another controller owns it; an Error when the owner is
 * namespaced and the object is cluster-scoped or in another namespace, or the owner has no
 * apiVersion/kind. Nothing is changed on error.
 */
export function setControllerReference(owner: KubeObject, object: KubeObject, options: OwnerReferenceOptions = {}): void {
  validateOwner(owner, object);
  const ref: OwnerReference = {
    ...referenceTo(owner, 'SetControllerReference'),
    controller: true,
    blockOwnerDeletion: options.blockOwnerDeletion ?? true,
  };
  const existing = getControllerOf(object);
  if (existing && !referSameObject(existing, ref)) throw new AlreadyOwnedError(object, existing);
  upsert(object, ref);
}

/**
 * Adds a non-controller owner reference to `owner` (mutates `object`), replacing an existing
 * reference to the same owner. Errors: as setControllerReference, minus AlreadyOwnedError.
 */
export function setOwnerReference(owner: KubeObject, object: KubeObject, options: OwnerReferenceOptions = {}): void {
  validateOwner(owner, object);
  const ref = referenceTo(owner, 'SetOwnerReference');
  if (options.blockOwnerDeletion !== undefined) ref.blockOwnerDeletion = options.blockOwnerDeletion;
  upsert(object, ref);
}

/** True when `object` has an owner reference to `owner` (same group, kind and name). */
export function hasOwnerReference(object: KubeObject, owner: KubeObject): boolean {
  const ref: OwnerReference = { apiVersion: owner.apiVersion ?? '', kind: owner.kind ?? '', name: owner.metadata?.name ?? '', uid: '' };
  return (object.metadata?.ownerReferences ?? []).some((r) => referSameObject(r, ref));
}
