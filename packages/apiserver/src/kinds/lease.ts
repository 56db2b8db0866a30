/** coordination.k8s.io/v1 leases. */
import { fieldInvalid, fieldRequired, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, str, type Obj } from './util.js';

function validateLease(obj: KubeObject): StatusCause[] {
  const spec = (asObj(obj.spec) ?? {}) as Obj;
  const out: StatusCause[] = [];
  const d = spec.leaseDurationSeconds;
  if (d !== undefined && d !== null && (typeof d !== 'number' || d <= 0)) out.push(fieldInvalid('spec.leaseDurationSeconds', d, 'must be greater than 0'));
  const t = spec.leaseTransitions;
  if (typeof t === 'number' && t < 0) out.push(fieldInvalid('spec.leaseTransitions', t, 'must be greater than or equal to 0'));
  if (spec.preferredHolder && !spec.strategy) out.push(fieldRequired('spec.strategy', 'must be specified when preferredHolder is set'));
  return out;
}

/** The leases resource. */
export function leaseResource(): ResourceType {
  return {
    group: 'coordination.k8s.io',
    version: 'v1',
    resource: 'leases',
    kind: 'Lease',
    listKind: 'LeaseList',
    singular: 'lease',
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/leases',
    schemaName: 'io.k8s.api.coordination.v1.Lease',
    strategy: {
      generation: false,
      validate: validateLease,
      table: {
        columns: [NAME_COLUMN, { name: 'Holder', type: 'string', description: 'holderIdentity contains the identity of the holder of a current lease.', priority: 0 }, AGE_COLUMN],
        row: (obj, now) => [obj.metadata?.name ?? '', str(asObj(obj.spec)?.holderIdentity), translateTimestampSince(obj.metadata?.creationTimestamp, now)],
      },
    },
  };
}
