import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelTypes } from '../model/index.js';
import { decodeKubernetesProtobuf, hasProtobufSchema, KUBERNETES_PROTOBUF_MEDIA_TYPE, protobufKinds } from './index.js';
import { KUBECTL_BODIES } from './kubectl-fixtures.js';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

/** ObjectMeta as Go writes it: creationTimestamp is a struct, so a zero one is `null`, never dropped. */
const meta = (fields: Record<string, unknown>) => ({ ...fields, creationTimestamp: null });
const podTemplate = (labels: Record<string, string> | undefined, spec: Record<string, unknown>) => ({
  metadata: meta(labels ? { labels } : {}),
  spec,
});
/** ServiceStatus and IngressStatus hold a non-pointer LoadBalancerStatus. */
const lbStatus = { loadBalancer: {} };

/**
 * What Kubernetes' JSON encoding gives for each captured body: the output of
 * `kubectl create ... --dry-run=client -o json`, zero structs (`status: {}`, `resources: {}`,
 * `creationTimestamp: null`) and non-omitempty fields (`rules: null`) included.
 */
const EXPECTED: Record<string, unknown> = {
  namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: meta({ name: 'vitrine-ns' }), spec: {}, status: {} },
  configmap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta({ name: 'cm1' }), data: { a: '1', b: 'hello', empty: '' } },
  configmapBinary: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta({ name: 'cm2' }), data: { t: 'x' }, binaryData: { 'bin.dat': 'eP8AeQ==' } },
  secretGeneric: { apiVersion: 'v1', kind: 'Secret', metadata: meta({ name: 's1' }), data: { pass: 'cEBzcw==', user: 'YWRtaW4=' } },
  secretDocker: { apiVersion: 'v1', kind: 'Secret', metadata: meta({ name: 'd1' }), data: { '.dockerconfigjson': 'eyJhdXRocyI6eyJyZWcuZXhhbXBsZSI6eyJ1c2VybmFtZSI6InUiLCJwYXNzd29yZCI6InAiLCJlbWFpbCI6ImVAeC5pbyIsImF1dGgiOiJkVHB3In19fQ==' }, type: 'kubernetes.io/dockerconfigjson' },
  serviceaccount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta({ name: 'sa1' }) },
  deployment: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta({ name: 'vitrine', labels: { app: 'vitrine' } }), spec: { replicas: 2, selector: { matchLabels: { app: 'vitrine' } }, template: podTemplate({ app: 'vitrine' }, { containers: [{ name: 'agnhost', image: 'registry.k8s.io/e2e-test-images/agnhost:2.61', command: ['/agnhost', 'netexec'], resources: {} }] }), strategy: {} }, status: {} },
  deploymentZero: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta({ name: 'zero', labels: { app: 'zero' } }), spec: { replicas: 0, selector: { matchLabels: { app: 'zero' } }, template: podTemplate({ app: 'zero' }, { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] }), strategy: {} }, status: {} },
  deploymentPort: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta({ name: 'web', labels: { app: 'web' } }), spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }, { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 8080 }], resources: {} }, { name: 'busybox', image: 'busybox', resources: {} }] }), strategy: {} }, status: {} },
  serviceClusterip: { apiVersion: 'v1', kind: 'Service', metadata: meta({ name: 'svc1', labels: { app: 'svc1' } }), spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'svc1' }, type: 'ClusterIP' }, status: lbStatus },
  serviceNodeport: { apiVersion: 'v1', kind: 'Service', metadata: meta({ name: 'np', labels: { app: 'np' } }), spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }], selector: { app: 'np' }, type: 'NodePort' }, status: lbStatus },
  serviceLb: { apiVersion: 'v1', kind: 'Service', metadata: meta({ name: 'lb', labels: { app: 'lb' } }), spec: { ports: [{ name: '443-https', protocol: 'TCP', port: 443, targetPort: 'https' }], selector: { app: 'lb' }, type: 'LoadBalancer' }, status: lbStatus },
  serviceExternalname: { apiVersion: 'v1', kind: 'Service', metadata: meta({ name: 'ext', labels: { app: 'ext' } }), spec: { selector: { app: 'ext' }, type: 'ExternalName', externalName: 'example.com' }, status: lbStatus },
  clusterrole: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta({ name: 'cr1' }), rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }] },
  clusterroleRes: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta({ name: 'pod-reader' }), rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['a'] }] },
  // ClusterRole.rules has no omitempty: a nil list is written as null
  clusterroleAgg: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta({ name: 'agg' }), rules: null, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] } },
  clusterrolebinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: meta({ name: 'crb1' }), subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }, { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa1', namespace: 'ns1' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr1' } },
  role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta({ name: 'r1' }), rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] }] },
  rolebinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta({ name: 'rb1' }), subjects: [{ kind: 'ServiceAccount', name: 'sa1', namespace: 'default' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r1' } },
  rolebindingCr: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta({ name: 'rb2' }), subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } },
  job: { apiVersion: 'batch/v1', kind: 'Job', metadata: meta({ name: 'j1' }), spec: { template: podTemplate(undefined, { containers: [{ name: 'j1', image: 'busybox', command: ['echo', 'hi'], resources: {} }], restartPolicy: 'Never' }) }, status: {} },
  cronjob: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: meta({ name: 'cj1' }), spec: { schedule: '*/1 * * * *', jobTemplate: { metadata: meta({ name: 'cj1' }), spec: { template: podTemplate(undefined, { containers: [{ name: 'cj1', image: 'busybox', command: ['date'], resources: {} }], restartPolicy: 'OnFailure' }) } } }, status: {} },
  ingress: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta({ name: 'ing1', annotations: { a: 'b' } }), spec: { ingressClassName: 'nginx', defaultBackend: { service: { name: 'defsvc', port: { number: 80 } } }, tls: [{ hosts: ['foo.com'], secretName: 'my-cert' }], rules: [{ host: 'foo.com', http: { paths: [{ path: '/bar', pathType: 'Exact', backend: { service: { name: 'svc1', port: { number: 8080 } } } }] } }, { http: { paths: [{ path: '/path', pathType: 'Prefix', backend: { service: { name: 'svc2', port: { name: 'http' } } } }] } }] }, status: lbStatus },
  // TokenRequestSpec's fields and TokenRequestStatus.token have no omitempty
  token: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: meta({}), spec: { audiences: null, expirationSeconds: null, boundObjectRef: null }, status: { token: '', expirationTimestamp: null } },
  tokenOpts: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: meta({}), spec: { audiences: ['api', 'vault'], expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1', uid: '123' } }, status: { token: '', expirationTimestamp: null } },
  quota: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta({ name: 'q1' }), spec: { hard: { cpu: '1', memory: '1G', pods: '2' }, scopes: ['BestEffort'] }, status: {} },
  priorityclass: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: meta({ name: 'pc1' }), value: 1000, description: 'high', preemptionPolicy: 'Never' },
  priorityclassZero: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: meta({ name: 'pc0' }), value: 0, globalDefault: true, preemptionPolicy: 'PreemptLowerPriority' },
  // PodDisruptionBudgetStatus' counters have no omitempty
  pdbMin: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta({ name: 'pdb1' }), spec: { minAvailable: '50%', selector: { matchLabels: { app: 'x' } } }, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } },
  pdbMax: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta({ name: 'pdb2' }), spec: { selector: { matchLabels: { app: 'y' } }, maxUnavailable: 1 }, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } },
};

