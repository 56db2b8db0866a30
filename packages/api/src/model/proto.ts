/**
 * The protobuf form of the model: a protobufjs Root built with `Root.fromJSON` from the model's
 * packages, so that Kubernetes' protobuf bodies decode with the field numbers of its own
 * `generated.proto` files while every field keeps its JSON name.
 *
 * - Each named type with fields is a message in its package's protobuf namespace
 *   (`k8s.io.api.apps.v1.Deployment`); its fields are the model fields that have a `proto`
 *   number, named by their JSON names (see {@link protoFieldName} for the few exceptions).
 * - `[]T` is a repeated field, `map[string]T` a protobuf map, `protoType` overrides the wire type.
 * - An embedded Go struct is one message field (named after its type, e.g. `volumeSource`)
 *   whose fields JSON flattens into the parent; {@link ProtoModel.embedded} tells them apart.
 * - Special types (Time, Quantity, IntOrString, ...) are messages built from their `protoFields`.
 * - `protoType` is the protobuf field type spelled like a TypeRef (`map[string]X`, `[]X`, `X`).
 * - A named slice Kubernetes carries as a wrapper message (`ExtraValue`, `Verbs`: `repeated
 *   string items = 1`) is a protobuf-only model type with `protoFields`; one the model names in
 *   a `protoType` without defining it gets that message too.
 * - The `runtime.Unknown` envelope of every protobuf body is added under
 *   `k8s.io.apimachinery.pkg.runtime`.
 */
import type protobuf from 'protobufjs';
import { protobufjs } from '../protobuf/lib.js';
import { MODEL_PACKAGES, modelTypes, parseTypeRef, type ModelType } from './index.js';
import type { ApiPackageModel, FieldModel, TypeRef } from './types.js';

/** The protobuf namespace of the envelope every Kubernetes protobuf body starts with. */
export const RUNTIME_PROTO_PACKAGE = 'k8s.io.apimachinery.pkg.runtime';

/** The protobuf Root of a model and what a decoder needs to turn its messages into JSON. */
export interface ProtoModel {
  readonly root: protobuf.Root;
  /** The `runtime.Unknown` envelope message. */
  readonly unknown: protobuf.Type;
  /** The message of a kind, by apiVersion (`v1`, `apps/v1`) and kind. */
  kind(apiVersion: string, kind: string): protobuf.Type | undefined;
  /** Every apiVersion/kind the model has a top-level type for. */
  kinds(): readonly { readonly apiVersion: string; readonly kind: string }[];
  /** The model type a message was built from (undefined for the envelope and wrapper messages). */
  modelOf(message: protobuf.Type): ModelType | undefined;
  /** Whether a message field is an embedded Go struct (its JSON fields belong to the parent). */
  embedded(field: protobuf.Field): boolean;
  /** Whether a message is a wrapper of a named slice (JSON: the list of its `items`). */
  wrapper(message: protobuf.Type): boolean;
}

const SCALAR_PROTO: Record<string, string> = {
  string: 'string',
  boolean: 'bool',
  int32: 'int32',
  int64: 'int64',
  double: 'double',
  byte: 'bytes',
};

const PROTO_SCALARS = new Set([
  'double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64',
  'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes',
]);

/** The protobuf message name of a model type (`k8s.io.api.apps.v1.Deployment`). */
export function protoMessageName(type: ModelType): string {
  return `${type.pkg.protoPackage}.${type.shortName}`;
}

/**
 * The protobufjs name of a JSON field: the JSON name itself, except that protobufjs refuses
 * names starting with `$` (`$ref`, `$schema`), which lose it (`ref`, `schema`). Consumers find
 * fields by number.
 */
export function protoFieldName(jsonName: string, fields: Readonly<Record<string, unknown>>): string {
  if (!jsonName.startsWith('$') && jsonName !== '__proto__') return jsonName;
  let name = jsonName.replace(/^\$/, '');
  while (name === '__proto__' || Object.prototype.hasOwnProperty.call(fields, name)) name = `_${name}`;
  return name;
}

