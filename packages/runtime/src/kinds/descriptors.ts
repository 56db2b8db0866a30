/**
 * Typed resource descriptors: the client's `ResourceDescriptor` plus the object type it serves,
 * so `client.resource(Deployments)` returns `ResourceClient<Deployment>`.
 */
import { apiVersionOf, type KubeList, type KubeObject } from '@kplane/api';
import type { Client, ResourceClient, ResourceDescriptor } from '@kplane/client';
import type {
  ClusterRole, ClusterRoleBinding, ConfigMap, ControllerRevision, CronJob, CustomResourceDefinition, DaemonSet, Deployment,
  Endpoints as EndpointsObject, Event, EventsV1Event, HorizontalPodAutoscaler, Ingress, Job, Lease, LimitRange, Namespace, Node, PersistentVolumeClaim, Pod, PodDisruptionBudget, PodTemplate, PriorityClass, ReplicaSet, ResourceQuota, ReplicationController, Role, RoleBinding, Secret, Service, ServiceAccount, StatefulSet, PersistentVolume, StorageClass, EndpointSlice,
  MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
} from './builtin/index.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './builtin/index.js';
import type { MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding } from './builtin/index.js';

/** Type-only key of the phantom field; no value exists at run time. */
declare const objectType: unique symbol;

/**
 * A resource descriptor that knows the type of its objects. `kind` and `apiVersion` are
 * always set, so the client fills them in on objects sent without them.
 */
export interface KindDescriptor<T extends KubeObject = KubeObject> extends ResourceDescriptor {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespaced: boolean;
  readonly kind: string;
  /** "v1" for the core group, else "group/version". */
  readonly apiVersion: string;
  /** Phantom: carries T for inference, never present on the value. */
  readonly [objectType]?: T;
}

/** The object type a KindDescriptor (or anything carrying one as `descriptor`) serves. */
export type ObjectOf<D> = D extends KindDescriptor<infer T> ? T : D extends { descriptor: KindDescriptor<infer T> } ? T : never;

/**
 * The list a list request answers for a descriptor's resource (what `client.resource(D).list()`
 * resolves to), alike for built-in and custom kinds: `ListOf<typeof Deployments>`,
 * `ListOf<typeof MyKind>`.
 */
export type ListOf<D> = KubeList<ObjectOf<D>>;

declare module '@kplane/client' {
  interface Client {
    /** Operations on one resource, typed by the descriptor's object type. */
    resource<T extends KubeObject>(desc: KindDescriptor<T>): ResourceClient<T>;
  }
}

/** Makes a frozen KindDescriptor; `apiVersion` is derived from group and version. */
export function kindDescriptor<T extends KubeObject>(desc: {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}): KindDescriptor<T> {
  const { group, version, resource, kind, namespaced } = desc;
  return Object.freeze({ group, version, resource, namespaced, kind, apiVersion: apiVersionOf(group, version) });
}

/** A ResourceClient typed by the descriptor (same as `client.resource(kind)`, spelled as a function). */
export function resourceOf<T extends KubeObject>(client: Client, kind: KindDescriptor<T>): ResourceClient<T> {
  return client.resource<T>(kind as ResourceDescriptor);
}

/** Returns `obj` with the descriptor's apiVersion and kind set (a new object; nested values are shared). */
export function newObject<T extends KubeObject>(kind: KindDescriptor<T>, obj: Omit<T, 'apiVersion' | 'kind'>): T {
  return { apiVersion: kind.apiVersion, kind: kind.kind, ...obj } as T;
}

const core = <T extends KubeObject>(resource: string, kind: string, namespaced: boolean): KindDescriptor<T> =>
  kindDescriptor<T>({ group: '', version: 'v1', resource, kind, namespaced });
const rbac = <T extends KubeObject>(resource: string, kind: string, namespaced: boolean): KindDescriptor<T> =>
  kindDescriptor<T>({ group: 'rbac.authorization.k8s.io', version: 'v1', resource, kind, namespaced });

