/**
 * Type-level checks of the built-in kinds: each `@ts-expect-error` line must fail to compile
 * (tsc reports an unused directive otherwise), and the valid objects must type-check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import type {
  ClusterRoleBinding, Condition, ConfigMap, CustomResourceDefinition, Deployment, Event, EventsV1Event, Ingress, Lease, Namespace,
  Node, ObjectMeta, Pod, ReplicaSet, Role, Scale, Secret, Service, ServiceAccount, Status,
} from './index.js';

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: 'default', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u1', controller: true }] },
  spec: {
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    containers: [
      {
        name: 'web',
        image: 'nginx',
        env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
        resources: { requests: { cpu: '100m' }, limits: { memory: '128Mi' } },
        livenessProbe: { exec: { command: ['true'] }, failureThreshold: 3 },
        lifecycle: { preStop: { sleep: { seconds: 10 } }, postStart: { httpGet: { port: 80 } } },
      },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
    tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
  },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [{ name: 'web', ready: true, restartCount: 0, image: 'nginx', imageID: '', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }],
  },
};

const deployment: Deployment = {
  metadata: { name: 'web' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web' }] } },
    strategy: { type: 'Recreate' },
  },
  status: { observedGeneration: 1, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }] },
};

test('typed objects are KubeObjects (usable with informers, helpers and the client)', () => {
  const all: KubeObject[] = [pod, deployment];
  assert.equal(all.length, 2);
  const rs: ReplicaSet = { metadata: { name: 'web-abc' }, spec: { selector: {}, replicas: 1 }, status: { replicas: 1 } };
  const meta: ObjectMeta | undefined = rs.metadata;
  assert.equal(meta?.name, 'web-abc');
  assert.equal(pod.spec?.containers[0]?.lifecycle?.preStop?.sleep?.seconds, 10);
});

test('the other built-in kinds type-check with their Kubernetes field names', () => {
  const objects: KubeObject[] = [
    { metadata: { name: 'ns' }, status: { phase: 'Terminating' } } satisfies Namespace,
    { data: { k: 'v' }, immutable: true } satisfies ConfigMap,
    { type: 'kubernetes.io/tls', data: { 'tls.crt': 'Zm9v' } } satisfies Secret,
    { spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http', protocol: 'TCP' }] } } satisfies Service,
    { automountServiceAccountToken: false, imagePullSecrets: [{ name: 'regcred' }] } satisfies ServiceAccount,
    { metadata: { name: 'web-0.1' }, involvedObject: { kind: 'Pod', name: 'web-0' }, reason: 'Scheduled', type: 'Normal', count: 1 } satisfies Event,
    { eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'kplane/x', regarding: { kind: 'Pod' }, note: 'n' } satisfies EventsV1Event,
    { spec: { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } } satisfies Node,
    { spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z' } } satisfies Lease,
    { spec: { rules: [{ host: 'x.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } } satisfies Ingress,
    { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }] } satisfies Role,
    { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }] } satisfies ClusterRoleBinding,
    { spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=web' } } satisfies Scale,
    {
      spec: { group: 'demo.example.com', scope: 'Namespaced', names: { plural: 'greetings', kind: 'Greeting' }, versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} } }] },
    } satisfies CustomResourceDefinition,
  ];
  assert.equal(objects.length, 14);
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404, details: { name: 'x', kind: 'pods' } };
  const cond: Condition = { type: 'Ready', status: 'False', reason: 'NotReady', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };
  assert.equal((status.code ?? 0) + (cond.status === 'False' ? 0 : 1), 404);
});

test('wrong fields and types do not compile', () => {
  if (false as boolean) {
    // @ts-expect-error a container needs a name
    const noName: Pod = { spec: { containers: [{ image: 'nginx' }] } };
    // @ts-expect-error restartPolicy is Always, OnFailure or Never
    const badPolicy: Pod = { spec: { containers: [], restartPolicy: 'Sometimes' } };
    // @ts-expect-error access modes are Kubernetes' four
    const badMode: Pod = { spec: { containers: [], volumes: [{ name: 'v', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteSometimes'] } } } }] } };
    // @ts-expect-error preStop sleep takes seconds
    const badSleep: Pod = { spec: { containers: [{ name: 'a', lifecycle: { preStop: { sleep: { ms: 5 } } } }] } };
    // @ts-expect-error replicas is a number
    const badReplicas: Deployment = { spec: { replicas: '2', selector: {}, template: {} } };
    // @ts-expect-error a Deployment spec needs a selector
    const noSelector: Deployment = { spec: { template: {} } };
    // @ts-expect-error unknown DeploymentSpec field
    const typo: Deployment = { spec: { replica: 2, selector: {}, template: {} } };
    // @ts-expect-error label selector requirements need a key
    const badOp: Deployment = { spec: { selector: { matchExpressions: [{ operator: 'In' }] }, template: {} } };
    // @ts-expect-error a service port number is a number
    const badPort: Service = { spec: { ports: [{ port: '80' }] } };
    // @ts-expect-error a binding needs a roleRef
    const noRoleRef: ClusterRoleBinding = { subjects: [] };
    // @ts-expect-error a CRD version needs served and storage
    const badVersion: CustomResourceDefinition = { spec: { group: 'g.io', scope: 'Cluster', names: { plural: 'x', kind: 'X' }, versions: [{ name: 'v1' }] } };
    // @ts-expect-error a condition needs a reason
    const badCond: Condition = { type: 'Ready', status: 'True', message: '', lastTransitionTime: '' };
    // @ts-expect-error volume sources are the Kubernetes ones
    const badVolume: Pod = { spec: { containers: [], volumes: [{ name: 'v', fancyDisk: {} }] } };
    // @ts-expect-error affinity terms are typed
    const badAffinity: Pod = { spec: { containers: [], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'k' }] }] } } } } };
    // @ts-expect-error a Deployment's apiVersion is apps/v1
    const wrongVersion: Deployment = { apiVersion: 'extensions/v1beta1', kind: 'Deployment' };
    // @ts-expect-error labels are strings
    const badLabels: Pod = { metadata: { labels: { n: 1 } } };
    void [noName, badPolicy, badMode, badSleep, badReplicas, noSelector, typo, badOp, badPort, noRoleRef, badVersion, badCond, badVolume, badAffinity, wrongVersion, badLabels];
  }
  assert.ok(true);
});
