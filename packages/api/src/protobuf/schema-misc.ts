/**
 * Protobuf schema text for the small groups `kubectl create` reaches: authentication.k8s.io/v1
 * TokenRequest (`kubectl create token`), policy/v1 PodDisruptionBudget and scheduling.k8s.io/v1
 * PriorityClass. Kubernetes field numbers, JSON field names (BoundObjectReference's proto names
 * `aPIVersion` and `uID` are written as their JSON names `apiVersion` and `uid`); see
 * schema-meta.ts for the `(ptr)` and `(inline)` field options.
 */
export const AUTHENTICATION_V1_SCHEMA = `
syntax = "proto2";
package authentication.v1;

message TokenRequest {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional TokenRequestSpec spec = 2;
}
message TokenRequestSpec {
  repeated string audiences = 1;
  optional int64 expirationSeconds = 4 [(ptr) = true];
  optional BoundObjectReference boundObjectRef = 3 [(ptr) = true];
}
message BoundObjectReference {
  optional string kind = 1;
  optional string apiVersion = 2;
  optional string name = 3;
  optional string uid = 4;
}
`;

/** policy/v1 messages. */
export const POLICY_V1_SCHEMA = `
syntax = "proto2";
package policy.v1;

message PodDisruptionBudget {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional PodDisruptionBudgetSpec spec = 2;
}
message PodDisruptionBudgetSpec {
  optional .intstr.IntOrString minAvailable = 1 [(ptr) = true];
  optional .meta.v1.LabelSelector selector = 2 [(ptr) = true];
  optional .intstr.IntOrString maxUnavailable = 3 [(ptr) = true];
  optional string unhealthyPodEvictionPolicy = 4 [(ptr) = true];
}
`;

/** scheduling.k8s.io/v1 messages. `value` has no omitempty in Go, so an explicit 0 is kept. */
export const SCHEDULING_V1_SCHEMA = `
syntax = "proto2";
package scheduling.v1;

message PriorityClass {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional int32 value = 2 [(ptr) = true];
  optional bool globalDefault = 3;
  optional string description = 4;
  optional string preemptionPolicy = 5 [(ptr) = true];
}
`;
