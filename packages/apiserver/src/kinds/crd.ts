/**
 * apiextensions.k8s.io/v1 customresourcedefinitions: names defaults, stored versions, full
 * validation (see ../crd/crd-validation.ts) and the cleanup finalizer a DELETE adds, which
 * holds the CRD until the CRD controller has deleted every custom object.
 */
import type { KubeObject } from '@kplane/api';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { holdsCelRules, loadCel } from '../crd/cel/load.js';
import { CLEANUP_FINALIZER } from '../crd/crd-types.js';
import { validateCustomResourceDefinition } from '../crd/crd-validation.js';
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

/** Adds the storage version to status.storedVersions (as PrepareForCreate/PrepareForUpdate do). */
function recordStoredVersion(obj: KubeObject): void {
  const version = storageVersion(specOf(obj));
  if (!version) return;
  const status = child(obj as Obj, 'status');
  const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as string[]) : [];
  if (!stored.includes(version)) status.storedVersions = [...stored, version];
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
      allowUnconditionalUpdate: false,
      generation: true,
      defaults(obj) {
        const spec = child(obj as Obj, 'spec');
        const names = child(spec, 'names');
        const kind = str(names.kind);
        if (!str(names.singular) && kind) names.singular = kind.toLowerCase();
        if (!str(names.listKind) && kind) names.listKind = `${kind}List`;
        setDefault(spec, 'conversion', { strategy: 'None' });
        // apiextensions/v1 defaults a conversion webhook's service port to 443.
        const service = asObj(asObj(asObj(asObj(spec.conversion)?.webhook)?.clientConfig)?.service);
        if (service) setDefault(service, 'port', 443);
        recordStoredVersion(obj);
      },
      validate: (obj, old) => validateCustomResourceDefinition(obj, old),
      // Rules are compiled by validation: the CEL library is loaded first, only for a CRD that has some.
      beforeValidate: (obj) => (holdsCelRules(obj.spec) ? loadCel() : undefined),
      // The first DELETE only marks the CRD and adds the cleanup finalizer.
      deletionHeld: (obj) => !obj.metadata?.deletionTimestamp,
      prepareForDelete(obj) {
        const m = obj.metadata ?? (obj.metadata = {});
        const finalizers = m.finalizers ?? [];
        if (!finalizers.includes(CLEANUP_FINALIZER)) m.finalizers = [...finalizers, CLEANUP_FINALIZER];
      },
      table: CREATED_AT_TABLE,
    },
  };
}
