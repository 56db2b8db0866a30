import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client, ResourceClient } from '@kplane/client';
import { createClient } from '@kplane/client';
import type { Deployment, Endpoints as EndpointsObject, Pod } from './builtin/index.js';
import type { ApplyConfiguration } from './index.js';
import {
  HorizontalPodAutoscalers, PodTemplates, ReplicationControllers, MutatingWebhookConfigurations, ValidatingWebhookConfigurations,
  ClusterRoleBindings, ClusterRoles, ConfigMaps, ControllerRevisions, CronJobs, CustomResourceDefinitions, DaemonSets, Deployments, Endpoints, Events, EventsV1Events, Ingresses, Jobs, Leases, LimitRanges, Namespaces, PriorityClasses, ResourceQuotas, Nodes, PersistentVolumeClaims, PodDisruptionBudgets, Pods, ReplicaSets, StatefulSets, RoleBindings, Roles, Secrets, ServiceAccounts, Services, PersistentVolumes, StorageClasses, EndpointSlices, builtinDescriptors,
  ValidatingAdmissionPolicies, ValidatingAdmissionPolicyBindings,
  MutatingAdmissionPolicies, MutatingAdmissionPolicyBindings,
  kindDescriptor, newObject, resourceOf, type KindDescriptor, type ObjectOf,
} from './descriptors.js';

/** group, version, resource, namespaced, kind, as Kubernetes' discovery lists them. */
const KUBERNETES: [KindDescriptor, string, string, string, boolean, string][] = [
  [Namespaces, '', 'v1', 'namespaces', false, 'Namespace'],
  [ConfigMaps, '', 'v1', 'configmaps', true, 'ConfigMap'],
  [Secrets, '', 'v1', 'secrets', true, 'Secret'],
  [Pods, '', 'v1', 'pods', true, 'Pod'],
  [Services, '', 'v1', 'services', true, 'Service'],
  [ServiceAccounts, '', 'v1', 'serviceaccounts', true, 'ServiceAccount'],
  [Events, '', 'v1', 'events', true, 'Event'],
  [Nodes, '', 'v1', 'nodes', false, 'Node'],
  [Endpoints, '', 'v1', 'endpoints', true, 'Endpoints'],
  [PersistentVolumeClaims, '', 'v1', 'persistentvolumeclaims', true, 'PersistentVolumeClaim'],
  [DaemonSets, 'apps', 'v1', 'daemonsets', true, 'DaemonSet'],
  [Deployments, 'apps', 'v1', 'deployments', true, 'Deployment'],
  [ReplicaSets, 'apps', 'v1', 'replicasets', true, 'ReplicaSet'],
  [StatefulSets, 'apps', 'v1', 'statefulsets', true, 'StatefulSet'],
  [ControllerRevisions, 'apps', 'v1', 'controllerrevisions', true, 'ControllerRevision'],
  [Jobs, 'batch', 'v1', 'jobs', true, 'Job'],
  [Leases, 'coordination.k8s.io', 'v1', 'leases', true, 'Lease'],
  [EventsV1Events, 'events.k8s.io', 'v1', 'events', true, 'Event'],
  [EndpointSlices, 'discovery.k8s.io', 'v1', 'endpointslices', true, 'EndpointSlice'],
  [Ingresses, 'networking.k8s.io', 'v1', 'ingresses', true, 'Ingress'],
  [CustomResourceDefinitions, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions', false, 'CustomResourceDefinition'],
  [Roles, 'rbac.authorization.k8s.io', 'v1', 'roles', true, 'Role'],
  [ClusterRoles, 'rbac.authorization.k8s.io', 'v1', 'clusterroles', false, 'ClusterRole'],
  [RoleBindings, 'rbac.authorization.k8s.io', 'v1', 'rolebindings', true, 'RoleBinding'],
  [ClusterRoleBindings, 'rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', false, 'ClusterRoleBinding'],
  [ReplicationControllers, '', 'v1', 'replicationcontrollers', true, 'ReplicationController'],
  [PodTemplates, '', 'v1', 'podtemplates', true, 'PodTemplate'],
  [HorizontalPodAutoscalers, 'autoscaling', 'v2', 'horizontalpodautoscalers', true, 'HorizontalPodAutoscaler'],
  [CronJobs, 'batch', 'v1', 'cronjobs', true, 'CronJob'],
  [PodDisruptionBudgets, 'policy', 'v1', 'poddisruptionbudgets', true, 'PodDisruptionBudget'],
  [ResourceQuotas, '', 'v1', 'resourcequotas', true, 'ResourceQuota'],
  [LimitRanges, '', 'v1', 'limitranges', true, 'LimitRange'],
  [PriorityClasses, 'scheduling.k8s.io', 'v1', 'priorityclasses', false, 'PriorityClass'],
  [PersistentVolumes, '', 'v1', 'persistentvolumes', false, 'PersistentVolume'],
  [StorageClasses, 'storage.k8s.io', 'v1', 'storageclasses', false, 'StorageClass'],
  [MutatingWebhookConfigurations, 'admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations', false, 'MutatingWebhookConfiguration'],
  [ValidatingWebhookConfigurations, 'admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations', false, 'ValidatingWebhookConfiguration'],
  [ValidatingAdmissionPolicies, 'admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies', false, 'ValidatingAdmissionPolicy'],
  [ValidatingAdmissionPolicyBindings, 'admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings', false, 'ValidatingAdmissionPolicyBinding'],
  [MutatingAdmissionPolicies, 'admissionregistration.k8s.io', 'v1alpha1', 'mutatingadmissionpolicies', false, 'MutatingAdmissionPolicy'],
  [MutatingAdmissionPolicyBindings, 'admissionregistration.k8s.io', 'v1alpha1', 'mutatingadmissionpolicybindings', false, 'MutatingAdmissionPolicyBinding'],
];

test('every built-in descriptor carries the names Kubernetes uses', () => {
  for (const [d, group, version, resource, namespaced, kind] of KUBERNETES) {
    const apiVersion = group ? `${group}/${version}` : version;
    assert.deepEqual({ ...d }, { group, version, resource, namespaced, kind, apiVersion }, `${resource}.${group}`);
    assert.ok(Object.isFrozen(d), `${resource} is frozen`);
  }
  assert.deepEqual([...builtinDescriptors], KUBERNETES.map((row) => row[0]));
});

test('kindDescriptor derives apiVersion', () => {
  assert.equal(kindDescriptor({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }).apiVersion, 'v1');
  assert.equal(kindDescriptor({ group: 'a.io', version: 'v2', resource: 'xs', kind: 'X', namespaced: false }).apiVersion, 'a.io/v2');
});

test('newObject sets apiVersion and kind', () => {
  const d = newObject(Deployments, { metadata: { name: 'web' } });
  assert.deepEqual(d, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } });
});