test('every captured kubectl body decodes to the object Kubernetes would produce', () => {
  assert.deepEqual(Object.keys(KUBECTL_BODIES).sort(), Object.keys(EXPECTED).sort());
  for (const [name, hex] of Object.entries(KUBECTL_BODIES)) {
    assert.deepEqual(decodeKubernetesProtobuf(bytes(hex)), EXPECTED[name], name);
  }
});

test('explicit zeros of pointer fields survive, zero omitempty scalars do not', () => {
  const zero = decodeKubernetesProtobuf(bytes(KUBECTL_BODIES.deploymentZero!)) as any;
  assert.equal(zero.spec.replicas, 0);
  assert.equal('minReadySeconds' in zero.spec, false); // sent as 0 on the wire, omitempty in Go
  assert.equal('paused' in zero.spec, false); // sent as false, omitempty in Go
  assert.deepEqual(zero.spec.strategy, {}); // sent as an empty message; a struct is never omitted
  const pc = decodeKubernetesProtobuf(bytes(KUBECTL_BODIES.priorityclassZero!)) as any;
  assert.equal(pc.value, 0); // no omitempty on PriorityClass.value
});

test('creationTimestamp sent as a zero Time is null and an empty status is {}, as Go writes them', () => {
  const ns = decodeKubernetesProtobuf(bytes(KUBECTL_BODIES.namespace!)) as any;
  assert.deepEqual(Object.keys(ns.metadata).sort(), ['creationTimestamp', 'name']);
  assert.equal(ns.metadata.creationTimestamp, null);
  assert.deepEqual(ns.status, {});
});

test('every kind of the model is decodable, and only kinds', () => {
  assert.equal(KUBERNETES_PROTOBUF_MEDIA_TYPE, 'application/vnd.kubernetes.protobuf');
  const kinds = protobufKinds();
  for (const { apiVersion, kind } of kinds) assert.ok(hasProtobufSchema(apiVersion, kind), `${apiVersion} ${kind}`);
  for (const t of modelTypes()) {
    for (const gvk of t.type.gvk ?? []) {
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      assert.ok(kinds.some((k) => k.apiVersion === apiVersion && k.kind === gvk.kind), `${apiVersion} ${gvk.kind}`);
    }
  }
  for (const [apiVersion, kind] of [['apps/v1', 'StatefulSet'], ['batch/v1', 'Job'], ['apiextensions.k8s.io/v1', 'CustomResourceDefinition'], ['coordination.k8s.io/v1', 'Lease']]) {
    assert.ok(hasProtobufSchema(apiVersion!, kind!), `${apiVersion} ${kind}`);
  }
  assert.equal(hasProtobufSchema('v1', 'PodSpec'), false);
  assert.equal(hasProtobufSchema('apps/v1beta1', 'StatefulSet'), false);
});
