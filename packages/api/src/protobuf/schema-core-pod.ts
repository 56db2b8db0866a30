/**
 * Protobuf schema text for the rest of the core/v1 pod spec: volumes (the common sources:
 * hostPath, emptyDir, secret, nfs, persistentVolumeClaim, downwardAPI, configMap, projected)
 * and scheduling (tolerations, affinity, topology spread, DNS). Kubernetes field numbers, JSON
 * field names; see schema-meta.ts for the `(ptr)` and `(inline)` field options.
 */
export const CORE_V1_POD_EXTRAS_SCHEMA = `
syntax = "proto2";
package core.v1;

message Volume {
  optional string name = 1;
  optional VolumeSource volumeSource = 2 [(inline) = true];
}
message VolumeSource {
  optional HostPathVolumeSource hostPath = 1 [(ptr) = true];
  optional EmptyDirVolumeSource emptyDir = 2 [(ptr) = true];
  optional SecretVolumeSource secret = 6 [(ptr) = true];
  optional NFSVolumeSource nfs = 7 [(ptr) = true];
  optional PersistentVolumeClaimVolumeSource persistentVolumeClaim = 10 [(ptr) = true];
  optional DownwardAPIVolumeSource downwardAPI = 16 [(ptr) = true];
  optional ConfigMapVolumeSource configMap = 19 [(ptr) = true];
  optional ProjectedVolumeSource projected = 26 [(ptr) = true];
}
message HostPathVolumeSource {
  optional string path = 1;
  optional string type = 2 [(ptr) = true];
}
message EmptyDirVolumeSource {
  optional string medium = 1;
  optional .resource.Quantity sizeLimit = 2 [(ptr) = true];
}
message SecretVolumeSource {
  optional string secretName = 1;
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3 [(ptr) = true];
  optional bool optional = 4 [(ptr) = true];
}
message NFSVolumeSource {
  optional string server = 1;
  optional string path = 2;
  optional bool readOnly = 3;
}
message PersistentVolumeClaimVolumeSource {
  optional string claimName = 1;
  optional bool readOnly = 2;
}
message DownwardAPIVolumeSource {
  repeated DownwardAPIVolumeFile items = 1;
  optional int32 defaultMode = 2 [(ptr) = true];
}
message DownwardAPIVolumeFile {
  optional string path = 1;
  optional ObjectFieldSelector fieldRef = 2 [(ptr) = true];
  optional ResourceFieldSelector resourceFieldRef = 3 [(ptr) = true];
  optional int32 mode = 4 [(ptr) = true];
}
message ConfigMapVolumeSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional int32 defaultMode = 3 [(ptr) = true];
  optional bool optional = 4 [(ptr) = true];
}
message KeyToPath {
  optional string key = 1;
  optional string path = 2;
  optional int32 mode = 3 [(ptr) = true];
}
message ProjectedVolumeSource {
  repeated VolumeProjection sources = 1;
  optional int32 defaultMode = 2 [(ptr) = true];
}
message VolumeProjection {
  optional SecretProjection secret = 1 [(ptr) = true];
  optional DownwardAPIProjection downwardAPI = 2 [(ptr) = true];
  optional ConfigMapProjection configMap = 3 [(ptr) = true];
  optional ServiceAccountTokenProjection serviceAccountToken = 4 [(ptr) = true];
}
message SecretProjection {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional bool optional = 4 [(ptr) = true];
}
message ConfigMapProjection {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  repeated KeyToPath items = 2;
  optional bool optional = 4 [(ptr) = true];
}
message DownwardAPIProjection {
  repeated DownwardAPIVolumeFile items = 1;
}
message ServiceAccountTokenProjection {
  optional string audience = 1;
  optional int64 expirationSeconds = 2 [(ptr) = true];
  optional string path = 3;
}

message Toleration {
  optional string key = 1;
  optional string operator = 2;
  optional string value = 3;
  optional string effect = 4;
  optional int64 tolerationSeconds = 5 [(ptr) = true];
}
message Affinity {
  optional NodeAffinity nodeAffinity = 1 [(ptr) = true];
  optional PodAffinity podAffinity = 2 [(ptr) = true];
  optional PodAntiAffinity podAntiAffinity = 3 [(ptr) = true];
}
message NodeAffinity {
  optional NodeSelector requiredDuringSchedulingIgnoredDuringExecution = 1 [(ptr) = true];
  repeated PreferredSchedulingTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}
message NodeSelector {
  repeated NodeSelectorTerm nodeSelectorTerms = 1;
}
message NodeSelectorTerm {
  repeated NodeSelectorRequirement matchExpressions = 1;
  repeated NodeSelectorRequirement matchFields = 2;
}
message NodeSelectorRequirement {
  optional string key = 1;
  optional string operator = 2;
  repeated string values = 3;
}
message PreferredSchedulingTerm {
  optional int32 weight = 1;
  optional NodeSelectorTerm preference = 2;
}
message PodAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}
message PodAntiAffinity {
  repeated PodAffinityTerm requiredDuringSchedulingIgnoredDuringExecution = 1;
  repeated WeightedPodAffinityTerm preferredDuringSchedulingIgnoredDuringExecution = 2;
}
message PodAffinityTerm {
  optional .meta.v1.LabelSelector labelSelector = 1 [(ptr) = true];
  repeated string namespaces = 2;
  optional string topologyKey = 3;
  optional .meta.v1.LabelSelector namespaceSelector = 4 [(ptr) = true];
  repeated string matchLabelKeys = 5;
  repeated string mismatchLabelKeys = 6;
}
message WeightedPodAffinityTerm {
  optional int32 weight = 1;
  optional PodAffinityTerm podAffinityTerm = 2;
}
message TopologySpreadConstraint {
  optional int32 maxSkew = 1;
  optional string topologyKey = 2;
  optional string whenUnsatisfiable = 3;
  optional .meta.v1.LabelSelector labelSelector = 4 [(ptr) = true];
  optional int32 minDomains = 5 [(ptr) = true];
  optional string nodeAffinityPolicy = 6 [(ptr) = true];
  optional string nodeTaintsPolicy = 7 [(ptr) = true];
  repeated string matchLabelKeys = 8;
}
message HostAlias {
  optional string ip = 1;
  repeated string hostnames = 2;
}
message PodDNSConfig {
  repeated string nameservers = 1;
  repeated string searches = 2;
  repeated PodDNSConfigOption options = 3;
}
message PodDNSConfigOption {
  optional string name = 1;
  optional string value = 2 [(ptr) = true];
}
message PodReadinessGate {
  optional string conditionType = 1;
}
message PodOS {
  optional string name = 1;
}
message PodSchedulingGate {
  optional string name = 1;
}
`;
