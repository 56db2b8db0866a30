/**
 * A served version of a CustomResourceDefinition as a ResourceType: names, scope,
 * subresources, storage under /registry/<group>/<plural>, and a strategy that applies schema
 * defaults (on write and on read), validates against the schema and its CEL rules with
 * ratcheting, prints the version's columns and selects by its selectableFields. Also the
 * OpenAPI definition the version is published with.
 */
import type { KubeObject, SchemaDefinitions, SchemaObject, StatusCause } from '@kplane/api';
import { apiVersionOf, CauseType } from '@kplane/api';
import type { ResourceStrategy, ResourceType } from '../registry/resource.js';
import { buildCelValidator, validateCel } from './cel/validator.js';
import { convertingBackend, createConverter } from './conversion.js';
import { crdSpec, reversedGroup, storageVersionOf, type CRDVersion, type CustomResourceDefinition } from './crd-types.js';
import { compileDefaulter } from './defaults.js';
import { printerTable } from './printer.js';
import { validateValue } from './schema-values.js';
import type { ServiceLister } from '../webhookutil/client.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** Name of a version's schema among the OpenAPI definitions ("com.example.demo.v1.Greeting"). */
export function definitionName(group: string, version: string, kind: string): string {
  return `${reversedGroup(group)}.${version}.${kind}`;
}

/** The OpenAPI definition of a version: its schema plus apiVersion, kind, metadata and the GVK. */
export function customResourceDefinitionSchema(group: string, version: string, kind: string, schema: SchemaObject | undefined): SchemaObject {
  const base: SchemaObject = structuredClone(schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  base.properties = {
    apiVersion: {
      type: 'string',
      description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
    },
    kind: {
      type: 'string',
      description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
    },
    metadata: { $ref: `#/components/schemas/${OBJECT_META}`, description: 'Standard object\'s metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata' },
    ...(base.properties ?? {}),
  };
  if (schema?.properties?.metadata === undefined) base.properties.metadata = { $ref: `#/components/schemas/${OBJECT_META}`, description: base.properties.metadata!.description };
  else base.properties.metadata = { allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }], description: base.properties.metadata!.description };
  base['x-kubernetes-group-version-kind'] = [{ group, kind, version }];
  return base;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function fieldValue(obj: KubeObject, path: string): string | undefined {
  let cur: unknown = obj;
  for (const seg of path.replace(/^\./, '').split('.')) {
    if (!isObj(cur)) return undefined;
    cur = cur[seg];
  }
  if (cur === undefined || cur === null) return undefined;
  return typeof cur === 'string' ? cur : String(cur);
}

/** Validation of one custom resource: schema keywords, then CEL rules unless a type is wrong. */
function validator(schema: SchemaObject | undefined): (obj: KubeObject, old?: KubeObject, warnings?: string[]) => StatusCause[] {
  if (!schema) return () => [];
  const cel = buildCelValidator(schema);
  // The schema as the value validator sees it: metadata, apiVersion and kind are checked elsewhere.
  const root: SchemaObject = { ...schema, properties: { ...(schema.properties ?? {}) } };
  delete root.properties!.metadata;
  delete root.properties!.apiVersion;
  delete root.properties!.kind;
  // Every stored object has them, as kube-apiserver sees it: listing them as required is harmless.
  if (root.required) root.required = root.required.filter((r) => r !== 'metadata' && r !== 'apiVersion' && r !== 'kind');
  return (obj, old, warnings) => {
    const body: Obj = { ...obj };
    delete body.metadata;
    delete body.apiVersion;
    delete body.kind;
    let oldBody: Obj | undefined;
    if (old) {
      oldBody = { ...old };
      delete oldBody.metadata;
      delete oldBody.apiVersion;
      delete oldBody.kind;
    }
    const causes = validateValue(body, root, '', oldBody ? { value: oldBody } : undefined);
    if (!cel) return causes;
    if (causes.some((c) => c.reason === CauseType.TypeInvalid)) {
      causes.push({ reason: CauseType.Invalid, field: '<nil>', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' });
      return causes;
    }
    causes.push(...validateCel(cel, obj, '', old ? { value: old } : undefined, warnings));
    return causes;
  };
}

function strategyFor(version: CRDVersion): ResourceStrategy {
  const schema = version.schema?.openAPIV3Schema;
  const selectable = version.selectableFields ?? [];
  const fieldSelectors: Record<string, (o: KubeObject) => string | undefined> = {};
  for (const f of selectable) fieldSelectors[f.jsonPath.replace(/^\./, '')] = (o) => fieldValue(o, f.jsonPath);
  const defaulter = compileDefaulter(schema);
  return {
    generation: true,
    defaults: defaulter,
    decode: defaulter,
    validate: validator(schema),
    table: printerTable(version.additionalPrinterColumns),
    fieldSelectors,
  };
}

/** A served version's ResourceType and the definitions it needs. */
export interface CustomResourceTypeResult {
  type: ResourceType;
  definitions: SchemaDefinitions;
}

/** What customResourceType needs of the server beyond the CRD. */
export interface CustomResourceTypeOptions {
  /** Services and EndpointSlices, to resolve a conversion webhook given by `service`. */
  objects?: ServiceLister;
}

/** Builds the ResourceType of one version of an (established) CRD. */
export function customResourceType(crd: CustomResourceDefinition, version: CRDVersion, options: CustomResourceTypeOptions = {}): CustomResourceTypeResult {
  const spec = crdSpec(crd);
  const names = { ...spec.names, ...(crd.status?.acceptedNames ?? {}) };
  const schemaName = definitionName(spec.group, version.name, names.kind);
  const storage = storageVersionOf(spec);
  const scale = version.subresources?.scale;
  const type: ResourceType = {
    group: spec.group,
    version: version.name,
    resource: spec.names.plural,
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    singular: names.singular ?? names.kind.toLowerCase(),
    shortNames: names.shortNames,
    categories: names.categories,
    namespaced: spec.scope === 'Namespaced',
    verbs: VERBS,
    subresources: {
      ...(version.subresources?.status !== undefined ? { status: true } : {}),
      ...(scale ? { scale: { specReplicasPath: scale.specReplicasPath, statusReplicasPath: scale.statusReplicasPath, labelSelectorPath: scale.labelSelectorPath } } : {}),
    },
    storagePrefix: `/registry/${spec.group}/${spec.names.plural}`,
    schemaName,
    strategy: strategyFor(version),
    customResource: true,
    ...(storage ? { storageVersion: { group: spec.group, version: storage.name, kind: names.kind } } : {}),
  };
  if (spec.versions.length > 1 && storage) {
    const converter = createConverter({ conversion: spec.conversion, group: spec.group, kind: names.kind, objects: options.objects });
    const served = apiVersionOf(spec.group, version.name);
    const stored = apiVersionOf(spec.group, storage.name);
    type.storage = (backend) => convertingBackend(backend, converter, served, stored);
  }
  return { type, definitions: { [schemaName]: customResourceDefinitionSchema(spec.group, version.name, names.kind, version.schema?.openAPIV3Schema) } };
}
