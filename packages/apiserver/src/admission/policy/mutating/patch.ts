/**
 * Applying what a mutation expression returns: a list of JSON patch operations (applied with
 * `@kplane/api`'s JSON Patch), or an apply configuration merged into the object by the
 * structured merge of server-side apply (lists with map keys merge by key, sets unite, atomic
 * values are replaced), after checking that it does not set atomic lists, maps or structs.
 */
import { applyJsonPatch, merge, pruneUnknownFields, resolveSchema, shapeOf, type KubeObject, type SchemaDefinitions, type SchemaObject } from '@kplane/api';
import { TYPE_KEY } from './cel.js';

/** The schema of the object's kind, as the merge reads it. */
export interface ObjectSchema {
  schema: SchemaObject | undefined;
  definitions: SchemaDefinitions;
}

/** A mutation that could not be applied: the message of its error. */
export class MutationError extends Error {}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) && !(v instanceof Uint8Array);

/** A CEL value as JSON: ints become numbers, timestamps RFC 3339 strings, bytes base64; constructed objects lose their type names. */
export function celToJson(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString().replace(/\.000Z$/, 'Z');
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), celToJson(x)]));
  if (Array.isArray(v)) return v.map(celToJson);
  if (isMap(v)) return Object.fromEntries(Object.entries(v).filter(([k]) => k !== TYPE_KEY).map(([k, x]) => [k, celToJson(x)]));
  return v;
}

/** The type name of a constructed object (`Object.spec`), or undefined for any other value. */
function typeName(v: unknown): string | undefined {
  return isMap(v) && typeof v[TYPE_KEY] === 'string' ? v[TYPE_KEY] : undefined;
}

/**
 * Checks that the objects constructed under a constructed object are named by their field
 * path from it (`Object.spec{selector: Object.spec.selector{}}`), as kube's
 * CheckTypeNamesMatchFieldPathNames: lists and plain maps do not extend the path.
 */
function typeMismatches(v: unknown, path: string, out: string[]): void {
  const name = typeName(v);
  if (name !== undefined) {
    if (name !== path) out.push(`unexpected type name ${JSON.stringify(name)}, expected ${JSON.stringify(path)}, which matches field name path from root Object type`);
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (k !== TYPE_KEY) typeMismatches(x, `${path}.${k}`, out);
  } else if (Array.isArray(v)) for (const x of v) typeMismatches(x, path, out);
  else if (isMap(v)) for (const x of Object.values(v)) typeMismatches(x, path, out);
}

function checkTypeNames(v: unknown): void {
  const name = typeName(v);
  if (name === undefined) return;
  const out: string[] = [];
  typeMismatches(v, name, out);
  if (out.length) throw new MutationError(`type mismatch: ${out.join('\n')}`);
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Applies the JSON patch a mutation returned (a list of JSONPatch values) to a copy of the object. */
export function applyJsonPatchResult(obj: KubeObject, result: unknown): KubeObject {
  if (!Array.isArray(result)) throw new MutationError('type mismatch: JSONPatchType.expression should evaluate to array');
  for (const op of result) {
    if (typeName(op) !== 'JSONPatch') throw new MutationError('type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch');
    checkTypeNames((op as Record<string, unknown>).value);
  }
  const ops = celToJson(result) as unknown[];
  for (const op of ops) {
    if (!isMap(op)) throw new MutationError('JSONPatch expression must return a list of JSONPatch values');
    if (typeof op.op !== 'string' || !OPS.has(op.op)) throw new MutationError(`JSONPatch: unsupported op: ${JSON.stringify(op.op ?? '')}`);
    if (typeof op.path !== 'string') throw new MutationError('JSONPatch: path is required');
  }
  try {
    return applyJsonPatch(structuredClone(obj), ops);
  } catch (err) {
    const cause = (err as { cause?: { name?: string; message?: string; operation?: { op?: string } } }).cause;
    // A failed `test` operation (a different value or no value at its path) leaves the object as it was, without an error (kube's patcher).
    if (cause?.name === 'TEST_OPERATION_FAILED' || cause?.operation?.op === 'test') return obj;
    throw new MutationError(`JSONPath: ${(cause?.message ?? (err as Error).message).split('\n')[0]}`);
  }
}

/** The paths at which an apply configuration sets an atomic list, map or struct. */
function atomicPaths(config: unknown, schema: SchemaObject | undefined, defs: SchemaDefinitions, path: string, out: string[]): void {
  const shape = shapeOf(schema, config, { defs });
  if (shape.t === 'scalar') return;
  if (shape.t === 'list') {
    if (shape.list === 'atomic') out.push(path);
    (config as unknown[]).forEach((item, i) => atomicPaths(item, shape.items, defs, `${path}[${i}]`, out));
    return;
  }
  if (shape.atomic) out.push(path);
  const resolved = resolveSchema(shape.schema ?? undefined, defs);
  for (const [k, v] of Object.entries(config as Record<string, unknown>)) {
    if (v === null) continue;
    const sub = shape.t === 'struct' ? resolved?.properties?.[k] : typeof resolved?.additionalProperties === 'object' ? resolved.additionalProperties : undefined;
    atomicPaths(v, sub, defs, `${path}.${k}`, out);
  }
}

/** Merges the apply configuration a mutation returned into a copy of the object. */
export function applyConfigurationResult(obj: KubeObject, result: unknown, schema: ObjectSchema): KubeObject {
  if (typeName(result) !== 'Object') throw new MutationError('unsupported return type from ApplyConfiguration expression: must be an Object');
  checkTypeNames(result);
  const config = celToJson(result);
  if (!isMap(config)) throw new MutationError('ApplyConfiguration expression must return an Object');
  if (schema.schema) {
    const unknown = pruneUnknownFields(structuredClone(config), schema.schema, schema.definitions);
    if (unknown.length) throw new MutationError(`error applying patch: failed to convert patch object to typed object: ${unknown.map((p) => `.${p}: field not declared in schema`).join(', ')}`);
  }
  const atomic: string[] = [];
  atomicPaths(config, schema.schema, schema.definitions, '', atomic);
  if (atomic.length) throw new MutationError(`error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomic.join(', ')}`);
  const merged = merge(obj, config, schema.schema, { defs: schema.definitions }) as KubeObject;
  // A null applied removes the field, as decoding a merged object drops it.
  dropAppliedNulls(merged, config);
  return merged;
}

/** Removes from `target` the fields `config` sets to null (in place; struct and map fields only). */
function dropAppliedNulls(target: unknown, config: unknown): void {
  if (!isMap(target) || !isMap(config)) return;
  for (const [k, v] of Object.entries(config)) {
    if (v === null) delete target[k];
    else dropAppliedNulls(target[k], v);
  }
}
