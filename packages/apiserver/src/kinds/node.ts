/** core/v1 nodes (cluster-scoped, stored under /registry/minions) and serviceaccounts. */
import { fieldInvalid, fieldNotSupported, isQualifiedName, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, objs, str, type Obj } from './util.js';

function specOf(obj: KubeObject): Obj {
  return (asObj(obj.spec) ?? {}) as Obj;
}

function statusOf(obj: KubeObject): Obj {
  return (asObj(obj.status) ?? {}) as Obj;
}

/** printers.go findNodeRoles: node-role.kubernetes.io/<role> and kubernetes.io/role=<role> labels. */
export function nodeRoles(obj: KubeObject): string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(obj.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return [...roles].sort();
}

function nodeStatusCell(obj: KubeObject): string {
  const status: string[] = [];
  const ready = objs(statusOf(obj).conditions).find((c) => c.type === 'Ready');
  if (ready) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (specOf(obj).unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function address(obj: KubeObject, type: string): string {
  return str(objs(statusOf(obj).addresses).find((a) => a.type === type)?.address) || '<none>';
}

function validateNode(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  objs(specOf(obj).taints).forEach((t, i) => {
    const key = str(t.key);
    for (const m of isQualifiedName(key)) out.push(fieldInvalid(`spec.taints[${i}].key`, key, m));
    const effect = str(t.effect);
    if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      out.push(fieldNotSupported(`spec.taints[${i}].effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return out;
}

/** The nodes resource. */
export function nodeResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'nodes',
    kind: 'Node',
    listKind: 'NodeList',
    singular: 'node',
    shortNames: ['no'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/minions',
    schemaName: 'io.k8s.api.core.v1.Node',
    strategy: {
      generation: false,
      // Kubelets register nodes with their status; it is kept on create.
      resetStatusOnCreate: false,
      defaults(obj) {
        const status = asObj(obj.status);
        if (status && status.allocatable === undefined && asObj(status.capacity)) status.allocatable = { ...(status.capacity as Obj) };
      },
      validate: validateNode,
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'Status', type: 'string', description: 'The status of the node', priority: 0 },
          { name: 'Roles', type: 'string', description: 'The roles of the node', priority: 0 },
          AGE_COLUMN,
          { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.', priority: 0 },
          { name: 'Internal-IP', type: 'string', description: 'List of addresses reachable to the node.', priority: 1 },
          { name: 'External-IP', type: 'string', description: 'List of addresses reachable to the node.', priority: 1 },
          { name: 'OS-Image', type: 'string', description: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', priority: 1 },
          { name: 'Kernel-Version', type: 'string', description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", priority: 1 },
          { name: 'Container-Runtime', type: 'string', description: 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', priority: 1 },
        ],
        row(obj, now) {
          const info = (asObj(statusOf(obj).nodeInfo) ?? {}) as Obj;
          const roles = nodeRoles(obj).join(',');
          return [
            obj.metadata?.name ?? '',
            nodeStatusCell(obj),
            roles || '<none>',
            translateTimestampSince(obj.metadata?.creationTimestamp, now),
            str(info.kubeletVersion),
            address(obj, 'InternalIP'),
            address(obj, 'ExternalIP'),
            str(info.osImage) || '<unknown>',
            str(info.kernelVersion) || '<unknown>',
            str(info.containerRuntimeVersion) || '<unknown>',
          ];
        },
      },
      fieldSelectors: { 'spec.unschedulable': (o) => String(specOf(o).unschedulable === true) },
    },
  };
}

/** The serviceaccounts resource. */
export function serviceAccountResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    listKind: 'ServiceAccountList',
    singular: 'serviceaccount',
    shortNames: ['sa'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/serviceaccounts',
    schemaName: 'io.k8s.api.core.v1.ServiceAccount',
    strategy: {
      generation: false,
      returnDeletedObject: true,
      table: {
        columns: [NAME_COLUMN, { name: 'Secrets', type: 'string', description: 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.', priority: 0 }, AGE_COLUMN],
        row: (obj, now) => [obj.metadata?.name ?? '', objs((obj as Obj).secrets).length, translateTimestampSince(obj.metadata?.creationTimestamp, now)],
      },
    },
  };
}
