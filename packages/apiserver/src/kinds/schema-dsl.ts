/**
 * A tiny vocabulary for writing OpenAPI v3 schemas the way kube-apiserver publishes them:
 * named schemas referenced as `#/components/schemas/<name>` with sibling description/default.
 */
import type { SchemaObject } from '@kplane/api';

/** Prefixes of Kubernetes' schema names. */
export const CORE = 'io.k8s.api.core.v1.';
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const APPS = 'io.k8s.api.apps.v1.';
export const TIME = `${META}Time`;
export const MICROTIME = `${META}MicroTime`;
export const OBJECT_META = `${META}ObjectMeta`;
export const LIST_META = `${META}ListMeta`;
export const LABEL_SELECTOR = `${META}LabelSelector`;
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

type Extra = Partial<SchemaObject>;

/**
 * A reference to a named schema. With a description or extensions beside it, the reference is
 * wrapped in a one-element allOf, as kube-apiserver 1.32 publishes it (kubectl explain then shows
 * the field's own description).
 */
export function ref(name: string, description?: string, extra: Extra = {}): SchemaObject {
  const target: SchemaObject = { $ref: `#/components/schemas/${name}` };
  if (!description && Object.keys(extra).length === 0) return target;
  const s: SchemaObject = { allOf: [target] };
  if (description) s.description = description;
  return { ...s, ...extra };
}

/** A reference to an object schema, defaulting to {} as Kubernetes marks non-pointer structs. */
export function refObj(name: string, description?: string, extra: Extra = {}): SchemaObject {
  return ref(name, description, { default: {}, ...extra });
}

/** A string. */
export function str(description: string, extra: Extra = {}): SchemaObject {
  return { type: 'string', description, ...extra };
}

/** A string restricted to an enum (kubectl explain prints the values). */
export function enumStr(description: string, values: string[], extra: Extra = {}): SchemaObject {
  return { type: 'string', description, enum: values, ...extra };
}

/** A 32-bit integer. */
export function int32(description: string, extra: Extra = {}): SchemaObject {
  return { type: 'integer', format: 'int32', description, ...extra };
}

/** A 64-bit integer. */
export function int64(description: string, extra: Extra = {}): SchemaObject {
  return { type: 'integer', format: 'int64', description, ...extra };
}

/** A boolean. */
export function bool(description: string, extra: Extra = {}): SchemaObject {
  return { type: 'boolean', description, ...extra };
}

/** A timestamp (meta/v1 Time). */
export function time(description: string): SchemaObject {
  return ref(TIME, description);
}

/** An int-or-string (ports, maxSurge...). */
export function intOrString(description: string): SchemaObject {
  return ref(INT_OR_STRING, description);
}

/** An array. */
export function arr(items: SchemaObject, description: string, extra: Extra = {}): SchemaObject {
  return { type: 'array', description, items, ...extra };
}

/** An atomic list of strings. */
export function strList(description: string, extra: Extra = {}): SchemaObject {
  return { type: 'array', description, items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic', ...extra };
}

/** A list of named objects merged by key (`x-kubernetes-patch-merge-key` + list-type map). */
export function mapList(itemName: string, description: string, keys: string[], strategy = 'merge', extra: Extra = {}): SchemaObject {
  return {
    type: 'array',
    description,
    items: refObj(itemName),
    'x-kubernetes-list-map-keys': keys,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-patch-merge-key': keys[0],
    'x-kubernetes-patch-strategy': strategy,
    ...extra,
  };
}

/** An atomic list of objects (replaced as a whole by patches). */
export function atomicList(itemName: string, description: string): SchemaObject {
  return { type: 'array', description, items: refObj(itemName), 'x-kubernetes-list-type': 'atomic' };
}

/** A map of strings. */
export function strMap(description: string): SchemaObject {
  return { type: 'object', description, additionalProperties: { type: 'string', default: '' } };
}

/** A map of quantities (resource lists). */
export function quantityMap(description: string): SchemaObject {
  return { type: 'object', description, additionalProperties: ref(QUANTITY) };
}

/** An object with described properties. */
export function obj(description: string, properties: Record<string, SchemaObject>, extra: Extra = {}): SchemaObject {
  return { type: 'object', description, properties, ...extra };
}

/** An object kplane does not describe field by field: every field is kept and accepted. */
export function open(description: string, properties: Record<string, SchemaObject> = {}): SchemaObject {
  const s: SchemaObject = { type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true };
  if (Object.keys(properties).length) s.properties = properties;
  return s;
}

/** group/version/kind as the x-kubernetes-group-version-kind extension carries it. */
export function gvk(group: string, version: string, kind: string): { group: string; version: string; kind: string }[] {
  return [{ group, kind, version }];
}

const API_VERSION = str('The versioned schema of this object, e.g. "v1" or "apps/v1". Servers convert recognized schemas to the latest internal value.');
const KIND = str('The REST kind this object represents, in CamelCase, e.g. "Pod". Servers may infer it from the endpoint the client uses.');

/**
 * A top-level kind: apiVersion, kind, metadata plus its own properties, tagged with its
 * group/version/kind.
 */
export function kindSchema(
  group: string,
  version: string,
  kind: string,
  description: string,
  properties: Record<string, SchemaObject>,
  extra: Extra = {},
): SchemaObject {
  return {
    type: 'object',
    description,
    properties: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: refObj(OBJECT_META, "Standard object metadata: name, namespace, labels, annotations and the server's bookkeeping."),
      ...properties,
    },
    'x-kubernetes-group-version-kind': gvk(group, version, kind),
    ...extra,
  };
}

/** The List kind of a kind (`<Kind>List`, items required). */
export function listSchema(group: string, version: string, kind: string, itemSchema: string): SchemaObject {
  return {
    type: 'object',
    description: `${kind}List is a list of ${kind} objects.`,
    properties: {
      apiVersion: API_VERSION,
      items: { type: 'array', description: `The ${kind} objects.`, items: refObj(itemSchema) },
      kind: KIND,
      metadata: refObj(LIST_META, 'Standard list metadata: resourceVersion and continue token.'),
    },
    required: ['items'],
    'x-kubernetes-group-version-kind': gvk(group, version, `${kind}List`),
  };
}

/** Adds a kind and its List to a definitions map under `<prefix><Kind>` / `<prefix><Kind>List`. */
export function addKind(
  defs: Record<string, SchemaObject>,
  prefix: string,
  group: string,
  version: string,
  kind: string,
  description: string,
  properties: Record<string, SchemaObject>,
  extra: Extra = {},
): void {
  defs[`${prefix}${kind}`] = kindSchema(group, version, kind, description, properties, extra);
  defs[`${prefix}${kind}List`] = listSchema(group, version, kind, `${prefix}${kind}`);
}
