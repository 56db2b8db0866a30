/** apps/v1 Deployment and ReplicaSet. */
import type { ConditionStatus, IntOrString, KubeObject, LabelSelector, ObjectMeta, Time } from './meta.js';
import type { PodTemplateSpec } from './pod.js';

/** apps/v1 RollingUpdateDeployment. */
export interface RollingUpdateDeployment {
  /** Pods allowed above the desired count, a number or a percentage. Defaults to 25%. */
  maxSurge?: IntOrString;
  /** Pods allowed to be unavailable, a number or a percentage. Defaults to 25%. */
  maxUnavailable?: IntOrString;
}

/** apps/v1 DeploymentStrategy. */
export interface DeploymentStrategy {
  /** RollingUpdate (default) or Recreate. */
  type?: 'RollingUpdate' | 'Recreate';
  rollingUpdate?: RollingUpdateDeployment;
}

/** apps/v1 DeploymentSpec. */
export interface DeploymentSpec {
  /** Defaults to 1. */
  replicas?: number;
  /** Must match the template's labels. Immutable. */
  selector: LabelSelector;
  template: PodTemplateSpec;
  strategy?: DeploymentStrategy;
  minReadySeconds?: number;
  /** Defaults to 10. */
  revisionHistoryLimit?: number;
  paused?: boolean;
  /** Defaults to 600. */
  progressDeadlineSeconds?: number;
}

/** An apps/v1 DeploymentCondition (Available, Progressing, ReplicaFailure). */
export interface DeploymentCondition {
  type: 'Available' | 'Progressing' | 'ReplicaFailure' | (string & {});
  status: ConditionStatus;
  lastUpdateTime?: Time;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

/** apps/v1 DeploymentStatus. */
export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  terminatingReplicas?: number;
  conditions?: DeploymentCondition[];
  collisionCount?: number;
}

/** An apps/v1 Deployment. */
export interface Deployment extends KubeObject {
  metadata?: ObjectMeta;
  spec?: DeploymentSpec;
  status?: DeploymentStatus;
}

/** apps/v1 ReplicaSetSpec. */
export interface ReplicaSetSpec {
  /** Defaults to 1. */
  replicas?: number;
  minReadySeconds?: number;
  selector: LabelSelector;
  template?: PodTemplateSpec;
}

/** An apps/v1 ReplicaSetCondition. */
export interface ReplicaSetCondition {
  type: 'ReplicaFailure' | (string & {});
  status: ConditionStatus;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

/** apps/v1 ReplicaSetStatus. */
export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  terminatingReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
}

/** An apps/v1 ReplicaSet. */
export interface ReplicaSet extends KubeObject {
  metadata?: ObjectMeta;
  spec?: ReplicaSetSpec;
  status?: ReplicaSetStatus;
}