/** The protobufjs field name of an embedded struct: its type's short name, first letter lowered. */
export function embeddedFieldName(typeName: TypeRef, fields: Readonly<Record<string, unknown>>): string {
  const short = typeName.slice(typeName.lastIndexOf('.') + 1);
  let name = short.charAt(0).toLowerCase() + short.slice(1);
  while (Object.prototype.hasOwnProperty.call(fields, name)) name = `_${name}`;
  return name;
}

type FieldJson = { type: string; id: number; rule?: 'repeated'; keyType?: string };
type MessageJson = { fields: Record<string, FieldJson> };
type NamespaceJson = { nested?: Record<string, NamespaceJson | MessageJson> };

/**
 * The protobufjs JSON descriptor of the model's messages (input of `Root.fromJSON`), with the
 * names of the embedded-struct fields and of the wrapper messages it added.
 */
export function protoDescriptor(packages: readonly ApiPackageModel[] = MODEL_PACKAGES): {
  readonly json: NamespaceJson;
  readonly embedded: ReadonlySet<string>;
  readonly wrappers: ReadonlySet<string>;
} {
  const json: NamespaceJson = {};
  const embedded = new Set<string>();
  const wrappers = new Map<string, MessageJson>(); // wrapper messages the model names but lacks
  const wrapperTypes = new Set<string>(); // protobuf-only model types (named slices)
  const messageNames = new Map<string, string>(); // schema name → message name
  const types = [...modelTypes(packages)];
  for (const t of types) messageNames.set(t.name, protoMessageName(t));
  const defined = new Set(messageNames.values());

  const protoOf = (ref: TypeRef, where: string): string => {
    const scalar = SCALAR_PROTO[ref];
    if (scalar) return scalar;
    const message = messageNames.get(ref);
    if (!message) throw new Error(`${where}: type ${ref} has no protobuf form in the model`);
    return `.${message}`;
  };
  /** The message or scalar named by (the item part of) a protoType. */
  const overridden = (protoType: string, valueRef: TypeRef, where: string): string => {
    if (PROTO_SCALARS.has(protoType)) return protoType;
    const name = protoType.replace(/^\./, '');
    if (!defined.has(name) && !wrappers.has(name)) {
      const item = parseTypeRef(valueRef);
      if (item.kind !== 'list') throw new Error(`${where}: protobuf type ${protoType} is not in the model`);
      wrappers.set(name, { fields: { items: { rule: 'repeated', type: protoOf(item.item, where), id: 1 } } });
    }
    return `.${name}`;
  };

  for (const t of types) {
    const fields: Record<string, FieldJson> = {};
    const where = t.name;
    if (t.type.protoFields) {
      if (!t.type.special) wrapperTypes.add(protoMessageName(t));
      for (const [name, [id, type]] of Object.entries(t.type.protoFields ?? {})) {
        fields[name] = specialField(type, id, (ref) => (defined.has(ref) ? `.${ref}` : protoOf(ref, where)));
      }
    } else {
      for (const [name, f] of Object.entries(t.type.fields ?? {})) {
        if (f.proto === undefined) continue;
        fields[protoFieldName(name, t.type.fields!)] = modelField(f, `${where}.${name}`, protoOf, overridden);
      }
      for (const e of t.type.embedded ?? []) {
        const name = embeddedFieldName(e.type, { ...(t.type.fields ?? {}), ...fields });
        fields[name] = { type: protoOf(e.type, where), id: e.proto };
        embedded.add(`${protoMessageName(t)}.${name}`);
      }
    }
    define(json, protoMessageName(t), { fields });
  }
  for (const [name, message] of wrappers) define(json, name, message);
  const runtime = `${RUNTIME_PROTO_PACKAGE}.`;
  if (!defined.has(`${runtime}TypeMeta`)) {
    define(json, `${runtime}TypeMeta`, { fields: { apiVersion: { type: 'string', id: 1 }, kind: { type: 'string', id: 2 } } });
  }
  define(json, `${runtime}Unknown`, {
    fields: {
      typeMeta: { type: `.${runtime}TypeMeta`, id: 1 },
      raw: { type: 'bytes', id: 2 },
      contentEncoding: { type: 'string', id: 3 },
      contentType: { type: 'string', id: 4 },
    },
  });
  return { json, embedded, wrappers: new Set([...wrapperTypes, ...wrappers.keys()]) };
}

