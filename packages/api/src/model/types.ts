/**
 * The shape of kplane's one model of the built-in Kubernetes API: per Go API package
 * (group/version, or an apimachinery package), the types with their JSON fields and the facts
 * every consumer needs (OpenAPI v2/v3 documents, protobuf decoding, type checking, pruning,
 * strategic merge and apply, the SDK's TypeScript types). The data files under `gv/` are
 * generated from Kubernetes' published schema facts (see tools/api-model); they hold no prose.
 */

/**
 * A field's type, spelled so that Go's messages can be rebuilt from it:
 * - a scalar: `string`, `boolean`, `int32`, `int64`, `double`, `byte` (base64 of a Go []byte);
 * - a named type: its full schema name, e.g. `io.k8s.api.core.v1.Container`;
 * - a list: `[]` + the item type, e.g. `[]io.k8s.api.core.v1.Container`, `[]string`;
 * - a map with string keys: `map[string]` + the value type, e.g. `map[string]string`,
 *   `map[string][]string`.
 */
export type TypeRef = string;

/** The scalar spellings of {@link TypeRef}. */
export type ScalarType = 'string' | 'boolean' | 'int32' | 'int64' | 'double' | 'byte';

/** Kubernetes' list semantics (`x-kubernetes-list-type`). */
export type ListType = 'atomic' | 'set' | 'map';
/** Kubernetes' map/struct semantics (`x-kubernetes-map-type`). */
export type MapType = 'atomic' | 'granular';
/** Strategic merge patch strategies (`x-kubernetes-patch-strategy`). */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

/** One JSON field of a type. */
export interface FieldModel {
  readonly type: TypeRef;
  /**
   * The field's number in Kubernetes' protobuf message. Absent when the field has no protobuf
   * form of its own (apiVersion and kind live in the envelope; fields of an embedded struct
   * are numbered inside the embedded message, see {@link TypeModel.embedded}).
   */
  readonly proto?: number;
  /**
   * The field's protobuf type, only when it is not the one `type` implies. Implied: `string`→
   * string, `boolean`→bool, `int32`/`int64`/`double`→the same, `byte`→bytes, a schema name→its
   * message (`io.k8s.X.Y` → `k8s.io.X.Y`, dashes as underscores), `[]T`→repeated,
   * `map[string]T`→map<string, …>. Spelled like {@link TypeModel.protoFields}, with
   * `map[string]` in front of a map's value type. Examples: a Go metav1.Duration is a JSON
   * string but the message `k8s.io.apimachinery.pkg.apis.meta.v1.Duration`; a JSON
   * `map[string][]string` is `map[string]k8s.io.api.authentication.v1.ExtraValue`; a JSON
   * `[]string` carried as one wrapper message is `k8s.io.apimachinery.pkg.apis.meta.v1.Verbs`.
   */
  readonly protoType?: string;
  /** Listed in the type's `required`. */
  readonly required?: true;
  /** A Go pointer: a value present on the protobuf wire stays in JSON even when it is zero. */
  readonly ptr?: true;
  /** The Go json tag has no omitempty: Go's JSON always has the field, zero included. */
  readonly always?: true;
  /** The OpenAPI v3 default (v3 documents only). */
  readonly default?: unknown;
  /** The allowed values of a Go enum type, sorted (v3 documents only). */
  readonly enum?: readonly string[];
  /** The v3 facts of a list's items or a map's values, when there are any. */
  readonly items?: ItemModel;
  readonly listType?: ListType;
  readonly listMapKeys?: readonly string[];
  readonly mapType?: MapType;
  readonly patchStrategy?: PatchStrategy;
  readonly patchMergeKey?: string;
}

/**
 * The OpenAPI v3 facts of the items of a list field or the values of a map field (the TypeRef
 * after its `[]` or `map[string]`), as kube-openapi publishes them: `{}` for struct items,
 * the zero value for scalar items (`''`, `0`, `false`), the constants of an enum item type.
 */
