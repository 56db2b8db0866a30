/**
 * Custom kinds declared once: a TypeBox schema gives both the TypeScript type of the objects
 * and the apiextensions.k8s.io/v1 CustomResourceDefinition that makes the API server serve them.
 */
import { isDNS1123Label, isDNS1123Subdomain, type KubeObject, type SchemaObject } from '@kplane/api';
import type { OptionalKind, Static, TSchema } from '@sinclair/typebox';
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
  CustomResourceSubresourceScale,
  JSONSchemaProps,
  ObjectMeta,
  SelectableField,
} from './builtin/index.js';
import { kindDescriptor, type KindDescriptor } from './descriptors.js';
import { SchemaConversionError, structuralSchemaErrors, toStructuralSchema } from './schema.js';

/** Options of defineKind. Names follow CustomResourceDefinitionSpec. */
export interface DefineKindOptions<Spec extends TSchema, Status extends TSchema | undefined> {
  /** A DNS subdomain with at least one dot, e.g. "demo.example.com". */
  group: string;
  /** The served and stored version, e.g. "v1". */
  version: string;
  /** CamelCase kind, e.g. "Greeting". */
  kind: string;
  /** Lower-case plural used in URLs, e.g. "greetings". */
  plural: string;
  /** Defaults to the lower-cased kind. */
  singular?: string;
  /** Defaults to `<kind>List`. */
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
  scope: 'Namespaced' | 'Cluster';
  /** Schema of `.spec`. Required in every object unless wrapped in `Type.Optional`. */
  spec: Spec;
  /** Schema of `.status` (always optional). */
  status?: Status;
  /** Description of the kind (the root of the schema; shown by kubectl explain). */
  description?: string;
  /** Extra kubectl get columns. */
  printerColumns?: CustomResourceColumnDefinition[];
  /** `status: true` enables /status; `scale` enables /scale with these paths. */
  subresources?: { status?: true; scale?: CustomResourceSubresourceScale };
  /** Fields usable in field selectors, as JSON paths (".spec.version") or SelectableField objects. */
  selectableFields?: (string | SelectableField)[];
}

/** TypeBox's optional marker: a registered symbol, read without loading TypeBox. */
const OPTIONAL: typeof OptionalKind = Symbol.for('TypeBox.Optional') as never;

type IsOptional<S> = S extends { [OptionalKind]: 'Optional' } ? true : false;
type SpecField<S extends TSchema> = IsOptional<S> extends true ? { spec?: Static<S> } : { spec: Static<S> };
type StatusField<S> = S extends TSchema ? { status?: Static<S> } : unknown;

/**
 * The TypeScript type of a custom kind's objects: the shape of a built-in kind's (`KubeObject`
 * with `apiVersion`, `kind`, the same `ObjectMeta`, `spec`, `status`). `defineKind` fills in
 * `ApiVersion` and `Kind` with its literals, as the built-in kinds have theirs
 * (`apiVersion?: 'apps/v1'`); `ObjectOf<typeof MyKind>` names that type.
 */
export type CustomObject<
  Spec extends TSchema,
  Status extends TSchema | undefined = undefined,
  ApiVersion extends string = string,
  Kind extends string = string,
> = CustomObjectBase<ApiVersion, Kind> & SpecField<Spec> & StatusField<Status>;

/** What every custom object has, declared as the built-in kinds declare it (an interface over KubeObject). */
interface CustomObjectBase<ApiVersion extends string, Kind extends string> extends KubeObject {
  apiVersion?: ApiVersion;
  kind?: Kind;
  metadata?: ObjectMeta;
}

/**
 * A custom kind: a typed descriptor like the built-in kinds' (`Deployments`, `Pods`…), so it
 * goes wherever they go — `client.resource(MyKind)`, `factory.informerFor(MyKind)`,
 * `.for(MyKind)` — plus its CRD.
 */
export interface CustomKind<T extends KubeObject> extends KindDescriptor<T> {
  /** The same descriptor as a plain frozen object (group, version, resource, kind…). */
  readonly descriptor: KindDescriptor<T>;
  /** The CRD's name, `<plural>.<group>`. */
  readonly crdName: string;
  /** A fresh CustomResourceDefinition object (apiextensions.k8s.io/v1) to create or apply. */
  crd(): CustomResourceDefinition;
  /** A fresh copy of the version's openAPIV3Schema. */
  schema(): SchemaObject;
}

const META_DESCRIPTIONS = {
  apiVersion: 'The versioned schema of this object: "<group>/<version>".',
  kind: 'The REST kind this object represents, in CamelCase.',
};

/**
 * Declares a custom kind once from TypeBox schemas. The returned descriptor is typed
 * `CustomObject<Spec, Status>` (spec required unless `Type.Optional`, status optional), and
 * `crd()` builds a single-version, served-and-stored CRD whose openAPIV3Schema is the structural
 * conversion of the schemas (see toStructuralSchema) under apiVersion/kind/metadata.
 * Errors: throws at definition time when names are invalid or a schema is not structural.
 */