test('client.resource(descriptor) and resourceOf infer the object type; the client fills in kind', async () => {
  let sent: unknown;
  const client: Client = createClient({
    transport: async (req) => {
      sent = req.body ? JSON.parse(new TextDecoder().decode(req.body)) : undefined;
      return { status: 201, headers: { 'content-type': 'application/json' }, body: req.body };
    },
  });
  const deployments = client.resource(Deployments);
  const typed: ResourceClient<Deployment> = deployments;
  const viaHelper: ResourceClient<Pod> = resourceOf(client, Pods);
  const created = await deployments.create({
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
  });
  assert.deepEqual((sent as Deployment).apiVersion, 'apps/v1');
  assert.deepEqual((sent as Deployment).kind, 'Deployment');
  const replicas: number | undefined = created.spec?.replicas;
  assert.equal(replicas, undefined);
  assert.equal(typed.descriptor, Deployments);
  assert.equal(viaHelper.descriptor, Pods);
  // A plain ResourceDescriptor still works as before.
  const untyped = client.resource({ group: 'apps', version: 'v1', resource: 'deployments', namespaced: true });
  assert.equal(untyped.descriptor.resource, 'deployments');

  if (false as boolean) {
    // @ts-expect-error a Deployment client does not take a Pod
    await deployments.create({ metadata: { name: 'p' }, spec: { containers: [] } });
    // @ts-expect-error the result is typed: no such field
    void created.spec?.replica;
    // @ts-expect-error a Pod client is not a Deployment client
    const wrong: ResourceClient<Deployment> = client.resource(Pods);
    void wrong;
  }
});

test('apply takes a deep-partial typed configuration: a Deployment\'s replicas alone, a container without its other fields', async () => {
  let sent: { contentType?: string; body?: unknown } = {};
  const client: Client = createClient({
    transport: async (req) => {
      sent = { contentType: req.headers?.['content-type'], body: req.body ? JSON.parse(new TextDecoder().decode(req.body)) : undefined };
      return { status: 200, headers: { 'content-type': 'application/json' }, body: req.body };
    },
  });
  const deployments = client.resource(Deployments);
  const config: ApplyConfiguration<Deployment> = { metadata: { name: 'web' }, spec: { replicas: 3, template: { spec: { containers: [{ name: 'web' }] } } } };
  const applied: Deployment = await deployments.apply(config, { fieldManager: 'my-controller' });
  assert.equal(sent.contentType, 'application/apply-patch+yaml');
  assert.deepEqual(sent.body, { apiVersion: 'apps/v1', kind: 'Deployment', ...config });
  assert.equal(applied.spec?.replicas, 3);
  if (false as boolean) {
    // @ts-expect-error no such field, even in a partial configuration
    await deployments.apply({ metadata: { name: 'web' }, spec: { replica: 3 } }, { fieldManager: 'x' });
    // @ts-expect-error the name is required
    await deployments.apply({ metadata: {} }, { fieldManager: 'x' });
  }
});

test('ObjectOf extracts the object type; Endpoints is both a type and a descriptor', () => {
  const e: ObjectOf<typeof Endpoints> = { subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] };
  const same: EndpointsObject = e;
  const alsoType: Endpoints = same;
  assert.equal(alsoType.subsets?.[0]?.ports?.[0]?.port, 80);
  if (false as boolean) {
    // @ts-expect-error an endpoint address needs an ip
    const bad: Endpoints = { subsets: [{ addresses: [{ hostname: 'x' }] }] };
    void bad;
  }
});
