/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition shapes kplane reads, with tolerant
 * accessors (a CRD under validation may be malformed) and the field-path helpers validation
 * messages use.
 */
import type { KubeObject, SchemaObject } from '@kplane/api';

/** spec.names / status.acceptedNames. */
export interface CRDNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

/** One additionalPrinterColumns entry. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** subresources of a version. */
export interface CRDSubresources {
  status?: Record<string, never>;
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

/** One entry of spec.versions. */
export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: SchemaObject };
  subresources?: CRDSubresources;
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath: string }[];
}

/** spec.conversion.webhook.clientConfig. */
export interface WebhookClientConfig {
  url?: string;
  caBundle?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
}

/** spec.conversion. */
export interface CRDConversion {
  strategy: 'None' | 'Webhook' | string;
  webhook?: { clientConfig?: WebhookClientConfig; conversionReviewVersions?: string[] };
}

/** spec of a CustomResourceDefinition. */
export interface CRDSpec {
  group: string;
  names: CRDNames;
  scope: 'Namespaced' | 'Cluster' | string;
  versions: CRDVersion[];
  conversion?: CRDConversion;
  preserveUnknownFields?: boolean;
}

/** One status condition. */
export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** A CustomResourceDefinition object. */
export interface CustomResourceDefinition extends KubeObject {
  spec: CRDSpec;
  status?: { conditions?: CRDCondition[]; acceptedNames?: CRDNames; storedVersions?: string[] };
}

/** The finalizer that holds a deleted CRD until all its objects are gone. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The spec of a (possibly malformed) CRD, with every field of the expected type or absent. */
export function crdSpec(obj: KubeObject): CRDSpec {
  const s = isObj(obj.spec) ? obj.spec : {};
  const names = isObj(s.names) ? (s.names as unknown as CRDNames) : ({} as CRDNames);
  const versions = Array.isArray(s.versions) ? (s.versions.filter(isObj) as unknown as CRDVersion[]) : [];
  return {
    group: typeof s.group === 'string' ? s.group : '',
    names,
    scope: typeof s.scope === 'string' ? s.scope : '',
    versions,
    conversion: isObj(s.conversion) ? (s.conversion as unknown as CRDConversion) : undefined,
    preserveUnknownFields: typeof s.preserveUnknownFields === 'boolean' ? s.preserveUnknownFields : undefined,
  };
}

/** The version objects are stored in. */
export function storageVersionOf(spec: CRDSpec): CRDVersion | undefined {
  return spec.versions.find((v) => v.storage === true);
}

/** Is a condition of the CRD True? */
export function conditionTrue(crd: KubeObject, type: string): boolean {
  const conds = (crd.status as { conditions?: CRDCondition[] } | undefined)?.conditions;
  return Array.isArray(conds) && conds.some((c) => c?.type === type && c.status === 'True');
}

/**
 * Kubernetes validates a v1 CRD in its internal form, where per-version schemas, subresources
 * and columns that are identical in every version move to the top of the spec. Messages then
 * name `spec.validation.openAPIV3Schema`, `spec.subresources`, `spec.additionalPrinterColumns`.
 */
export interface HoistedLayout {
  schema: boolean;
  subresources: boolean;
  columns: boolean;
  selectableFields: boolean;
}

/** Which per-version fields are identical in every version (and so reported at the top). */
export function hoistedLayout(spec: CRDSpec): HoistedLayout {
  const same = (pick: (v: CRDVersion) => unknown, nonEmpty: (x: unknown) => boolean) => {
    if (spec.versions.length === 0) return false;
    const first = JSON.stringify(pick(spec.versions[0]!) ?? null);
    return spec.versions.every((v) => nonEmpty(pick(v)) && JSON.stringify(pick(v) ?? null) === first);
  };
  const present = (x: unknown) => x !== undefined && x !== null;
  const nonEmptyList = (x: unknown) => Array.isArray(x) && x.length > 0;
  return {
    schema: same((v) => v.schema, present),
    subresources: same((v) => v.subresources, present),
    columns: same((v) => v.additionalPrinterColumns, nonEmptyList),
    selectableFields: same((v) => v.selectableFields, nonEmptyList),
  };
}

/** `path.name` (field.Path.Child). */
export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** `path[key]` (field.Path.Key / Index). */
export function key(path: string, k: string | number): string {
  return `${path}[${k}]`;
}

/** The group a CRD's OpenAPI definitions are named by: "demo.example.com" → "com.example.demo". */
export function reversedGroup(group: string): string {
  return group.split('.').reverse().join('.');
}
