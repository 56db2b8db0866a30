import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nodeUser, type KubeObject } from '@kplane/api';
import { RbacAuthorizer } from '../rbac/authorizer.js';
import { forbiddenError } from '../rbac/rules.js';
import type { AuthorizationAttributes } from '../types.js';
import { NodeAuthorizer, unionAuthorizer } from './authorizer.js';
import { NodeGraph, podReferences } from './graph.js';

function pod(ns: string, name: string, node: string | undefined, spec: object = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: ns, name }, spec: { ...(node ? { nodeName: node } : {}), containers: [{ name: 'c', image: 'i' }], ...spec } } as KubeObject;
}

const p1 = pod('default', 'p1', 'n1', {
  serviceAccountName: 'sa1',
  imagePullSecrets: [{ name: 'pull' }],
  volumes: [
    { name: 'a', secret: { secretName: 's1' } },
    { name: 'b', configMap: { name: 'c1' } },
    { name: 'c', persistentVolumeClaim: { claimName: 'v1' } },
    { name: 'd', projected: { sources: [{ secret: { name: 'proj-s' } }, { configMap: { name: 'proj-c' } }] } },
    { name: 'e', ephemeral: { volumeClaimTemplate: { spec: {} } } },
  ],
  containers: [{ name: 'c', image: 'i', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'env-s', key: 'k' } } }], envFrom: [{ configMapRef: { name: 'envfrom-c' } }] }],
});
const p2 = pod('default', 'p2', 'n2', { volumes: [{ name: 'a', secret: { secretName: 's2' } }] });
const pending = pod('default', 'pending', undefined, { volumes: [{ name: 'a', secret: { secretName: 'pending-s' } }] });

function authorizers() {
  const graph = new NodeGraph();
  for (const p of [p1, p2, pending]) graph.setPod(p);
  const node = new NodeAuthorizer(graph);
  const rbac = new RbacAuthorizer();
  return { graph, node, union: unionAuthorizer([node, rbac]) };
}

