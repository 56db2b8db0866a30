/**
 * Protobuf schema text for networking.k8s.io/v1 Ingress (Kubernetes field numbers, JSON field
 * names; see schema-meta.ts for the `(ptr)` and `(inline)` field options).
 */
export const NETWORKING_V1_SCHEMA = `
syntax = "proto2";
package networking.v1;

message Ingress {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional IngressSpec spec = 2;
}
message IngressSpec {
  optional string ingressClassName = 4 [(ptr) = true];
  optional IngressBackend defaultBackend = 1 [(ptr) = true];
  repeated IngressTLS tls = 2;
  repeated IngressRule rules = 3;
}
message IngressTLS {
  repeated string hosts = 1;
  optional string secretName = 2;
}
message IngressRule {
  optional string host = 1;
  optional IngressRuleValue ingressRuleValue = 2 [(inline) = true];
}
message IngressRuleValue {
  optional HTTPIngressRuleValue http = 1 [(ptr) = true];
}
message HTTPIngressRuleValue {
  repeated HTTPIngressPath paths = 1;
}
message HTTPIngressPath {
  optional string path = 1;
  optional string pathType = 3 [(ptr) = true];
  optional IngressBackend backend = 2;
}
message IngressBackend {
  optional IngressServiceBackend service = 4 [(ptr) = true];
  optional .core.v1.TypedLocalObjectReference resource = 3 [(ptr) = true];
}
message IngressServiceBackend {
  optional string name = 1;
  optional ServiceBackendPort port = 2;
}
message ServiceBackendPort {
  optional string name = 1;
  optional int32 number = 2;
}
`;
