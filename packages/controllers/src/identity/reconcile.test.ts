import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { ClusterRoleBindings, ClusterRoles } from '@kplane/runtime';
import { startTestKplane, type TestKplane } from '@kplane/apiserver/testing';
import { controllerClusterRole, controllerClusterRoleBinding, controllerIdentity } from './policy.js';
import { ensureClusterRole, ensureClusterRoleBinding, ensureControllerIdentity } from './reconcile.js';

type Rbac = KubeObject & { rules?: unknown[]; subjects?: unknown[]; roleRef?: { name: string } };
let kp: TestKplane;
before(async () => {
  kp = await startTestKplane();
});
after(() => kp.close());

it('creates a controller identity, then reconciles its role and binding as kube reconciles bootstrap policy', async () => {
  const id = controllerIdentity('serviceaccount-controller')!;
  const account = await ensureControllerIdentity(kp.client, id);
  assert.equal(account.name, 'service-account-controller');
  assert.ok(account.uid);
  const roles = kp.client.resource<Rbac>(ClusterRoles);
  const bindings = kp.client.resource<Rbac>(ClusterRoleBindings);
  const name = 'system:controller:service-account-controller';
  const want = controllerClusterRole(id) as Rbac;

  // An administrator removes a rule and adds one: the missing rule comes back, the added one stays.
  const extra = { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] };
  const role = await roles.get(name);
  await roles.update({ ...role, rules: [extra] });
  const sa = await ensureControllerIdentity(kp.client, id);
  assert.equal(sa.uid, account.uid, 'the same account');
  assert.deepEqual((await roles.get(name)).rules, [extra, ...want.rules!]);

  // Marked autoupdate "false": left alone.
  const frozen = await roles.get(name);
  await roles.update({ ...frozen, metadata: { ...frozen.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [extra] });
  await ensureClusterRole(kp.client, want);
  assert.deepEqual((await roles.get(name)).rules, [extra]);

  // A binding that lost its subject gets it back; one bound to another role is replaced.
  const b = await bindings.get(name);
  await bindings.update({ ...b, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }] });
  await ensureClusterRoleBinding(kp.client, controllerClusterRoleBinding(id) as KubeObject);
  assert.deepEqual((await bindings.get(name)).subjects, [
    { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
    { kind: 'ServiceAccount', apiGroup: '', name: 'service-account-controller', namespace: 'kube-system' },
  ]);
  await bindings.delete(name);
  await bindings.create({ ...(controllerClusterRoleBinding(id) as Rbac), roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } } as never);
  await ensureClusterRoleBinding(kp.client, controllerClusterRoleBinding(id) as KubeObject);
  assert.equal((await bindings.get(name)).roleRef?.name, name);
});

it('reconciles again when another writer updated the role first', async () => {
  const id = controllerIdentity('replicaset-controller')!;
  await ensureControllerIdentity(kp.client, id);
  const name = 'system:controller:replicaset-controller';
  const roles = kp.client.resource<Rbac>(ClusterRoles);
  await roles.update({ ...(await roles.get(name)), rules: [] });
  let conflicts = 0;
  const racing = kp.clientWith(async (req, next) => {
    if (req.method === 'PUT' && decodeURIComponent(req.path).endsWith(`/clusterroles/${name}`) && conflicts++ === 0) {
      // Someone else writes in between: the first update meets a stale resourceVersion.
      const cur = await roles.get(name);
      await roles.update({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata?.labels, other: 'writer' } } });
    }
    return next(req);
  });
  await ensureClusterRole(racing, controllerClusterRole(id) as KubeObject);
  const after = await roles.get(name);
  assert.equal(conflicts, 2, 'one conflict, one retry');
  assert.deepEqual(after.rules, (controllerClusterRole(id) as Rbac).rules);
  assert.equal(after.metadata?.labels?.other, 'writer');
});
