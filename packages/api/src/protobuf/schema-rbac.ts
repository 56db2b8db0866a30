/**
 * Protobuf schema text for rbac.authorization.k8s.io/v1 (Kubernetes field numbers, JSON field
 * names; see schema-meta.ts for the `(ptr)` and `(inline)` field options).
 */
export const RBAC_V1_SCHEMA = `
syntax = "proto2";
package rbac.v1;

message Role {
  optional .meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
}
message ClusterRole {
  optional .meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
  optional AggregationRule aggregationRule = 3 [(ptr) = true];
}
message PolicyRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
  repeated string nonResourceURLs = 5;
}
message AggregationRule {
  repeated .meta.v1.LabelSelector clusterRoleSelectors = 1;
}
message RoleBinding {
  optional .meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}
message ClusterRoleBinding {
  optional .meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}
message Subject {
  optional string kind = 1;
  optional string apiGroup = 2;
  optional string name = 3;
  optional string namespace = 4;
}
message RoleRef {
  optional string apiGroup = 1;
  optional string kind = 2;
  optional string name = 3;
}
`;
