/**
 * Protobuf schema text for apps/v1 Deployment and ReplicaSet (Kubernetes field numbers, JSON
 * field names; see schema-meta.ts for the `(ptr)` and `(inline)` field options).
 */
export const APPS_V1_SCHEMA = `
syntax = "proto2";
package apps.v1;

message Deployment {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional DeploymentSpec spec = 2;
}
message DeploymentSpec {
  optional int32 replicas = 1 [(ptr) = true];
  optional .meta.v1.LabelSelector selector = 2 [(ptr) = true];
  optional .core.v1.PodTemplateSpec template = 3;
  optional DeploymentStrategy strategy = 4;
  optional int32 minReadySeconds = 5;
  optional int32 revisionHistoryLimit = 6 [(ptr) = true];
  optional bool paused = 7;
  optional int32 progressDeadlineSeconds = 9 [(ptr) = true];
}
message DeploymentStrategy {
  optional string type = 1;
  optional RollingUpdateDeployment rollingUpdate = 2 [(ptr) = true];
}
message RollingUpdateDeployment {
  optional .intstr.IntOrString maxUnavailable = 1 [(ptr) = true];
  optional .intstr.IntOrString maxSurge = 2 [(ptr) = true];
}

message ReplicaSet {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional ReplicaSetSpec spec = 2;
}
message ReplicaSetSpec {
  optional int32 replicas = 1 [(ptr) = true];
  optional int32 minReadySeconds = 4;
  optional .meta.v1.LabelSelector selector = 2 [(ptr) = true];
  optional .core.v1.PodTemplateSpec template = 3;
}
`;