const n1 = nodeUser('n1');
const res = (verb: string, resource: string, namespace: string | undefined, name?: string, extra: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes => {
  const [r, sub] = resource.split('/');
  const group = r === 'leases' ? 'coordination.k8s.io' : r === 'csinodes' || r === 'volumeattachments' ? 'storage.k8s.io' : '';
  return { user: n1, verb, resourceRequest: true, apiGroup: group, apiVersion: 'v1', resource: r, ...(sub ? { subresource: sub } : {}), ...(namespace ? { namespace } : {}), ...(name ? { name } : {}), ...extra };
};

test('finds the objects a pod references, as kube pod visitors do', () => {
  assert.deepEqual(podReferences(p1).map((r) => r.join(':')).sort(), [
    'configmap:c1', 'configmap:envfrom-c', 'configmap:proj-c', 'persistentvolumeclaim:p1-e', 'persistentvolumeclaim:v1',
    'secret:env-s', 'secret:proj-s', 'secret:pull', 'secret:s1', 'serviceaccount:sa1',
  ]);
});

// [attributes, allowed, reason] — kube's NodeAuthorizer with AuthorizeNodeWithSelectors.
const NO_REL = "no relationship found between node 'n1' and this object";
const table: [string, AuthorizationAttributes, boolean, string][] = [
  ['secret of its pod', res('get', 'secrets', 'default', 's1'), true, ''],
  ['image pull secret', res('get', 'secrets', 'default', 'pull'), true, ''],
  ['projected secret', res('get', 'secrets', 'default', 'proj-s'), true, ''],
  ['env secret', res('get', 'secrets', 'default', 'env-s'), true, ''],
  ['watch one secret by name', res('watch', 'secrets', 'default', 's1'), true, ''],
  ['secret of another node\'s pod', res('get', 'secrets', 'default', 's2'), false, NO_REL],
  ['secret of an unscheduled pod', res('get', 'secrets', 'default', 'pending-s'), false, NO_REL],
  ['secret in another namespace', res('get', 'secrets', 'other', 's1'), false, NO_REL],
  ['list all secrets', res('list', 'secrets', 'default'), false, 'No Object name found'],
  ['update a secret', res('update', 'secrets', 'default', 's1'), false, 'can only read resources of this type'],
  ['secrets across namespaces', res('list', 'secrets', undefined), false, 'can only read namespaced object of this type'],
  ['configmap of its pod', res('get', 'configmaps', 'default', 'c1'), true, ''],
  ['envFrom configmap', res('get', 'configmaps', 'default', 'envfrom-c'), true, ''],
  ['other configmap', res('get', 'configmaps', 'default', 'kube-root-ca.crt'), false, NO_REL],
  ['pvc of its pod', res('get', 'persistentvolumeclaims', 'default', 'v1'), true, ''],
  ['ephemeral pvc', res('get', 'persistentvolumeclaims', 'default', 'p1-e'), true, ''],
  ['list pvcs', res('list', 'persistentvolumeclaims', 'default'), false, 'can only get individual resources of this type'],
  ['pvc status update', res('update', 'persistentvolumeclaims/status', 'default', 'v1'), true, ''],
  ['pvc status get', res('get', 'persistentvolumeclaims/status', 'default', 'v1'), false, 'can only get/update/patch this type'],
  ['token of its pod\'s account', res('create', 'serviceaccounts/token', 'default', 'sa1'), true, ''],
  ['token of another account', res('create', 'serviceaccounts/token', 'default', 'default'), false, NO_REL],
  ['get a serviceaccount', res('get', 'serviceaccounts', 'default', 'sa1'), false, 'can only create tokens for individual service accounts'],
  ['update a serviceaccount', res('create', 'serviceaccounts', 'default', 'sa1'), false, 'can only create token subresource of serviceaccount'],
  ['its own Node', res('get', 'nodes', undefined, 'n1'), true, ''],
  ['watch its own Node by name', res('watch', 'nodes', undefined, 'n1'), true, ''],
  ['another Node', res('get', 'nodes', undefined, 'n2'), false, "node 'n1' cannot read 'n2', only its own Node object"],
  ['all Nodes', res('list', 'nodes', undefined), false, "node 'n1' cannot read all nodes, only its own Node object"],
  ['create a Node', res('create', 'nodes', undefined), true, ''],
  ['Node status', res('patch', 'nodes/status', undefined, 'n1'), true, ''],
  ['delete a Node', res('delete', 'nodes', undefined, 'n1'), false, ''],
  ['its pods by field selector', res('watch', 'pods', undefined, undefined, { fieldSelector: 'spec.nodeName=n1' }), true, ''],
  ['pods of another node', res('list', 'pods', undefined, undefined, { fieldSelector: 'spec.nodeName=n2' }), false, 'can only list/watch pods with spec.nodeName field selector'],
  ['all pods', res('list', 'pods', 'default'), false, 'can only list/watch pods with spec.nodeName field selector'],
  ['get its pod', res('get', 'pods', 'default', 'p1'), true, ''],
  ['get another node\'s pod', res('get', 'pods', 'default', 'p2'), false, NO_REL],
  ['pod status', res('update', 'pods/status', 'default', 'p2'), true, ''],
  ['evict', res('create', 'pods/eviction', 'default', 'p1'), true, ''],
  ['delete a pod', res('delete', 'pods', 'default', 'p1'), true, ''],
  ['pod logs', res('get', 'pods/log', 'default', 'p1'), false, ''],
  ['its Lease', res('update', 'leases', 'kube-node-lease', 'n1'), true, ''],
  ['create a Lease', res('create', 'leases', 'kube-node-lease'), true, ''],
  ['another Lease', res('get', 'leases', 'kube-node-lease', 'n2'), false, 'can only access node lease with the same name as the requesting node'],
  ['Lease elsewhere', res('get', 'leases', 'kube-system', 'n1'), false, 'can only access leases in the "kube-node-lease" system namespace'],
  ['list Leases', res('list', 'leases', 'kube-node-lease'), false, 'can only get, create, update, patch, or delete a node lease'],
  ['its CSINode', res('get', 'csinodes', undefined, 'n1'), true, ''],
  ['events', res('create', 'events', 'default'), true, ''],
  ['services (node rules)', res('list', 'services', undefined), true, ''],
  ['deployments', { ...res('list', 'deployments', 'default'), apiGroup: 'apps' }, false, ''],
  ['token review', { ...res('create', 'tokenreviews', undefined), apiGroup: 'authentication.k8s.io' }, true, ''],
];

test('decides node requests as kube-apiserver\'s Node authorizer', () => {
  const { union } = authorizers();
  const got = table.map(([, attrs]) => union.authorize(attrs));
  assert.deepEqual(got.map((d, i) => [table[i]![0], d.allowed, d.reason]), table.map(([what, , allowed, reason]) => [what, allowed, reason]));
});

test('has no opinion on other users, and refuses a node identity without a name', () => {
  const { node } = authorizers();
  assert.deepEqual(node.authorize({ ...res('get', 'secrets', 'default', 's1'), user: { username: 'system:node:n1', groups: ['system:authenticated'] } }), { allowed: false, reason: '' });
  assert.deepEqual(node.authorize({ ...res('get', 'secrets', 'default', 's1'), user: { username: 'system:node:', groups: ['system:nodes'] } }), { allowed: false, reason: 'unknown node for user "system:node:"' });
  assert.equal(node.identity({ username: 'alice', groups: [] }), null);
  assert.equal(node.identity(n1), undefined, 'node decisions follow the graph: never remembered');
});

test('follows pods as they are bound, moved and deleted', () => {
  const { graph, union } = authorizers();
  const get = res('get', 'secrets', 'default', 's2');
  assert.equal(union.authorize(get).allowed, false);
  graph.setPod(pod('default', 'p3', 'n1', { volumes: [{ name: 'a', secret: { secretName: 's2' } }] }));
  assert.equal(union.authorize(get).allowed, true);
  graph.deletePod('default', 'p3');
  assert.equal(union.authorize(get).allowed, false);
  // The same pod moved to another node: the old relations go.
  graph.setPod(pod('default', 'p1', 'n2', {}));
  assert.equal(union.authorize(res('get', 'secrets', 'default', 's1')).allowed, false);
});

test('refuses with kube-apiserver\'s 403 message for the node', () => {
  const { union } = authorizers();
  const attrs = res('get', 'secrets', 'default', 's2');
  assert.equal(forbiddenError(attrs, union.authorize(attrs).reason).message, `secrets "s2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": ${NO_REL}`);
});

test('the union remembers decisions only under an identity that tells users apart', () => {
  const { node, union } = authorizers();
  const alice = { username: 'alice', groups: ['system:authenticated'] };
  const bob = { username: 'bob', groups: ['system:authenticated'] };
  assert.ok(union.identity!(alice));
  assert.notEqual(union.identity!(alice), union.identity!(bob));
  assert.equal(union.identity!(n1), undefined);
  assert.equal(unionAuthorizer([node]).identity!(alice), undefined);
});
