/** apps/v1 controllerrevisions: the immutable snapshots of a StatefulSet's or DaemonSet's template. */
import { fieldInvalid, FIELD_IMMUTABLE_ERROR_MSG, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, semanticEqual } from './util.js';

/** "kind.group/name" of the controller owning a revision, as kubectl prints it ("<none>" without one). */
function controllerCell(obj: KubeObject): string {
  const ref = obj.metadata?.ownerReferences?.find((r) => r.controller === true);
  if (!ref) return '<none>';
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  return `${(group ? `${ref.kind}.${group}` : ref.kind).toLowerCase()}/${ref.name}`;
}

/** ValidateControllerRevision / ValidateControllerRevisionUpdate: revision ≥ 0, data immutable. */
function validateRevision(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const out: StatusCause[] = [];
  const revision = obj.revision;
  if (typeof revision === 'number' && revision < 0) out.push(fieldInvalid('revision', revision, 'must be greater than or equal to 0'));
  if (old && !semanticEqual(obj.data, old.data)) out.push(fieldInvalid('data', obj.data, FIELD_IMMUTABLE_ERROR_MSG));
  return out;
}

/** The controllerrevisions resource. */
export function controllerRevisionResource(): ResourceType {
  return {
    group: 'apps',
    version: 'v1',
    resource: 'controllerrevisions',
    kind: 'ControllerRevision',
    listKind: 'ControllerRevisionList',
    singular: 'controllerrevision',
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/controllerrevisions',
    schemaName: 'io.k8s.api.apps.v1.ControllerRevision',
    strategy: {
      generation: false,
      validate: validateRevision,
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'Controller', type: 'string', description: 'Controller of the object', priority: 0 },
          { name: 'Revision', type: 'string', description: 'Revision indicates the revision of the state represented by Data.', priority: 0 },
          AGE_COLUMN,
        ],
        row: (obj, now) => [obj.metadata?.name ?? '', controllerCell(obj), typeof obj.revision === 'number' ? obj.revision : 0, translateTimestampSince(obj.metadata?.creationTimestamp, now)],
      },
    },
  };
}
