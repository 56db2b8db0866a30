/** core/v1 namespaces: the kubernetes finalizer, the metadata.name label, phase Active. */
import { forbidden, nameIsDNSLabel, type KubeObject } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { VERBS_NO_DELETECOLLECTION, asObj, child, str, type Obj } from './util.js';

/** The label kube-apiserver puts on every namespace, holding its name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

function phase(obj: KubeObject): string {
  return str(asObj(obj.status)?.phase);
}

/** Namespaces that kube-apiserver refuses to delete. */
const IMMORTAL = ['default', 'kube-system', 'kube-public'];

/** The namespaces resource. */
export function namespaceResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    listKind: 'NamespaceList',
    singular: 'namespace',
    shortNames: ['ns'],
    namespaced: false,
    verbs: VERBS_NO_DELETECOLLECTION,
    subresources: { status: true },
    storagePrefix: '/registry/namespaces',
    schemaName: 'io.k8s.api.core.v1.Namespace',
    strategy: {
      generation: false,
      returnDeletedObject: true,
      defaults(obj) {
        const meta = child(obj as Obj, 'metadata');
        const name = str(meta.name);
        if (name) child(meta, 'labels')[NAMESPACE_NAME_LABEL] = name;
        if (obj.status === undefined) obj.status = { phase: 'Active' };
      },
      prepareForCreate(obj) {
        const spec = child(obj as Obj, 'spec');
        const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as string[]) : [];
        if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
        obj.status = { phase: 'Active' };
      },
      // spec.finalizers (the namespace controller's "kubernetes") hold a deleted namespace in
      // Terminating until they are removed through the finalize subresource.
      deletionHeld(obj) {
        const finalizers = asObj(obj.spec)?.finalizers;
        return Array.isArray(finalizers) && finalizers.length > 0;
      },
      prepareForDelete(obj) {
        child(obj as Obj, 'status').phase = 'Terminating';
      },
      nameValidator: nameIsDNSLabel,
      beforeDelete(obj) {
        const name = obj.metadata?.name ?? '';
        if (IMMORTAL.includes(name)) throw forbidden('', 'namespaces', name, 'this namespace may not be deleted');
      },
      table: {
        columns: [NAME_COLUMN, { name: 'Status', type: 'string', description: 'The status of the namespace', priority: 0 }, AGE_COLUMN],
        row: (obj, now) => [obj.metadata?.name ?? '', phase(obj), translateTimestampSince(obj.metadata?.creationTimestamp, now)],
      },
      fieldSelectors: { 'status.phase': phase },
    },
  };
}
