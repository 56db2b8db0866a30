/** apiextensions.k8s.io/v1 customresourcedefinitions: names defaults, basic validation, storedVersions. */
import { fieldInvalid, fieldNotSupported, fieldRequired, isDNS1123Label, isDNS1123Subdomain, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, child, createdAt, objs, setDefault, str, type Obj } from './util.js';

/** The table of kinds without their own printer: Name and Created At (rest.NewDefaultTableConvertor). */
export const CREATED_AT_TABLE: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Created At', type: 'date', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 },
  ],
  row: (obj) => [obj.metadata?.name ?? '', createdAt(obj)],
};

function specOf(obj: KubeObject): Obj {
  return (asObj(obj.spec) ?? {}) as Obj;
}

function storageVersion(spec: Obj): string | undefined {
  const v = objs(spec.versions).find((x) => x.storage === true);
  return v ? str(v.name) : undefined;
}

function recordStoredVersion(obj: KubeObject): void {
  const version = storageVersion(specOf(obj));
  const status = child(obj as Obj, 'status');
  const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as string[]) : [];
  if (version && !stored.includes(version)) status.storedVersions = [...stored, version];
}

function validateCRD(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = specOf(obj);
  const names = (asObj(spec.names) ?? {}) as Obj;
  const group = str(spec.group);
  const plural = str(names.plural);
  const name = obj.metadata?.name ?? '';
  if (name && name !== `${plural}.${group}`) out.push(fieldInvalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  if (!group) out.push(fieldRequired('spec.group'));
  else {
    for (const m of isDNS1123Subdomain(group)) out.push(fieldInvalid('spec.group', group, m));
    if (group.split('.').length < 2) out.push(fieldInvalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const scope = str(spec.scope);
  if (!scope) out.push(fieldRequired('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') out.push(fieldNotSupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  if (!plural) out.push(fieldRequired('spec.names.plural'));
  else for (const m of isDNS1123Label(plural)) out.push(fieldInvalid('spec.names.plural', plural, m));
  const singular = str(names.singular);
  if (singular) for (const m of isDNS1123Label(singular)) out.push(fieldInvalid('spec.names.singular', singular, m));
  if (!str(names.kind)) out.push(fieldRequired('spec.names.kind'));
  const versions = objs(spec.versions);
  if (versions.length === 0) out.push(fieldInvalid('spec.versions', [], 'must have exactly one version marked as storage version'));
  else if (versions.filter((v) => v.storage === true).length !== 1) {
    out.push({ type: 'FieldValueInvalid', field: 'spec.versions', message: 'Invalid value: []apiextensions.CustomResourceDefinitionVersion{...}: must have exactly one version marked as storage version' });
  }
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    const vn = str(v.name);
    if (!vn) out.push(fieldRequired(`spec.versions[${i}].name`));
    else for (const m of isDNS1123Label(vn)) out.push(fieldInvalid(`spec.versions[${i}].name`, vn, m));
    if (seen.has(vn)) out.push({ type: 'FieldValueDuplicate', field: `spec.versions[${i}].name`, message: `Duplicate value: "${vn}"` });
    seen.add(vn);
  });
  return out;
}

/** The customresourcedefinitions resource. */
export function crdResource(): ResourceType {
  return {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    listKind: 'CustomResourceDefinitionList',
    singular: 'customresourcedefinition',
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/apiextensions.k8s.io/customresourcedefinitions',
    schemaName: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    strategy: {
      generation: true,
      defaults(obj) {
        const spec = child(obj as Obj, 'spec');
        const names = child(spec, 'names');
        const kind = str(names.kind);
        if (!str(names.singular) && kind) names.singular = kind.toLowerCase();
        if (!str(names.listKind) && kind) names.listKind = `${kind}List`;
        setDefault(spec, 'conversion', { strategy: 'None' });
      },
      prepareForCreate(obj) {
        obj.status = {};
        recordStoredVersion(obj);
      },
      prepareForUpdate(obj) {
        recordStoredVersion(obj);
      },
      validate: validateCRD,
      table: CREATED_AT_TABLE,
    },
  };
}
