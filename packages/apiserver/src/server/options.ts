/**
 * Query parameters and DeleteOptions bodies, type-checked as kube-apiserver converts them:
 * int64 fields must be decimal integers within int64 (400 otherwise), bools are read leniently
 * (only "0" and "false", in any case, are false: "True", "1", "t" and even "" are true), and every DeleteOptions body field must have its declared type.
 */
import type { StatusCause } from '@kplane/api';
import { badRequest, CauseType, invalid } from '@kplane/api';
import type { DeleteOptions, FieldValidation, ListOptions, WriteOptions } from '../registry/store.js';
import { parseBoolParam, parseInt64Param } from './limits.js';

/** Bool query parameters: rewritten to "true" / "false" so later readers see one spelling. */
const BOOL_PARAMS = ['watch', 'allowWatchBookmarks', 'sendInitialEvents', 'orphanDependents', 'force', 'ignoreStoreReadErrorWithClusterBreakingPotential'];

/** Longest watch timeout a timer can hold (2^31 - 1 ms), in seconds. */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/**
 * The query of a list, watch or deletecollection with its typed parameters checked and written
 * in one canonical form: bools as "true"/"false", `limit` and `timeoutSeconds` as int64
 * (400 otherwise). A negative limit means no limit, as in kube-apiserver; a timeoutSeconds
 * beyond what a timer holds is cut to that.
 */
export function typedListQuery(q: Record<string, string>): Record<string, string> {
  const out = { ...q };
  for (const k of BOOL_PARAMS) if (out[k] !== undefined) out[k] = String(parseBoolParam(out[k]!));
  if (out.limit !== undefined) out.limit = String(Math.max(0, parseInt64Param(out.limit)));
  if (out.timeoutSeconds !== undefined) out.timeoutSeconds = String(Math.min(MAX_TIMER_SECONDS, parseInt64Param(out.timeoutSeconds)));
  return out;
}

/** ListOptions from a query already passed through typedListQuery. */
export function listOptions(q: Record<string, string>): ListOptions {
  const o: ListOptions = {};
  if (q.labelSelector) o.labelSelector = q.labelSelector;
  if (q.fieldSelector) o.fieldSelector = q.fieldSelector;
  if (q.limit !== undefined && Number(q.limit) > 0) o.limit = Number(q.limit);
  if (q.continue) o.continue = q.continue;
  if (q.resourceVersion !== undefined) o.resourceVersion = q.resourceVersion;
  if (q.resourceVersionMatch) o.resourceVersionMatch = q.resourceVersionMatch;
  return o;
}

/** The dryRun and fieldValidation parameters of create, update and patch. */
export function writeOptions(q: Record<string, string>): WriteOptions {
  const opts: WriteOptions = { warnings: [] };
  const dry = q.dryRun;
  if (dry !== undefined && dry !== '') {
    if (dry !== 'All') throw badRequest(`Invalid dry run value: dryRun: Unsupported value: "${dry}": supported values: "All"`);
    opts.dryRun = true;
  }
  const fv = q.fieldValidation;
  if (fv !== undefined && fv !== '') {
    if (!['Strict', 'Warn', 'Ignore'].includes(fv)) {
      throw badRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Strict", "Warn"`);
    }
    opts.fieldValidation = fv as FieldValidation;
  }
  return opts;
}

type FieldType = 'string' | 'int64' | 'bool' | 'string[]' | 'preconditions';

const DELETE_OPTIONS_FIELDS: Record<string, FieldType> = {
  kind: 'string',
  apiVersion: 'string',
  gracePeriodSeconds: 'int64',
  preconditions: 'preconditions',
  orphanDependents: 'bool',
  propagationPolicy: 'string',
  dryRun: 'string[]',
  ignoreStoreReadErrorWithClusterBreakingPotential: 'bool',
};

/** The JSON type name Go's decoder reports ("string", "number 1.5", "bool", "object", "array"). */
function jsonKind(v: unknown, withNumber: boolean): string {
  if (typeof v === 'number' || typeof v === 'bigint') return withNumber ? `number ${String(v)}` : 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : 'string';
}

function typeError(v: unknown, field: string, goType: string, withNumber = false): Error {
  return badRequest(`json: cannot unmarshal ${jsonKind(v, withNumber)} into Go struct field ${field} of type ${goType}`);
}