export interface ItemModel {
  readonly default?: unknown;
  readonly enum?: readonly string[];
  /** One level further, for lists of lists and maps of lists (`map[string][]string`). */
  readonly items?: ItemModel;
}

/**
 * Types with their own JSON and protobuf forms, which consumers handle by name rather than by
 * fields: meta/v1 Time and MicroTime (RFC 3339 strings; protobuf seconds+nanos), Duration
 * (a Go duration string), resource.Quantity (a string or number; protobuf string), intstr
 * IntOrString, runtime.RawExtension (any JSON object; protobuf raw bytes), meta/v1 FieldsV1
 * (any JSON; protobuf raw bytes), apiextensions JSON (any JSON value) and the three
 * JSONSchemaPropsOr… unions.
 */
export type SpecialKind =
  | 'time'
  | 'micro-time'
  | 'duration'
  | 'quantity'
  | 'int-or-string'
  | 'raw-extension'
  | 'fields-v1'
  | 'json'
  | 'json-schema-props-or-array'
  | 'json-schema-props-or-bool'
  | 'json-schema-props-or-string-array';

/** A group, version and kind (`x-kubernetes-group-version-kind`). */
export interface GroupVersionKindModel {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** One named type (an OpenAPI definition, a protobuf message, a Go struct). */
export interface TypeModel {
  /** JSON fields in alphabetical order, the fields of embedded structs included. */
  readonly fields?: Readonly<Record<string, FieldModel>>;
  /**
   * Go structs embedded in this one: JSON flattens their fields into this type's fields;
   * protobuf keeps them as one message field with this number.
   */
  readonly embedded?: readonly { readonly proto: number; readonly type: TypeRef }[];
  /** The kinds whose top-level object this type is. */
  readonly gvk?: readonly GroupVersionKindModel[];
  /** `x-kubernetes-map-type` of the type itself (Go `+structType=atomic`). */
  readonly mapType?: MapType;
  /** `x-kubernetes-unions`, as published. */
  readonly unions?: readonly unknown[];
  /** Set for the types with their own JSON and protobuf forms. */
  readonly special?: SpecialKind;
  /**
   * The protobuf fields of a type that has no JSON fields of its own (the special types and
   * the protobuf-only wrapper messages): name → [number, protobuf type]. The protobuf type is
   * a scalar (`int64`, `bytes`, …) or a full message name (`k8s.io.api.core.v1.Container`),
   * with `[]` in front when the field is repeated.
   */
  readonly protoFields?: Readonly<Record<string, readonly [number, string]>>;
  /**
   * The type exists only as a protobuf message, not in the OpenAPI documents: the messages of
   * embedded Go structs (e.g. core/v1 VolumeSource, whose fields are also listed here with
   * their numbers in that message), meta/v1 Duration (a JSON string, a message on the wire),
   * and wrapper messages such as authentication/v1 ExtraValue, which carry the `[]string`
   * values of a `map[string][]string` field as `{ items: [...] }` (the map field then names
   * the wrapper in {@link FieldModel.protoType}).
   */
  readonly protoOnly?: true;
}

/** One Go API package: a group/version of k8s.io/api or apiextensions, or an apimachinery package. */
export interface ApiPackageModel {
  /** The Kubernetes release the facts come from. */
  readonly kubernetes: string;
  /** The API group ('' for the core group); absent for apimachinery packages. */
  readonly group?: string;
  /** The API version; absent for apimachinery packages. */
  readonly version?: string;
  /** Prefix of this package's schema names, e.g. `io.k8s.api.apps.v1.`. */
  readonly schemaPrefix: string;
  /** The protobuf package, e.g. `k8s.io.api.apps.v1`. */
  readonly protoPackage: string;
  /** The types, keyed by short name (`DeploymentSpec`); full name = schemaPrefix + key. */
  readonly types: Readonly<Record<string, TypeModel>>;
}