function modelField(
  f: FieldModel,
  where: string,
  protoOf: (ref: TypeRef, where: string) => string,
  overridden: (protoType: string, valueRef: TypeRef, where: string) => string,
): FieldJson {
  const id = f.proto!;
  const ref = parseTypeRef(f.type);
  if (f.protoType) {
    // the protobuf field type spelled like a TypeRef: `map[string]X`, `[]X` or `X`
    const proto = parseTypeRef(f.protoType);
    const jsonValue = ref.kind === 'map' ? ref.value : ref.kind === 'list' && proto.kind === 'list' ? ref.item : f.type;
    if (proto.kind === 'map') return { keyType: 'string', type: overridden(proto.value, jsonValue, where), id };
    if (proto.kind === 'list') return { rule: 'repeated', type: overridden(proto.item, jsonValue, where), id };
    return { type: overridden(f.protoType, jsonValue, where), id };
  }
  if (ref.kind === 'map') return { keyType: 'string', type: protoOf(ref.value, where), id };
  if (ref.kind === 'list') return { rule: 'repeated', type: protoOf(ref.item, where), id };
  return { type: protoOf(f.type, where), id };
}

/** A `protoFields` entry: a protobuf scalar or message (by protobuf or schema name), or either behind `[]`. */
function specialField(type: string, id: number, protoOf: (ref: TypeRef) => string): FieldJson {
  const repeated = type.startsWith('[]') ? type.slice(2) : type.startsWith('repeated ') ? type.slice(9) : undefined;
  const item = repeated ?? type;
  const proto = PROTO_SCALARS.has(item) ? item : protoOf(item);
  return repeated !== undefined ? { rule: 'repeated', type: proto, id } : { type: proto, id };
}

function define(root: NamespaceJson, fullName: string, message: MessageJson): void {
  const parts = fullName.split('.');
  let ns = root;
  for (const part of parts.slice(0, -1)) {
    ns.nested ??= {};
    ns = (ns.nested[part] ??= {}) as NamespaceJson;
  }
  ns.nested ??= {};
  ns.nested[parts[parts.length - 1]!] = message;
}

/** Builds the protobuf form of the given packages (the model's by default). */
export function buildProtoModel(packages: readonly ApiPackageModel[] = MODEL_PACKAGES): ProtoModel {
  const { json, embedded, wrappers } = protoDescriptor(packages);
  const root = protobufjs().Root.fromJSON(json);
  const byMessage = new Map<protobuf.Type, ModelType>();
  const byKind = new Map<string, protobuf.Type>();
  const kinds: { apiVersion: string; kind: string }[] = [];
  for (const t of modelTypes(packages)) {
    const message = root.lookup(protoMessageName(t));
    if (!(message instanceof protobufjs().Type)) continue;
    byMessage.set(message, t);
    for (const gvk of t.type.gvk ?? []) {
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      const key = `${apiVersion}\u0000${gvk.kind}`;
      if (byKind.has(key)) continue;
      byKind.set(key, message);
      kinds.push({ apiVersion, kind: gvk.kind });
    }
  }
  const wrapperMessages = new Set([...wrappers].map((name) => root.lookupType(name)));
  return {
    root,
    unknown: root.lookupType(`${RUNTIME_PROTO_PACKAGE}.Unknown`),
    kind: (apiVersion, kind) => byKind.get(`${apiVersion}\u0000${kind}`),
    kinds: () => kinds,
    modelOf: (message) => byMessage.get(message),
    embedded: (field) => embedded.has(`${field.parent!.fullName.slice(1)}.${field.name}`),
    wrapper: (message) => wrapperMessages.has(message),
  };
}
