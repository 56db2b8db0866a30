/**
 * Typed kinds: TypeScript shapes of the built-in kinds, typed resource descriptors for the
 * client, and defineKind() for custom kinds declared once with TypeBox.
 */
export type * from './builtin/index.js';
export {
  ClusterRoleBindings,
  ClusterRoles,
  ConfigMaps,
  CustomResourceDefinitions,
  Deployments,
  Endpoints,
  EndpointSlices,
  Events,
  EventsV1Events,
  Ingresses,
  Leases,
  Namespaces,
  Nodes,
  Pods,
  ReplicaSets,
  ReplicationControllers,
  PodTemplates,
  PersistentVolumeClaims,
  PersistentVolumes,
  StorageClasses,
  StatefulSets,
  DaemonSets,
  ControllerRevisions,
  Jobs,
  CronJobs,
  HorizontalPodAutoscalers,
  PodDisruptionBudgets,
  RoleBindings,
  Roles,
  Secrets,
  ServiceAccounts,
  Services,
  ResourceQuotas,
  LimitRanges,
  PriorityClasses,
  ValidatingAdmissionPolicies,
  ValidatingAdmissionPolicyBindings,
  MutatingAdmissionPolicies,
  MutatingAdmissionPolicyBindings,
  builtinDescriptors,
  kindDescriptor,
  newObject,
  resourceOf,
  type KindDescriptor,
  type ListOf,
  type ObjectOf,
} from './descriptors.js';
export { defineKind, type CustomKind, type CustomObject, type DefineKindOptions } from './custom.js';
export { KubeType, SchemaConversionError, structuralSchemaErrors, toStructuralSchema } from './schema.js';
/** Server-side apply configurations of the typed kinds: `ApplyConfiguration<Deployment>`. */
export type { ApplyConfiguration, ApplyOptions, DeepPartial } from '@kplane/client';
