import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeKubernetesProtobuf, hasProtobufSchema, KUBERNETES_PROTOBUF_MEDIA_TYPE, PROTOBUF_KINDS } from './index.js';
import { KUBECTL_BODIES } from './kubectl-fixtures.js';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

/**
 * What Kubernetes' JSON encoding gives for each captured body (checked against
 * `kubectl create ... --dry-run=client -o json`), minus the zero values Go prints for
 * non-omitempty structs (`creationTimestamp: null`, `status: {}`, `resources: {}`, ...).
 */
const EXPECTED: Record<string, unknown> = {
  namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'vitrine-ns' } },
  configmap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { a: '1', b: 'hello', empty: '' } },
  configmapBinary: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2' }, data: { t: 'x' }, binaryData: { 'bin.dat': 'eP8AeQ==' } },
  secretGeneric: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, data: { pass: 'cEBzcw==', user: 'YWRtaW4=' } },
  secretDocker: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'd1' }, data: { '.dockerconfigjson': 'eyJhdXRocyI6eyJyZWcuZXhhbXBsZSI6eyJ1c2VybmFtZSI6InUiLCJwYXNzd29yZCI6InAiLCJlbWFpbCI6ImVAeC5pbyIsImF1dGgiOiJkVHB3In19fQ==' }, type: 'kubernetes.io/dockerconfigjson' },
  serviceaccount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } },
  deployment: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'vitrine', labels: { app: 'vitrine' } }, spec: { replicas: 2, selector: { matchLabels: { app: 'vitrine' } }, template: { metadata: { labels: { app: 'vitrine' } }, spec: { containers: [{ name: 'agnhost', image: 'registry.k8s.io/e2e-test-images/agnhost:2.61', command: ['/agnhost', 'netexec'] }] } } } },
  deploymentZero: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'zero', labels: { app: 'zero' } }, spec: { replicas: 0, selector: { matchLabels: { app: 'zero' } }, template: { metadata: { labels: { app: 'zero' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } } },
  deploymentPort: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 8080 }] }, { name: 'busybox', image: 'busybox' }] } } } },
  serviceClusterip: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc1', labels: { app: 'svc1' } }, spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: 'svc1' }, type: 'ClusterIP' } },
  serviceNodeport: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'np', labels: { app: 'np' } }, spec: { ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }], selector: { app: 'np' }, type: 'NodePort' } },
  serviceLb: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb', labels: { app: 'lb' } }, spec: { ports: [{ name: '443-https', protocol: 'TCP', port: 443, targetPort: 'https' }], selector: { app: 'lb' }, type: 'LoadBalancer' } },
  serviceExternalname: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext', labels: { app: 'ext' } }, spec: { selector: { app: 'ext' }, type: 'ExternalName', externalName: 'example.com' } },
  clusterrole: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'cr1' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }] },
  clusterroleRes: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }, { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['a'] }] },
  clusterroleAgg: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] } },
  clusterrolebinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'crb1' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }, { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa1', namespace: 'ns1' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr1' } },
  role: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r1' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] }] },
  rolebinding: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb1' }, subjects: [{ kind: 'ServiceAccount', name: 'sa1', namespace: 'default' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r1' } },
  rolebindingCr: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'rb2' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' } },
  job: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j1' }, spec: { template: { spec: { containers: [{ name: 'j1', image: 'busybox', command: ['echo', 'hi'] }], restartPolicy: 'Never' } } } },
  cronjob: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'cj1' }, spec: { schedule: '*/1 * * * *', jobTemplate: { metadata: { name: 'cj1' }, spec: { template: { spec: { containers: [{ name: 'cj1', image: 'busybox', command: ['date'] }], restartPolicy: 'OnFailure' } } } } } },
  ingress: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'ing1', annotations: { a: 'b' } }, spec: { ingressClassName: 'nginx', defaultBackend: { service: { name: 'defsvc', port: { number: 80 } } }, tls: [{ hosts: ['foo.com'], secretName: 'my-cert' }], rules: [{ host: 'foo.com', http: { paths: [{ path: '/bar', pathType: 'Exact', backend: { service: { name: 'svc1', port: { number: 8080 } } } }] } }, { http: { paths: [{ path: '/path', pathType: 'Prefix', backend: { service: { name: 'svc2', port: { name: 'http' } } } }] } }] } },
  token: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' },
  tokenOpts: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['api', 'vault'], expirationSeconds: 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p1', uid: '123' } } },
  quota: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q1' }, spec: { hard: { cpu: '1', memory: '1G', pods: '2' }, scopes: ['BestEffort'] } },
  priorityclass: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'pc1' }, value: 1000, description: 'high', preemptionPolicy: 'Never' },
  priorityclassZero: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'pc0' }, value: 0, globalDefault: true, preemptionPolicy: 'PreemptLowerPriority' },
  pdbMin: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb1' }, spec: { minAvailable: '50%', selector: { matchLabels: { app: 'x' } } } },
  pdbMax: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb2' }, spec: { selector: { matchLabels: { app: 'y' } }, maxUnavailable: 1 } },
};

test('every captured kubectl body decodes to the object Kubernetes would produce', () => {
  assert.deepEqual(Object.keys(KUBECTL_BODIES).sort(), Object.keys(EXPECTED).sort());
  for (const [name, hex] of Object.entries(KUBECTL_BODIES)) {
    assert.deepEqual(decodeKubernetesProtobuf(bytes(hex)), EXPECTED[name], name);
  }
});

test('explicit zeros of pointer fields survive, zero non-pointer fields do not', () => {
  const zero = decodeKubernetesProtobuf(bytes(KUBECTL_BODIES.deploymentZero!)) as any;
  assert.equal(zero.spec.replicas, 0);
  assert.equal('minReadySeconds' in zero.spec, false); // sent as 0 on the wire, omitempty in Go
  assert.equal('strategy' in zero.spec, false); // sent as an empty message
  const pc = decodeKubernetesProtobuf(bytes(KUBECTL_BODIES.priorityclassZero!)) as any;
  assert.equal(pc.value, 0); // no omitempty on PriorityClass.value
});

test('creationTimestamp sent as a zero Time is omitted and status stays out', () => {
  const ns = decodeKubernetesProtobuf(bytes(KUBECTL_BODIES.namespace!)) as any;
  assert.deepEqual(Object.keys(ns.metadata), ['name']);
  assert.equal(ns.status, undefined);
});

test('PROTOBUF_KINDS and hasProtobufSchema agree', () => {
  assert.equal(KUBERNETES_PROTOBUF_MEDIA_TYPE, 'application/vnd.kubernetes.protobuf');
  for (const { apiVersion, kind } of PROTOBUF_KINDS) assert.ok(hasProtobufSchema(apiVersion, kind), `${apiVersion} ${kind}`);
  assert.equal(hasProtobufSchema('apps/v1', 'StatefulSet'), false);
  assert.equal(hasProtobufSchema('v1', 'PodSpec'), false);
});
