import { it } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '@kplane/api/testing';
import { nodeUser, type RawRequest, type RawResponse } from '@kplane/api';
import { createMemoryBackend } from '@kplane/storage';
import { createApiServer } from './server.js';
import { forbiddenNodeLabels } from './node-restriction.js';

const json = (r: RawResponse) => JSON.parse(Buffer.from(r.body ?? []).toString('utf8')) as { message?: string; metadata?: { uid?: string; resourceVersion?: string } };
const body = (o: object) => ({ headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(o)) });

it('lets a node write only its own Node, Lease and pods (NodeRestriction) and read only its pods\' objects (Node authorizer)', async () => {
  const backend = createMemoryBackend();
  const server = createApiServer({ backend });
  await server.start();
  try {
    const admin = server.handle;
    const as = (node: string) => (req: RawRequest) => server.transportAs(nodeUser(node))(req);
    const n1 = as('n1');
    for (const name of ['s1', 's2']) assert.equal((await admin({ method: 'POST', path: '/api/v1/namespaces/default/secrets', ...body({ metadata: { name } }) })).status, 201);
    const mkPod = async (name: string, node: string, secret: string) => {
      const r = await admin({ method: 'POST', path: '/api/v1/namespaces/default/pods', ...body({ metadata: { name }, spec: { nodeName: node, containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', secret: { secretName: secret } }] } }) });
      assert.equal(r.status, 201);
      return json(r);
    };
    const p1 = await mkPod('p1', 'n1', 's1');
    await mkPod('p2', 'n2', 's2');
    // The graph follows the pods' watch cache: wait for it through the decision itself.
    await until('n1 to read s1', async () => (await n1({ method: 'GET', path: '/api/v1/namespaces/default/secrets/s1' })).status === 200, { intervalMs: 0 });

    const other = await n1({ method: 'GET', path: '/api/v1/namespaces/default/secrets/s2' });
    assert.deepEqual([other.status, json(other).message], [403, `secrets "s2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`]);
    assert.equal((await n1({ method: 'GET', path: '/api/v1/pods', query: { fieldSelector: 'spec.nodeName=n1' } })).status, 200);
    assert.equal((await n1({ method: 'GET', path: '/api/v1/pods' })).status, 403);

    // Its own Node; not another.
    assert.equal((await n1({ method: 'POST', path: '/api/v1/nodes', ...body({ metadata: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1', 'node.kubernetes.io/instance-type': 'sim' } } }) })).status, 201);
    const foreign = await n1({ method: 'POST', path: '/api/v1/nodes', ...body({ metadata: { name: 'n2' } }) });
    assert.deepEqual([foreign.status, json(foreign).message], [403, 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"']);
    const labelled = await n1({ method: 'POST', path: '/api/v1/nodes', ...body({ metadata: { name: 'n1', labels: { 'node-restriction.kubernetes.io/pci': 'true', 'node-role.kubernetes.io/control-plane': '' } } }) });
    assert.deepEqual([labelled.status, json(labelled).message], [403, 'nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-restriction.kubernetes.io/pci, node-role.kubernetes.io/control-plane']);

    // Its own Lease only.
    assert.equal((await n1({ method: 'POST', path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', ...body({ metadata: { name: 'n1' } }) })).status, 201);
    const lease = await n1({ method: 'POST', path: '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', ...body({ metadata: { name: 'n2' } }) });
    assert.deepEqual([lease.status, json(lease).message], [403, 'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node']);

    // Pods: status and deletion of its own only; no pod but a mirror pod.
    const patch = { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: Buffer.from('{"status":{"phase":"Running"}}') };
    assert.equal((await n1({ ...patch, path: '/api/v1/namespaces/default/pods/p1/status' })).status, 200);
    const status = await n1({ ...patch, path: '/api/v1/namespaces/default/pods/p2/status' });
    assert.deepEqual([status.status, json(status).message], [403, 'pods "p2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself']);
    const del = await n1({ method: 'DELETE', path: '/api/v1/namespaces/default/pods/p2' });
    assert.deepEqual([del.status, json(del).message], [403, 'pods "p2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself']);
    const create = await n1({ method: 'POST', path: '/api/v1/namespaces/default/pods', ...body({ metadata: { name: 'sneaky' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } }) });
    assert.deepEqual([create.status, json(create).message], [403, 'pods "sneaky" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods']);
    const update = await n1({ method: 'PATCH', path: '/api/v1/namespaces/default/pods/p1', headers: { 'content-type': 'application/merge-patch+json' }, body: Buffer.from('{"metadata":{"labels":{"a":"b"}}}') });
    assert.equal(update.status, 403);

    // Tokens only bound to its pods.
    const token = (ref: object) => n1({ method: 'POST', path: '/api/v1/namespaces/default/serviceaccounts/default/token', ...body({ spec: { boundObjectRef: ref } }) });
    await admin({ method: 'POST', path: '/api/v1/namespaces/default/serviceaccounts', ...body({ metadata: { name: 'default' } }) });
    const unbound = await token({});
    assert.equal(unbound.status, 403);
    assert.match(json(unbound).message ?? '', /no relationship found between node 'n1' and this object|node requested token not bound to a pod/);
    assert.ok([200, 202].includes((await n1({ method: 'DELETE', path: '/api/v1/namespaces/default/pods/p1' })).status), 'a node deletes its own pod');
    assert.ok(p1.metadata?.uid);
  } finally {
    await server.close();
    await backend.close();
  }
});

it('forbids the labels kube forbids a node to set on itself', () => {
  assert.deepEqual(forbiddenNodeLabels({ 'kubernetes.io/hostname': 'x', 'kubelet.kubernetes.io/x': '', 'foo.node.kubernetes.io/y': '', app: 'a', 'example.com/z': '' }), []);
  assert.deepEqual(forbiddenNodeLabels({ 'k8s.io/a': '', 'kubernetes.io/role': 'x', 'a.node-restriction.kubernetes.io/b': '' }), ['a.node-restriction.kubernetes.io/b', 'k8s.io/a', 'kubernetes.io/role']);
});

it('remembers decisions per identity until an RBAC change', async () => {
  const backend = createMemoryBackend();
  const server = createApiServer({ backend });
  await server.start();
  try {
    const alice = { username: 'alice', groups: ['system:authenticated'] };
    const get = () => server.transportAs(alice)({ method: 'GET', path: '/api/v1/namespaces/default/configmaps' });
    assert.equal((await get()).status, 403);
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/default';
    await server.handle({ method: 'POST', path: `${rbac}/roles`, ...body({ metadata: { name: 'r' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] }) });
    const b = await server.handle({ method: 'POST', path: `${rbac}/rolebindings`, ...body({ metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }] }) });
    await server.rbacSynced('rolebindings', json(b).metadata!.resourceVersion!);
    assert.equal((await get()).status, 200);
    const d = await server.handle({ method: 'DELETE', path: `${rbac}/roles/r` });
    assert.equal(d.status, 200);
    await until('the Role removal to forbid', async () => (await get()).status === 403, { intervalMs: 0 });
  } finally {
    await server.close();
    await backend.close();
  }
});

it('reads --authorization-mode as kube-apiserver does', async () => {
  const { parseAuthorizationModes } = await import('./server.js');
  assert.deepEqual(parseAuthorizationModes('Node,RBAC'), ['Node', 'RBAC']);
  assert.deepEqual(parseAuthorizationModes('AlwaysAllow'), ['AlwaysAllow']);
  assert.throws(() => parseAuthorizationModes('Node,ABAC'), /authorization-mode "ABAC" is not a valid mode/);
  assert.throws(() => parseAuthorizationModes('RBAC,RBAC'), /has mode specified more than once/);
});
