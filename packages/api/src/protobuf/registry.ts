/**
 * The protobufjs Root built from our schema texts, and the table of top-level kinds the
 * decoder accepts (apiVersion + kind → message type).
 */
import protobuf from 'protobufjs';
import { META_SCHEMA, META_V1_SCHEMA, RESOURCE_SCHEMA, VALUE_TYPES_SCHEMA } from './schema-meta.js';
import { CORE_V1_SCHEMA } from './schema-core.js';
import { CORE_V1_POD_EXTRAS_SCHEMA } from './schema-core-pod.js';
import { APPS_V1_SCHEMA } from './schema-apps.js';
import { BATCH_V1_SCHEMA } from './schema-batch.js';
import { RBAC_V1_SCHEMA } from './schema-rbac.js';
import { NETWORKING_V1_SCHEMA } from './schema-networking.js';
import { AUTHENTICATION_V1_SCHEMA, POLICY_V1_SCHEMA, SCHEDULING_V1_SCHEMA } from './schema-misc.js';

const SCHEMAS = [
  META_SCHEMA,
  META_V1_SCHEMA,
  VALUE_TYPES_SCHEMA,
  RESOURCE_SCHEMA,
  CORE_V1_SCHEMA,
  CORE_V1_POD_EXTRAS_SCHEMA,
  APPS_V1_SCHEMA,
  BATCH_V1_SCHEMA,
  RBAC_V1_SCHEMA,
  NETWORKING_V1_SCHEMA,
  AUTHENTICATION_V1_SCHEMA,
  POLICY_V1_SCHEMA,
  SCHEDULING_V1_SCHEMA,
];

/** Schema package of each API group/version (the core group is "v1"). */
const PACKAGES: Record<string, string> = {
  v1: 'core.v1',
  'apps/v1': 'apps.v1',
  'batch/v1': 'batch.v1',
  'rbac.authorization.k8s.io/v1': 'rbac.v1',
  'networking.k8s.io/v1': 'networking.v1',
  'authentication.k8s.io/v1': 'authentication.v1',
  'policy/v1': 'policy.v1',
  'scheduling.k8s.io/v1': 'scheduling.v1',
};

/** Every apiVersion/kind pair decodeKubernetesProtobuf has a schema for. */
export const PROTOBUF_KINDS: ReadonlyArray<{ readonly apiVersion: string; readonly kind: string }> = [
  ['v1', 'Namespace'],
  ['v1', 'ConfigMap'],
  ['v1', 'Secret'],
  ['v1', 'ServiceAccount'],
  ['v1', 'Service'],
  ['v1', 'Pod'],
  ['v1', 'ResourceQuota'],
  ['apps/v1', 'Deployment'],
  ['apps/v1', 'ReplicaSet'],
  ['batch/v1', 'Job'],
  ['batch/v1', 'CronJob'],
  ['rbac.authorization.k8s.io/v1', 'Role'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
  ['rbac.authorization.k8s.io/v1', 'RoleBinding'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
  ['networking.k8s.io/v1', 'Ingress'],
  ['authentication.k8s.io/v1', 'TokenRequest'],
  ['policy/v1', 'PodDisruptionBudget'],
  ['scheduling.k8s.io/v1', 'PriorityClass'],
].map(([apiVersion, kind]) => ({ apiVersion: apiVersion!, kind: kind! }));

const KIND_KEYS = new Set(PROTOBUF_KINDS.map((k) => `${k.apiVersion}/${k.kind}`));

let root: protobuf.Root | undefined;

/** The resolved protobufjs Root holding every schema (built once, on first use). */
export function schemaRoot(): protobuf.Root {
  if (!root) {
    const r = new protobuf.Root();
    for (const text of SCHEMAS) protobuf.parse(text, r, { keepCase: true });
    r.resolveAll();
    root = r;
  }
  return root;
}

/** The message type for a top-level apiVersion/kind, or undefined when there is no schema. */
export function lookupKind(apiVersion: string, kind: string): protobuf.Type | undefined {
  if (!KIND_KEYS.has(`${apiVersion}/${kind}`)) return undefined;
  return schemaRoot().lookupType(`${PACKAGES[apiVersion]}.${kind}`);
}

/** Whether decodeKubernetesProtobuf can decode objects of this apiVersion and kind. */
export function hasProtobufSchema(apiVersion: string, kind: string): boolean {
  return KIND_KEYS.has(`${apiVersion}/${kind}`);
}

/** The runtime.Unknown envelope type. */
export function unknownType(): protobuf.Type {
  return schemaRoot().lookupType('runtime.Unknown');
}
