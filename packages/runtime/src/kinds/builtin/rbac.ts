/** rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding. */
import type { KubeObject, LabelSelector, ObjectMeta } from './meta.js';

/** A set of permissions: verbs on resources, or on non-resource URLs. */
export interface PolicyRule {
  /** get, list, watch, create, update, patch, delete, deletecollection, or "*". */
  verbs: string[];
  /** "" is the core group; "*" all groups. */
  apiGroups?: string[];
  /** e.g. "pods", "pods/log"; "*" all resources. */
  resources?: string[];
  resourceNames?: string[];
  /** For cluster roles only. */
  nonResourceURLs?: string[];
}

/** The role a binding grants. Immutable. */
export interface RoleRef {
  /** rbac.authorization.k8s.io */
  apiGroup: string;
  kind: 'Role' | 'ClusterRole';
  name: string;
}

/** A user, group or service account a binding applies to. */
export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  /** "" for ServiceAccount, rbac.authorization.k8s.io for User and Group. */
  apiGroup?: string;
  name: string;
  /** Namespace of a ServiceAccount subject. */
  namespace?: string;
}

/** A namespaced rbac.authorization.k8s.io/v1 Role. */
export interface Role extends KubeObject {
  metadata?: ObjectMeta;
  rules?: PolicyRule[];
}

/** A cluster-wide rbac.authorization.k8s.io/v1 ClusterRole. */
export interface ClusterRole extends KubeObject {
  metadata?: ObjectMeta;
  rules?: PolicyRule[];
  /** When set, rules are computed from the selected cluster roles. */
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] };
}

/** An rbac.authorization.k8s.io/v1 RoleBinding. */
export interface RoleBinding extends KubeObject {
  metadata?: ObjectMeta;
  subjects?: Subject[];
  roleRef: RoleRef;
}

/** An rbac.authorization.k8s.io/v1 ClusterRoleBinding. */
export interface ClusterRoleBinding extends KubeObject {
  metadata?: ObjectMeta;
  subjects?: Subject[];
  roleRef: RoleRef;
}