export function defineKind<
  Spec extends TSchema,
  Status extends TSchema | undefined = undefined,
  Group extends string = string,
  Version extends string = string,
  Kind extends string = string,
>(
  options: DefineKindOptions<Spec, Status> & { group: Group; version: Version; kind: Kind },
): CustomKind<CustomObject<Spec, Status, `${Group}/${Version}`, Kind>> {
  validateNames(options);
  const root = buildSchema(options);
  const errors = structuralSchemaErrors(root);
  if (errors.length > 0) throw new Error(`defineKind ${options.kind}: the schema is not structural:\n${errors.join('\n')}`);

  const crdName = `${options.plural}.${options.group}`;
  const version: CustomResourceDefinitionVersion = { name: options.version, served: true, storage: true };
  const { subresources, printerColumns, selectableFields } = options;
  if (subresources && (subresources.status || subresources.scale)) {
    version.subresources = {};
    if (subresources.status) version.subresources.status = {};
    if (subresources.scale) version.subresources.scale = { ...subresources.scale };
  }
  if (printerColumns?.length) version.additionalPrinterColumns = printerColumns.map((c) => ({ ...c }));
  if (selectableFields?.length) {
    version.selectableFields = selectableFields.map((f) => (typeof f === 'string' ? { jsonPath: f } : { ...f }));
  }
  // kplane's SchemaObject reads a validation rule's reason as any string where JSONSchemaProps
  // lists the four Kubernetes accepts; the API server refuses the others when the CRD is written.
  version.schema = { openAPIV3Schema: root as JSONSchemaProps };

  const names: CustomResourceDefinition['spec']['names'] = {
    kind: options.kind,
    listKind: options.listKind ?? `${options.kind}List`,
    plural: options.plural,
    singular: options.singular ?? options.kind.toLowerCase(),
  };
  if (options.shortNames?.length) names.shortNames = [...options.shortNames];
  if (options.categories?.length) names.categories = [...options.categories];

  const crd: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName },
    spec: { group: options.group, names, scope: options.scope, versions: [version] },
  };
  Object.freeze(crd);

  const descriptor = kindDescriptor<CustomObject<Spec, Status, `${Group}/${Version}`, Kind>>({
    group: options.group,
    version: options.version,
    resource: options.plural,
    kind: options.kind,
    namespaced: options.scope === 'Namespaced',
  });
  return Object.freeze({
    ...descriptor,
    descriptor,
    crdName,
    crd: () => structuredClone(crd) as CustomResourceDefinition,
    schema: () => structuredClone(root),
  });
}

function buildSchema(options: DefineKindOptions<TSchema, TSchema | undefined>): SchemaObject {
  const properties: Record<string, SchemaObject> = {
    apiVersion: { type: 'string', description: META_DESCRIPTIONS.apiVersion },
    kind: { type: 'string', description: META_DESCRIPTIONS.kind },
    // Kubernetes forbids anything but `type: object` here (not even a description).
    metadata: { type: 'object' },
    spec: objectSchema(options.spec, 'spec'),
  };
  if (options.status) properties.status = objectSchema(options.status, 'status');
  const root: SchemaObject = { type: 'object' };
  if (options.description) root.description = options.description;
  if ((options.spec as { [OPTIONAL]?: string })[OPTIONAL] !== 'Optional') root.required = ['spec'];
  root.properties = properties;
  return root;
}

function objectSchema(schema: TSchema, path: string): SchemaObject {
  const s = toStructuralSchema(schema, path);
  if (s.type !== 'object') throw new SchemaConversionError(path, `must be an object schema (Type.Object), got ${s.type ?? 'no type'}`);
  return s;
}

function validateNames(o: DefineKindOptions<TSchema, TSchema | undefined>): void {
  const problems: string[] = [];
  const subdomain = isDNS1123Subdomain(o.group);
  if (subdomain.length) problems.push(`group "${o.group}": ${subdomain.join('; ')}`);
  else if (!o.group.includes('.')) problems.push(`group "${o.group}": should be a domain with at least one dot`);
  for (const [field, value] of [['plural', o.plural], ['singular', o.singular], ['version', o.version]] as const) {
    if (value === undefined) continue;
    const errs = isDNS1123Label(value);
    if (errs.length) problems.push(`${field} "${value}": ${errs.join('; ')}`);
  }
  if (!/^[A-Z][A-Za-z0-9]*$/.test(o.kind)) problems.push(`kind "${o.kind}": must be CamelCase, starting with an upper-case letter`);
  for (const s of o.shortNames ?? []) {
    const errs = isDNS1123Label(s);
    if (errs.length) problems.push(`shortName "${s}": ${errs.join('; ')}`);
  }
  if (problems.length) throw new Error(`defineKind: invalid names: ${problems.join(', ')}`);
}