/** Checks one DeleteOptions body field against its Go type (null is always allowed, as in Go). */
function checkField(name: string, type: FieldType, v: unknown): void {
  if (v === null) return;
  const field = `DeleteOptions.${name}`;
  switch (type) {
    case 'string':
      if (typeof v !== 'string') throw typeError(v, field, 'string');
      return;
    case 'bool':
      if (typeof v !== 'boolean') throw typeError(v, field, 'bool');
      return;
    case 'int64': {
      if (typeof v === 'bigint') {
        if (v < -(2n ** 63n) || v >= 2n ** 63n) throw typeError(v, field, 'int64', true);
        return;
      }
      if (typeof v !== 'number') throw typeError(v, field, 'int64');
      if (!Number.isInteger(v) || Math.abs(v) >= 2 ** 63) throw typeError(v, field, 'int64', true);
      return;
    }
    case 'string[]':
      if (!Array.isArray(v)) throw typeError(v, field, '[]string');
      for (const e of v) if (typeof e !== 'string' && e !== null) throw typeError(e, field, 'string');
      return;
    case 'preconditions': {
      if (typeof v !== 'object' || Array.isArray(v)) throw typeError(v, field, 'v1.Preconditions');
      for (const k of ['uid', 'resourceVersion']) {
        const p = (v as Record<string, unknown>)[k];
        if (p !== undefined && p !== null && typeof p !== 'string') throw typeError(p, `DeleteOptions.preconditions.${k}`, 'string');
      }
      return;
    }
  }
}

/**
 * DeleteOptions from a delete request. As kube-apiserver does, a body (when there is one) is the
 * whole of the options, every field type-checked (400 with Go's decoder message); without a
 * body they come from the query (int64 and bools checked likewise). The result is validated:
 * propagationPolicy and dryRun values, and orphanDependents with propagationPolicy (422).
 */
export function deleteOptions(body: unknown, q: Record<string, string>): DeleteOptions {
  const o: DeleteOptions = {};
  let dryRun: unknown[] = [];
  let orphanSet = false;
  if (body !== undefined) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest(`json: cannot unmarshal ${jsonKind(body, false)} into Go value of type v1.DeleteOptions`);
    }
    const b = body as Record<string, unknown>;
    for (const [k, type] of Object.entries(DELETE_OPTIONS_FIELDS)) if (b[k] !== undefined) checkField(k, type, b[k]);
    if (b.kind !== undefined && b.kind !== null && b.kind !== '' && b.kind !== 'DeleteOptions') {
      throw badRequest(`the kind in the data (${String(b.kind)}) does not match the expected kind (DeleteOptions)`);
    }
    if (typeof b.gracePeriodSeconds === 'number' || typeof b.gracePeriodSeconds === 'bigint') o.gracePeriodSeconds = clampSafe(b.gracePeriodSeconds);
    if (typeof b.propagationPolicy === 'string') o.propagationPolicy = b.propagationPolicy as DeleteOptions['propagationPolicy'];
    if (typeof b.orphanDependents === 'boolean') {
      o.orphanDependents = b.orphanDependents;
      orphanSet = true;
    }
    if (b.preconditions && typeof b.preconditions === 'object') {
      const p = b.preconditions as { uid?: string | null; resourceVersion?: string | null };
      o.preconditions = {};
      if (typeof p.uid === 'string') o.preconditions.uid = p.uid;
      if (typeof p.resourceVersion === 'string') o.preconditions.resourceVersion = p.resourceVersion;
    }
    if (Array.isArray(b.dryRun)) dryRun = b.dryRun.filter((d) => d !== null);
  } else {
    if (q.gracePeriodSeconds !== undefined) o.gracePeriodSeconds = parseInt64Param(q.gracePeriodSeconds);
    if (q.propagationPolicy !== undefined && q.propagationPolicy !== '') o.propagationPolicy = q.propagationPolicy as DeleteOptions['propagationPolicy'];
    if (q.orphanDependents !== undefined) {
      o.orphanDependents = parseBoolParam(q.orphanDependents);
      orphanSet = true;
    }
    if (q.dryRun !== undefined && q.dryRun !== '') dryRun = [q.dryRun];
  }
  const causes: StatusCause[] = [];
  if (orphanSet && o.propagationPolicy !== undefined) {
    causes.push({ reason: CauseType.Invalid, field: 'propagationPolicy', message: `Invalid value: "${o.propagationPolicy}": orphanDependents and deletionPropagation cannot be both set` });
  }
  if (o.propagationPolicy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(o.propagationPolicy)) {
    causes.push({ reason: CauseType.NotSupported, field: 'propagationPolicy', message: `Unsupported value: "${o.propagationPolicy}": supported values: "Foreground", "Background", "Orphan"` });
  }
  for (const d of dryRun) {
    if (d !== 'All') causes.push({ reason: CauseType.NotSupported, field: 'dryRun', message: `Unsupported value: "${String(d)}": supported values: "All"` });
  }
  if (causes.length) throw invalid('meta.k8s.io', 'DeleteOptions', '', causes);
  if (dryRun.length) o.dryRun = true;
  // A negative grace period is read as 1 second, as kube-apiserver does on the delete path.
  if (o.gracePeriodSeconds !== undefined && o.gracePeriodSeconds < 0) o.gracePeriodSeconds = 1;
  return o;
}

function clampSafe(n: number | bigint): number {
  if (typeof n === 'bigint') return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : n < BigInt(-Number.MAX_SAFE_INTEGER) ? -Number.MAX_SAFE_INTEGER : Number(n);
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, n));
}
