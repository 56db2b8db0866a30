/** Stage 2: the protobuf facts joined onto the OpenAPI types (numbers, embedded structs, wire types). */
import type { DraftField, DraftType } from './draft.js';
import { Problems } from './draft.js';
import type { PackageSpec } from './packages.js';
import { protoPackageOf } from './packages.js';
import type { ProtoField, ProtoMessage } from './proto.js';
import { protoTypeSpelling } from './proto.js';
import { SPECIAL_TYPES } from './special.js';
import { compareNames } from './swagger.js';

/** One type of the model being built, with the package it belongs to. */
export interface DraftEntry {
  readonly spec: PackageSpec;
  readonly short: string;
  type: DraftType;
}

/** The model being built, keyed by full schema name. */
export type DraftModel = Map<string, DraftEntry>;

const SCALAR_PROTO: Readonly<Record<string, string>> = {
  string: 'string',
  boolean: 'bool',
  int32: 'int32',
  int64: 'int64',
  double: 'double',
  byte: 'bytes',
};

/** Field names compared the way JSON and protobuf names of one Go field relate (`uid`/`uID`, `$ref`/`ref`). */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Splits a full schema name into its package and short name. */
export function splitSchemaName(name: string, specs: readonly PackageSpec[]): { spec: PackageSpec; short: string } | undefined {
  for (const spec of specs) {
    if (name.startsWith(spec.schemaPrefix) && !name.slice(spec.schemaPrefix.length).includes('.')) {
      return { spec, short: name.slice(spec.schemaPrefix.length) };
    }
  }
  return undefined;
}

/** The protobuf message name of a schema name, if it belongs to one of the packages. */
export function messageNameOf(schemaName: string, specs: readonly PackageSpec[]): string | undefined {
  const split = splitSchemaName(schemaName, specs);
  return split && `${protoPackageOf(split.spec.schemaPrefix)}.${split.short}`;
}

/** The schema name of a protobuf message name, if it belongs to one of the packages. */
export function schemaNameOfMessage(message: string, specs: readonly PackageSpec[]): string | undefined {
  const dot = message.lastIndexOf('.');
  const pkg = message.slice(0, dot);
  const spec = specs.find((s) => s.proto && protoPackageOf(s.schemaPrefix) === pkg);
  return spec && spec.schemaPrefix + message.slice(dot + 1);
}

/** Joins the protobuf messages onto the draft model, in place; adds the protobuf-only types. */
export function joinProto(
  model: DraftModel,
  messages: ReadonlyMap<string, ProtoMessage>,
  specs: readonly PackageSpec[],
  problems: Problems,
): void {
  const referenced = new Set<string>();
  const embeddedTypes = new Map<string, { parent: DraftType; message: ProtoMessage }>();

  const join = (name: string, type: DraftType, message: ProtoMessage): void => {
    const fields = type.fields ?? {};
    const byNorm = new Map<string, string>();
    for (const json of Object.keys(fields)) {
      const norm = normalizeName(json);
      if (byNorm.has(norm)) problems.add(`${name}: fields ${byNorm.get(norm)} and ${json} cannot be told apart`);
      byNorm.set(norm, json);
    }
    const claimed = new Set<string>();
    for (const pf of message.fields) {
      const json = byNorm.get(normalizeName(pf.name));
      if (json !== undefined && !claimed.has(json)) {
        claimed.add(json);
        const field = fields[json]!;
        field.proto = pf.id;
        const wire = wireType(field, pf, `${name}.${json}`, problems, specs, messages);
        if (wire !== undefined) {
          field.protoType = protoTypeSpelling(pf);
          if (!SCALAR_PROTO_VALUES.has(wire)) referenced.add(wire);
        }
        continue;
      }
      const inner = !pf.repeated && pf.mapKey === undefined ? messages.get(pf.type) : undefined;
      const flattened = inner && flattenedNames(inner, byNorm, messages);
      if (inner && flattened) {
        const innerName = schemaNameOfMessage(inner.name, specs);
        if (!innerName) {
          problems.add(`${name}: embedded ${inner.name} is outside the model's packages`);
          continue;
        }
        (type.embedded ??= []).push({ proto: pf.id, type: innerName });
        for (const json of flattened) claimed.add(json);
        if (!model.has(innerName) && !embeddedTypes.has(innerName)) embeddedTypes.set(innerName, { parent: type, message: inner });
        continue;
      }
      problems.add(`${name}: protobuf field ${pf.name} = ${pf.id} matches no JSON field`);
    }
    for (const json of Object.keys(fields)) {
      if (!claimed.has(json) && json !== 'apiVersion' && json !== 'kind') {
        problems.add(`${name}.${json}: no protobuf field`);
      }
    }
  };

  for (const [name, entry] of model) {
    if (!entry.spec.proto) continue;
    const messageName = messageNameOf(name, specs)!;
    const message = messages.get(messageName);
    if (!message) {
      problems.add(`${name}: no protobuf message ${messageName}`);
      continue;
    }
    if (SPECIAL_TYPES.has(name)) {
      entry.type = specialType(name, message);
      continue;
    }
    join(name, entry.type, message);
  }

  for (const [name, { parent, message }] of [...embeddedTypes].sort((a, b) => compareNames(a[0], b[0]))) {
    const split = splitSchemaName(name, specs)!;
    const fields: Record<string, DraftField> = {};
    const parentFields = parent.fields ?? {};
    const byNorm = new Map(Object.keys(parentFields).map((json) => [normalizeName(json), json]));
    for (const json of flattenedNames(message, byNorm, messages)!) {
      const { proto: _p, protoType: _t, ...copy } = parentFields[json]!;
      fields[json] = copy;
    }
    const sorted: Record<string, DraftField> = {};
    for (const key of Object.keys(fields).sort(compareNames)) sorted[key] = fields[key]!;
    const type: DraftType = { fields: sorted, protoOnly: true };
    join(name, type, message);
    model.set(name, { spec: split.spec, short: split.short, type });
  }

  for (const name of SPECIAL_TYPES.keys()) {
    const messageName = messageNameOf(name, specs);
    if (messageName && messages.has(messageName)) referenced.add(messageName);
  }
  for (const messageName of [...referenced].sort(compareNames)) {
    const name = schemaNameOfMessage(messageName, specs);
    const message = messages.get(messageName);
    if (!name || !message) {
      problems.add(`protobuf message ${messageName} is not in the model's packages`);
      continue;
    }
    if (model.has(name)) continue;
    const split = splitSchemaName(name, specs)!;
    const type = SPECIAL_TYPES.has(name) ? specialType(name, message) : { protoFields: protoFieldsOf(message) };
    type.protoOnly = true;
    model.set(name, { spec: split.spec, short: split.short, type });
  }
}