/** core/v1 namespaces (cluster-scoped). */
export const Namespaces: KindDescriptor<Namespace> = core('namespaces', 'Namespace', false);
/** core/v1 configmaps. */
export const ConfigMaps: KindDescriptor<ConfigMap> = core('configmaps', 'ConfigMap', true);
/** core/v1 secrets. */
export const Secrets: KindDescriptor<Secret> = core('secrets', 'Secret', true);
/** core/v1 pods. */
export const Pods: KindDescriptor<Pod> = core('pods', 'Pod', true);
/** core/v1 services. */
export const Services: KindDescriptor<Service> = core('services', 'Service', true);
/** core/v1 serviceaccounts. */
export const ServiceAccounts: KindDescriptor<ServiceAccount> = core('serviceaccounts', 'ServiceAccount', true);
/** core/v1 events. */
export const Events: KindDescriptor<Event> = core('events', 'Event', true);
/** core/v1 nodes (cluster-scoped). */
export const Nodes: KindDescriptor<Node> = core('nodes', 'Node', false);
/** A core/v1 Endpoints object (re-exported here so the type and the descriptor share one name). */
export type Endpoints = EndpointsObject;
/** core/v1 endpoints (the kind is plural: the type and this value share the name `Endpoints`). */
export const Endpoints: KindDescriptor<EndpointsObject> = core('endpoints', 'Endpoints', true);
/** discovery.k8s.io/v1 EndpointSlices. */
export const EndpointSlices: KindDescriptor<EndpointSlice> = kindDescriptor({ group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true });
/** apps/v1 deployments. */
export const Deployments: KindDescriptor<Deployment> = kindDescriptor({ group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true });
/** apps/v1 replicasets. */
export const ReplicaSets: KindDescriptor<ReplicaSet> = kindDescriptor({ group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true });
/** apps/v1 statefulsets. */
export const StatefulSets: KindDescriptor<StatefulSet> = kindDescriptor({ group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true });
/** apps/v1 daemonsets. */
export const DaemonSets: KindDescriptor<DaemonSet> = kindDescriptor({ group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true });
/** apps/v1 controllerrevisions. */
export const ControllerRevisions: KindDescriptor<ControllerRevision> = kindDescriptor({
  group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true,
});
/** core/v1 replicationcontrollers. */
export const ReplicationControllers: KindDescriptor<ReplicationController> = core('replicationcontrollers', 'ReplicationController', true);
/** core/v1 persistentvolumeclaims. */
export const PersistentVolumeClaims: KindDescriptor<PersistentVolumeClaim> = core('persistentvolumeclaims', 'PersistentVolumeClaim', true);
/** core/v1 persistentvolumes (cluster-scoped). */
export const PersistentVolumes: KindDescriptor<PersistentVolume> = core('persistentvolumes', 'PersistentVolume', false);
/** storage.k8s.io/v1 storageclasses (cluster-scoped). */
export const StorageClasses: KindDescriptor<StorageClass> = kindDescriptor({ group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', namespaced: false });
/** core/v1 podtemplates. */
export const PodTemplates: KindDescriptor<PodTemplate> = core('podtemplates', 'PodTemplate', true);
/** batch/v1 jobs. */
export const Jobs: KindDescriptor<Job> = kindDescriptor({ group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true });
/** batch/v1 cronjobs. */
export const CronJobs: KindDescriptor<CronJob> = kindDescriptor({ group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true });
/** autoscaling/v2 horizontalpodautoscalers. */
export const HorizontalPodAutoscalers: KindDescriptor<HorizontalPodAutoscaler> = kindDescriptor({
  group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true,
});
/** policy/v1 poddisruptionbudgets. */
export const PodDisruptionBudgets: KindDescriptor<PodDisruptionBudget> = kindDescriptor({
  group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true,
});
/** coordination.k8s.io/v1 leases. */
export const Leases: KindDescriptor<Lease> = kindDescriptor({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true });
/** events.k8s.io/v1 events. */
export const EventsV1Events: KindDescriptor<EventsV1Event> = kindDescriptor({ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true });
/** networking.k8s.io/v1 ingresses. */
export const Ingresses: KindDescriptor<Ingress> = kindDescriptor({ group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress', namespaced: true });
/** apiextensions.k8s.io/v1 customresourcedefinitions (cluster-scoped). */
export const CustomResourceDefinitions: KindDescriptor<CustomResourceDefinition> = kindDescriptor({
  group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false,
});
/** rbac.authorization.k8s.io/v1 roles. */
export const Roles: KindDescriptor<Role> = rbac('roles', 'Role', true);
/** rbac.authorization.k8s.io/v1 clusterroles (cluster-scoped). */
export const ClusterRoles: KindDescriptor<ClusterRole> = rbac('clusterroles', 'ClusterRole', false);
/** rbac.authorization.k8s.io/v1 rolebindings. */
export const RoleBindings: KindDescriptor<RoleBinding> = rbac('rolebindings', 'RoleBinding', true);
/** rbac.authorization.k8s.io/v1 clusterrolebindings (cluster-scoped). */
export const ClusterRoleBindings: KindDescriptor<ClusterRoleBinding> = rbac('clusterrolebindings', 'ClusterRoleBinding', false);

/** core/v1 resourcequotas. */
export const ResourceQuotas: KindDescriptor<ResourceQuota> = core('resourcequotas', 'ResourceQuota', true);
/** core/v1 limitranges. */
export const LimitRanges: KindDescriptor<LimitRange> = core('limitranges', 'LimitRange', true);
/** scheduling.k8s.io/v1 priorityclasses (cluster-scoped). */
export const PriorityClasses: KindDescriptor<PriorityClass> = kindDescriptor({ group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', namespaced: false });

/** admissionregistration.k8s.io/v1 mutatingwebhookconfigurations (cluster-scoped). */
export const MutatingWebhookConfigurations: KindDescriptor<MutatingWebhookConfiguration> = kindDescriptor({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false });
/** admissionregistration.k8s.io/v1 validatingwebhookconfigurations (cluster-scoped). */
export const ValidatingWebhookConfigurations: KindDescriptor<ValidatingWebhookConfiguration> = kindDescriptor({ group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false });
/** admissionregistration.k8s.io/v1 validatingadmissionpolicies. */
export const ValidatingAdmissionPolicies: KindDescriptor<ValidatingAdmissionPolicy> = kindDescriptor({
  group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespaced: false,
});
/** admissionregistration.k8s.io/v1 validatingadmissionpolicybindings. */
export const ValidatingAdmissionPolicyBindings: KindDescriptor<ValidatingAdmissionPolicyBinding> = kindDescriptor({
  group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicybindings', kind: 'ValidatingAdmissionPolicyBinding', namespaced: false,
});
/** admissionregistration.k8s.io/v1alpha1 mutatingadmissionpolicies (alpha). */
export const MutatingAdmissionPolicies: KindDescriptor<MutatingAdmissionPolicy> = kindDescriptor({
  group: 'admissionregistration.k8s.io', version: 'v1alpha1', resource: 'mutatingadmissionpolicies', kind: 'MutatingAdmissionPolicy', namespaced: false,
});
/** admissionregistration.k8s.io/v1alpha1 mutatingadmissionpolicybindings (alpha). */
export const MutatingAdmissionPolicyBindings: KindDescriptor<MutatingAdmissionPolicyBinding> = kindDescriptor({
  group: 'admissionregistration.k8s.io', version: 'v1alpha1', resource: 'mutatingadmissionpolicybindings', kind: 'MutatingAdmissionPolicyBinding', namespaced: false,
});

/** Every built-in descriptor of a kind kplane serves, core group first (a descriptor joins once its kind is served). */
export const builtinDescriptors: readonly KindDescriptor[] = Object.freeze([
  Namespaces, ConfigMaps, Secrets, Pods, Services, ServiceAccounts, Events, Nodes, Endpoints, PersistentVolumeClaims,
  DaemonSets, Deployments, ReplicaSets, StatefulSets, ControllerRevisions, Jobs, Leases, EventsV1Events, EndpointSlices, Ingresses, CustomResourceDefinitions,
  Roles, ClusterRoles, RoleBindings, ClusterRoleBindings,
  ReplicationControllers, PodTemplates, HorizontalPodAutoscalers,
  CronJobs, PodDisruptionBudgets, ResourceQuotas, LimitRanges, PriorityClasses, PersistentVolumes, StorageClasses,
  MutatingWebhookConfigurations, ValidatingWebhookConfigurations,
  ValidatingAdmissionPolicies, ValidatingAdmissionPolicyBindings,
  MutatingAdmissionPolicies, MutatingAdmissionPolicyBindings,
]);
