/**
 * Protobuf request bodies through the handler: every body captured from kubectl's typed
 * clients is created as Kubernetes creates it, and a kind that had no hand-written protobuf
 * schema before (Lease) decodes from the model.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KUBECTL_BODIES } from '@kplane/api/protobuf/kubectl-fixtures';
import { KUBERNETES_PROTOBUF_MEDIA_TYPE, lookupKind, unknownType } from '@kplane/api/protobuf';
import { send, startTestServer, type TestServer } from '../testing.js';

const NS = '/api/v1/namespaces/default';
/**
 * Where kubectl posts each captured body that kplane serves (not served: jobs,
 * resourcequotas, priorityclasses and the serviceaccounts/token; poddisruptionbudgets in eviction.test.ts
 * subresource; their decoding is covered in @kplane/api).
 */
const PATHS: Record<string, string> = {
  namespace: '/api/v1/namespaces',
  configmap: `${NS}/configmaps`,
  configmapBinary: `${NS}/configmaps`,
  secretGeneric: `${NS}/secrets`,
  secretDocker: `${NS}/secrets`,
  serviceaccount: `${NS}/serviceaccounts`,
  deployment: '/apis/apps/v1/namespaces/default/deployments',
  deploymentZero: '/apis/apps/v1/namespaces/default/deployments',
  deploymentPort: '/apis/apps/v1/namespaces/default/deployments',
  serviceClusterip: `${NS}/services`,
  serviceNodeport: `${NS}/services`,
  serviceLb: `${NS}/services`,
  serviceExternalname: `${NS}/services`,
  clusterrole: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  clusterroleRes: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  clusterroleAgg: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  clusterrolebinding: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  role: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
  rolebinding: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
  rolebindingCr: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
  ingress: '/apis/networking.k8s.io/v1/namespaces/default/ingresses',
  cronjob: '/apis/batch/v1/namespaces/default/cronjobs',
};

const hex = (s: string) => Buffer.from(s, 'hex');

describe('protobuf bodies from kubectl', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.close());

  const post = (path: string, body: Uint8Array) =>
    t.server.handle({ method: 'POST', path, query: {}, headers: { 'content-type': KUBERNETES_PROTOBUF_MEDIA_TYPE, accept: 'application/json' }, body });

  it('creates every captured body, with server-set metadata and status reset', async () => {
    const created: Record<string, any> = {};
    for (const [name, path] of Object.entries(PATHS)) {
      const r = await post(path, hex(KUBECTL_BODIES[name]!));
      const body = JSON.parse(Buffer.from(r.body ?? []).toString('utf8'));
      assert.equal(r.status, 201, `${name}: ${JSON.stringify(body).slice(0, 300)}`);
      assert.match(body.metadata.creationTimestamp, /Z$/, name); // the null kubectl sends is replaced
      created[name] = body;
    }
    assert.equal(created.deploymentZero.spec.replicas, 0);
    assert.equal(created.deployment.spec.replicas, 2);
    assert.equal(created.deployment.spec.strategy.type, 'RollingUpdate'); // defaulted from the empty strategy
    assert.equal(created.serviceClusterip.spec.ports[0].targetPort, 8080);
    assert.equal(created.serviceLb.spec.ports[0].targetPort, 'https');
    assert.deepEqual(created.clusterroleAgg.aggregationRule.clusterRoleSelectors, [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }]);
    assert.equal(created.configmapBinary.binaryData['bin.dat'], 'eP8AeQ==');
    assert.equal(created.cronjob.spec.concurrencyPolicy, 'Allow'); // defaulted
    const got = await send(t.server.handle, 'GET', '/apis/apps/v1/namespaces/default/deployments/zero');
    assert.equal(got.status, 200);
    assert.equal((got.body as any).spec.replicas, 0);
  });

  it('decodes kinds the hand-written schemas lacked (Lease) and refuses kinds outside the model with 415', async () => {
    const envelope = (apiVersion: string, kind: string, raw: Uint8Array) => {
      const unknown = unknownType();
      const body = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish();
      return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...body]);
    };
    const lease = lookupKind('coordination.k8s.io/v1', 'Lease')!;
    const raw = lease
      .encode(
        lease.fromObject({
          metadata: { name: 'holder' },
          spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: { seconds: 1767225600, nanos: 250_000_000 }, leaseTransitions: 0 },
        }),
      )
      .finish();
    const path = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const r = await post(path, envelope('coordination.k8s.io/v1', 'Lease', raw));
    const body = JSON.parse(Buffer.from(r.body ?? []).toString('utf8'));
    assert.equal(r.status, 201, JSON.stringify(body).slice(0, 300));
    assert.deepEqual(body.spec, { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.250000Z', leaseTransitions: 0 });
    const beta = await post(path, envelope('coordination.k8s.io/v1beta1', 'Lease', raw));
    assert.equal(beta.status, 415);
    const truncated = await post(path, envelope('coordination.k8s.io/v1', 'Lease', raw).subarray(0, 30));
    assert.equal(truncated.status, 400);
  });
});