const SCALAR_PROTO_VALUES = new Set(Object.values(SCALAR_PROTO));

/**
 * The JSON fields an embedded message stands for, when every one of its fields is a JSON field
 * of the parent or itself an embedded message (Go structs embedded in embedded structs);
 * undefined when the message is not embedded.
 */
function flattenedNames(
  message: ProtoMessage,
  byNorm: ReadonlyMap<string, string>,
  messages: ReadonlyMap<string, ProtoMessage>,
  depth = 0,
): string[] | undefined {
  if (message.fields.length === 0 || depth > 4) return undefined;
  const names: string[] = [];
  for (const f of message.fields) {
    const json = byNorm.get(normalizeName(f.name));
    if (json !== undefined) {
      names.push(json);
      continue;
    }
    const inner = !f.repeated && f.mapKey === undefined ? messages.get(f.type) : undefined;
    const nested = inner && flattenedNames(inner, byNorm, messages, depth + 1);
    if (!nested) return undefined;
    names.push(...nested);
  }
  return names;
}

function specialType(name: string, message: ProtoMessage): DraftType {
  return { special: SPECIAL_TYPES.get(name)!, protoFields: protoFieldsOf(message) };
}

function protoFieldsOf(message: ProtoMessage): Record<string, readonly [number, string]> {
  const out: Record<string, readonly [number, string]> = {};
  for (const f of [...message.fields].sort((a, b) => compareNames(a.name, b.name))) {
    out[f.name] = [f.id, protoTypeSpelling(f)];
  }
  return out;
}

/**
 * Checks that a JSON field and its protobuf field have the same shape (single, list, map) and
 * returns the protobuf item type when it is not the one the TypeRef implies. A JSON list may be
 * carried as one wrapper message whose only field is the repeated `items` (meta/v1 Verbs).
 */
function wireType(
  field: DraftField,
  pf: ProtoField,
  where: string,
  problems: Problems,
  specs: readonly PackageSpec[],
  messages: ReadonlyMap<string, ProtoMessage>,
): string | undefined {
  let item = field.type;
  let shape: 'single' | 'list' | 'map' = 'single';
  if (item.startsWith('[]')) {
    item = item.slice(2);
    shape = 'list';
  } else if (item.startsWith('map[string]')) {
    item = item.slice('map[string]'.length);
    shape = 'map';
  }
  const protoShape = pf.mapKey !== undefined ? 'map' : pf.repeated ? 'list' : 'single';
  if (shape === 'list' && protoShape === 'single' && isWrapperOf(messages.get(pf.type), item, specs)) return pf.type;
  if (shape !== protoShape) problems.add(`${where}: JSON ${shape} ${field.type} but protobuf ${protoShape} ${pf.type}`);
  if (pf.mapKey !== undefined && pf.mapKey !== 'string') problems.add(`${where}: protobuf map key ${pf.mapKey}`);
  const implied = impliedProto(item, specs);
  if (implied === pf.type) return undefined;
  if (item.startsWith('[]') && isWrapperOf(messages.get(pf.type), item.slice(2), specs)) return pf.type;
  if (SCALAR_PROTO_VALUES.has(pf.type) && implied !== undefined && SCALAR_PROTO_VALUES.has(implied)) return pf.type;
  if (implied !== undefined && SCALAR_PROTO_VALUES.has(implied) && messages.has(pf.type)) return pf.type;
  problems.add(`${where}: JSON ${field.type} but protobuf ${protoTypeSpelling(pf)}`);
  return pf.type;
}

function impliedProto(item: string, specs: readonly PackageSpec[]): string | undefined {
  return SCALAR_PROTO[item] ?? messageNameOf(item, specs);
}

/** A wrapper message: one field, `items`, repeated, of the list's item type. */
function isWrapperOf(message: ProtoMessage | undefined, item: string, specs: readonly PackageSpec[]): boolean {
  if (!message || message.fields.length !== 1) return false;
  const only = message.fields[0]!;
  return only.name === 'items' && only.repeated && only.type === impliedProto(item, specs);
}
