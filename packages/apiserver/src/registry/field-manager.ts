/**
 * The store's field manager: what it needs to know of a write to keep `metadata.managedFields`
 * (the manager, the apiVersion, the subresource, the fields a subresource may own) and the
 * Update entries of the writes that are not applies (create, update, patch).
 */
import type { KubeObject, ObjectMeta, SchemaDefinitions, SchemaObject } from '@kplane/api';
import { FieldSet, managedForUpdate, recordUpdate, type FieldManagerContext } from '@kplane/api';

const STATUS = FieldSet.of(['f:status']);
const STATUS_AND_METADATA = ['f:status', 'f:metadata'];
/** What a write to /status may own (the same function each time: the field manager remembers created objects' fields by it). */
const statusOnly = (set: FieldSet): FieldSet => set.under(STATUS_AND_METADATA);
/** What a write to a kind with a status subresource may own through the main resource. */
const allButStatus = (set: FieldSet): FieldSet => set.recursiveDifference(STATUS);

/** What a store tells its field manager about itself. */
export interface FieldManagerScope {
  definitions: SchemaDefinitions;
  /** The kind's resolved schema. */
  schema: SchemaObject | undefined;
  /** The apiVersion the store serves. */
  apiVersion: string;
  /** Does the kind have a status subresource (then the main resource owns no status)? */
  hasStatus: boolean;
  /** The time of the write, RFC 3339 with seconds. */
  time: string;
  /** The resource and object named in a log line, e.g. `configmaps "a"`. */
  describe?: string;
}

/** The managedFields a request body carries, as an object managedForUpdate reads. */
export function sentManagedFields(obj: KubeObject): KubeObject {
  const sent = obj !== null && typeof obj === 'object' && !Array.isArray(obj) ? obj.metadata?.managedFields : undefined;
  return { metadata: { managedFields: sent } } as KubeObject;
}

/**
 * What the field manager needs to know of a write by `manager` to `subresource` ("" for the
 * resource itself): on `/status` only status (and metadata) is owned; on the main resource of
 * a kind with a status subresource, everything but status.
 */
export function fieldManagerContext(scope: FieldManagerScope, manager: string, subresource: string): FieldManagerContext {
  return {
    defs: scope.definitions,
    schema: scope.schema,
    manager,
    apiVersion: scope.apiVersion,
    subresource,
    time: scope.time,
    ignored: subresource === 'status' ? statusOnly : scope.hasStatus ? allButStatus : undefined,
  };
}

/**
 * The managedFields of a write that is not an apply: the manager's Update entry takes the
 * fields the write changed. A failure of the field manager never fails the write: as
 * kube-apiserver does, it is logged and the object's managedFields are dropped.
 */
export function updateManagedFields(current: KubeObject | undefined, obj: KubeObject, sent: KubeObject, ctx: FieldManagerContext, describe: string): ObjectMeta['managedFields'] {
  try {
    return recordUpdate(current, obj, managedForUpdate(current, sent, ctx.subresource), ctx);
  } catch (err) {
    console.error(`kplane: managedFields of ${describe} dropped:`, err);
    return [];
  }
}
