/**
 * Protobuf schema text for the apimachinery types every object uses: the `runtime.Unknown`
 * envelope, meta/v1 (ObjectMeta, LabelSelector, Time, ...), IntOrString and Quantity.
 *
 * Field numbers are Kubernetes' own (k8s.io/apimachinery generated.proto); field names are the
 * JSON names, so a decoded message converts to JSON without renaming. Only what the typed
 * clients of `kubectl create` send is described; unknown field numbers are skipped on decode.
 *
 * Field options used across all schema files:
 * - `(ptr) = true`: the Go field is a pointer (or has no `omitempty`), so when it is present on
 *   the wire its value is kept even when zero, false, "" or an empty message.
 * - `(inline) = true`: the Go field is an embedded struct; its fields are merged into the parent.
 */
export const META_SCHEMA = `
syntax = "proto2";
package runtime;

message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}
message Unknown {
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}
message RawExtension {
  optional bytes raw = 1;
}
`;

/** meta/v1 messages. */
export const META_V1_SCHEMA = `
syntax = "proto2";
package meta.v1;

message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}
message MicroTime {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}
message Duration {
  optional int64 duration = 1;
}
message FieldsV1 {
  optional bytes raw = 1;
}
message ObjectMeta {
  optional string name = 1;
  optional string generateName = 2;
  optional string namespace = 3;
  optional string selfLink = 4;
  optional string uid = 5;
  optional string resourceVersion = 6;
  optional int64 generation = 7;
  optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9 [(ptr) = true];
  optional int64 deletionGracePeriodSeconds = 10 [(ptr) = true];
  map<string, string> labels = 11;
  map<string, string> annotations = 12;
  repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}
message OwnerReference {
  optional string apiVersion = 5;
  optional string kind = 1;
  optional string name = 3;
  optional string uid = 4;
  optional bool controller = 6 [(ptr) = true];
  optional bool blockOwnerDeletion = 7 [(ptr) = true];
}
message ManagedFieldsEntry {
  optional string manager = 1;
  optional string operation = 2;
  optional string apiVersion = 3;
  optional Time time = 4 [(ptr) = true];
  optional string fieldsType = 6;
  optional FieldsV1 fieldsV1 = 7 [(ptr) = true];
  optional string subresource = 8;
}
message LabelSelector {
  map<string, string> matchLabels = 1;
  repeated LabelSelectorRequirement matchExpressions = 2;
}
message LabelSelectorRequirement {
  optional string key = 1;
  optional string operator = 2;
  repeated string values = 3;
}
`;

/** util/intstr and api/resource: the two value types that have their own JSON form. */
export const VALUE_TYPES_SCHEMA = `
syntax = "proto2";
package intstr;

message IntOrString {
  optional int64 type = 1;
  optional int32 intVal = 2;
  optional string strVal = 3;
}
`;

/** api/resource Quantity (its JSON form is the canonical string). */
export const RESOURCE_SCHEMA = `
syntax = "proto2";
package resource;

message Quantity {
  optional string string = 1;
}
`;
