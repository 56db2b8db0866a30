/**
 * Protobuf schema text for core/v1 (Kubernetes field numbers, JSON field names). Covers the
 * objects `kubectl create` sends (Namespace, ConfigMap, Secret, ServiceAccount, Service,
 * ResourceQuota) and the pod template embedded in workloads. Status messages and rarely used
 * volume sources are left out: their field numbers are skipped on decode.
 * See schema-meta.ts for the `(ptr)` and `(inline)` field options.
 */
export const CORE_V1_SCHEMA = `
syntax = "proto2";
package core.v1;

message Namespace {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}
message NamespaceSpec {
  repeated string finalizers = 1;
}
message NamespaceStatus {
  optional string phase = 1;
}

message ConfigMap {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 4 [(ptr) = true];
  map<string, string> data = 2;
  map<string, bytes> binaryData = 3;
}

message Secret {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 5 [(ptr) = true];
  map<string, bytes> data = 2;
  map<string, string> stringData = 4;
  optional string type = 3;
}

message ServiceAccount {
  optional .meta.v1.ObjectMeta metadata = 1;
  repeated ObjectReference secrets = 2;
  repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4 [(ptr) = true];
}

message ObjectReference {
  optional string kind = 1;
  optional string namespace = 2;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional string resourceVersion = 6;
  optional string fieldPath = 7;
}
message LocalObjectReference {
  optional string name = 1;
}
message TypedLocalObjectReference {
  optional string apiGroup = 1 [(ptr) = true];
  optional string kind = 2;
  optional string name = 3;
}

message Service {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional ServiceSpec spec = 2;
}
message ServiceSpec {
  repeated ServicePort ports = 1;
  map<string, string> selector = 2;
  optional string clusterIP = 3;
  repeated string clusterIPs = 18;
  optional string type = 4;
  repeated string externalIPs = 5;
  optional string sessionAffinity = 7;
  optional string loadBalancerIP = 8;
  repeated string loadBalancerSourceRanges = 9;
  optional string externalName = 10;
  optional string externalTrafficPolicy = 11;
  optional int32 healthCheckNodePort = 12;
  optional bool publishNotReadyAddresses = 13;
  optional SessionAffinityConfig sessionAffinityConfig = 14 [(ptr) = true];
  repeated string ipFamilies = 19;
  optional string ipFamilyPolicy = 17 [(ptr) = true];
  optional bool allocateLoadBalancerNodePorts = 20 [(ptr) = true];
  optional string loadBalancerClass = 21 [(ptr) = true];
  optional string internalTrafficPolicy = 22 [(ptr) = true];
  optional string trafficDistribution = 23 [(ptr) = true];
}
message ServicePort {
  optional string name = 1;
  optional string protocol = 2;
  optional string appProtocol = 6 [(ptr) = true];
  optional int32 port = 3;
  optional .intstr.IntOrString targetPort = 4;
  optional int32 nodePort = 5;
}
message SessionAffinityConfig {
  optional ClientIPConfig clientIP = 1 [(ptr) = true];
}
message ClientIPConfig {
  optional int32 timeoutSeconds = 1 [(ptr) = true];
}

message ResourceQuota {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional ResourceQuotaSpec spec = 2;
}
message ResourceQuotaSpec {
  map<string, .resource.Quantity> hard = 1;
  repeated string scopes = 2;
  optional ScopeSelector scopeSelector = 3 [(ptr) = true];
}
message ScopeSelector {
  repeated ScopedResourceSelectorRequirement matchExpressions = 1;
}
message ScopedResourceSelectorRequirement {
  optional string scopeName = 1;
  optional string operator = 2;
  repeated string values = 3;
}

message Pod {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}
message PodTemplateSpec {
  optional .meta.v1.ObjectMeta metadata = 1;
  optional PodSpec spec = 2;
}
message PodSpec {
  repeated Volume volumes = 1;
  repeated Container initContainers = 20;
  repeated Container containers = 2;
  optional string restartPolicy = 3;
  optional int64 terminationGracePeriodSeconds = 4 [(ptr) = true];
  optional int64 activeDeadlineSeconds = 5 [(ptr) = true];
  optional string dnsPolicy = 6;
  map<string, string> nodeSelector = 7;
  optional string serviceAccountName = 8;
  optional string serviceAccount = 9;
  optional bool automountServiceAccountToken = 21 [(ptr) = true];
  optional string nodeName = 10;
  optional bool hostNetwork = 11;
  optional bool hostPID = 12;
  optional bool hostIPC = 13;
  optional bool shareProcessNamespace = 27 [(ptr) = true];
  optional PodSecurityContext securityContext = 14 [(ptr) = true];
  repeated LocalObjectReference imagePullSecrets = 15;
  optional string hostname = 16;
  optional string subdomain = 17;
  optional Affinity affinity = 18 [(ptr) = true];
  optional string schedulerName = 19;
  repeated Toleration tolerations = 22;
  repeated HostAlias hostAliases = 23;
  optional string priorityClassName = 24;
  optional int32 priority = 25 [(ptr) = true];
  optional PodDNSConfig dnsConfig = 26 [(ptr) = true];
  repeated PodReadinessGate readinessGates = 28;
  optional string runtimeClassName = 29 [(ptr) = true];
  optional bool enableServiceLinks = 30 [(ptr) = true];
  optional string preemptionPolicy = 31 [(ptr) = true];
  map<string, .resource.Quantity> overhead = 32;
  repeated TopologySpreadConstraint topologySpreadConstraints = 33;
  optional bool setHostnameAsFQDN = 35 [(ptr) = true];
  optional PodOS os = 36 [(ptr) = true];
  optional bool hostUsers = 37 [(ptr) = true];
  repeated PodSchedulingGate schedulingGates = 38;
  optional ResourceRequirements resources = 40 [(ptr) = true];
  optional string hostnameOverride = 41 [(ptr) = true];
}

message Container {
  optional string name = 1;
  optional string image = 2;
  repeated string command = 3;
  repeated string args = 4;
  optional string workingDir = 5;
  repeated ContainerPort ports = 6;
  repeated EnvFromSource envFrom = 19;
  repeated EnvVar env = 7;
  optional ResourceRequirements resources = 8;
  repeated ContainerResizePolicy resizePolicy = 23;
  optional string restartPolicy = 24 [(ptr) = true];
  repeated VolumeMount volumeMounts = 9;
  repeated VolumeDevice volumeDevices = 21;
  optional Probe livenessProbe = 10 [(ptr) = true];
  optional Probe readinessProbe = 11 [(ptr) = true];
  optional Probe startupProbe = 22 [(ptr) = true];
  optional Lifecycle lifecycle = 12 [(ptr) = true];
  optional string terminationMessagePath = 13;
  optional string terminationMessagePolicy = 20;
  optional string imagePullPolicy = 14;
  optional SecurityContext securityContext = 15 [(ptr) = true];
  optional bool stdin = 16;
  optional bool stdinOnce = 17;
  optional bool tty = 18;
}
message ContainerPort {
  optional string name = 1;
  optional int32 hostPort = 2;
  optional int32 containerPort = 3;
  optional string protocol = 4;
  optional string hostIP = 5;
}
message ContainerResizePolicy {
  optional string resourceName = 1;
  optional string restartPolicy = 2;
}
message EnvFromSource {
  optional string prefix = 1;
  optional ConfigMapEnvSource configMapRef = 2 [(ptr) = true];
  optional SecretEnvSource secretRef = 3 [(ptr) = true];
}
message ConfigMapEnvSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional bool optional = 2 [(ptr) = true];
}
message SecretEnvSource {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional bool optional = 2 [(ptr) = true];
}
message EnvVar {
  optional string name = 1;
  optional string value = 2;
  optional EnvVarSource valueFrom = 3 [(ptr) = true];
}
message EnvVarSource {
  optional ObjectFieldSelector fieldRef = 1 [(ptr) = true];
  optional ResourceFieldSelector resourceFieldRef = 2 [(ptr) = true];
  optional ConfigMapKeySelector configMapKeyRef = 3 [(ptr) = true];
  optional SecretKeySelector secretKeyRef = 4 [(ptr) = true];
}
message ObjectFieldSelector {
  optional string apiVersion = 1;
  optional string fieldPath = 2;
}
message ResourceFieldSelector {
  optional string containerName = 1;
  optional string resource = 2;
  optional .resource.Quantity divisor = 3;
}
message ConfigMapKeySelector {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional string key = 2;
  optional bool optional = 3 [(ptr) = true];
}
message SecretKeySelector {
  optional LocalObjectReference localObjectReference = 1 [(inline) = true];
  optional string key = 2;
  optional bool optional = 3 [(ptr) = true];
}
message ResourceRequirements {
  map<string, .resource.Quantity> limits = 1;
  map<string, .resource.Quantity> requests = 2;
  repeated ResourceClaim claims = 3;
}
message ResourceClaim {
  optional string name = 1;
  optional string request = 2;
}
message VolumeMount {
  optional string name = 1;
  optional bool readOnly = 2;
  optional string recursiveReadOnly = 7 [(ptr) = true];
  optional string mountPath = 3;
  optional string subPath = 4;
  optional string mountPropagation = 5 [(ptr) = true];
  optional string subPathExpr = 6;
}
message VolumeDevice {
  optional string name = 1;
  optional string devicePath = 2;
}

message Probe {
  optional ProbeHandler handler = 1 [(inline) = true];
  optional int32 initialDelaySeconds = 2;
  optional int32 timeoutSeconds = 3;
  optional int32 periodSeconds = 4;
  optional int32 successThreshold = 5;
  optional int32 failureThreshold = 6;
  optional int64 terminationGracePeriodSeconds = 7 [(ptr) = true];
}
message ProbeHandler {
  optional ExecAction exec = 1 [(ptr) = true];
  optional HTTPGetAction httpGet = 2 [(ptr) = true];
  optional TCPSocketAction tcpSocket = 3 [(ptr) = true];
  optional GRPCAction grpc = 4 [(ptr) = true];
}
message ExecAction {
  repeated string command = 1;
}
message HTTPGetAction {
  optional string path = 1;
  optional .intstr.IntOrString port = 2;
  optional string host = 3;
  optional string scheme = 4;
  repeated HTTPHeader httpHeaders = 5;
}
message HTTPHeader {
  optional string name = 1;
  optional string value = 2;
}
message TCPSocketAction {
  optional .intstr.IntOrString port = 1;
  optional string host = 2;
}
message GRPCAction {
  optional int32 port = 1;
  optional string service = 2 [(ptr) = true];
}
message Lifecycle {
  optional LifecycleHandler postStart = 1 [(ptr) = true];
  optional LifecycleHandler preStop = 2 [(ptr) = true];
  optional string stopSignal = 3 [(ptr) = true];
}
message LifecycleHandler {
  optional ExecAction exec = 1 [(ptr) = true];
  optional HTTPGetAction httpGet = 2 [(ptr) = true];
  optional TCPSocketAction tcpSocket = 3 [(ptr) = true];
  optional SleepAction sleep = 4 [(ptr) = true];
}
message SleepAction {
  optional int64 seconds = 1 [(ptr) = true];
}

message SecurityContext {
  optional Capabilities capabilities = 1 [(ptr) = true];
  optional bool privileged = 2 [(ptr) = true];
  optional SELinuxOptions seLinuxOptions = 3 [(ptr) = true];
  optional WindowsSecurityContextOptions windowsOptions = 10 [(ptr) = true];
  optional int64 runAsUser = 4 [(ptr) = true];
  optional int64 runAsGroup = 8 [(ptr) = true];
  optional bool runAsNonRoot = 5 [(ptr) = true];
  optional bool readOnlyRootFilesystem = 6 [(ptr) = true];
  optional bool allowPrivilegeEscalation = 7 [(ptr) = true];
  optional string procMount = 9 [(ptr) = true];
  optional SeccompProfile seccompProfile = 11 [(ptr) = true];
  optional AppArmorProfile appArmorProfile = 12 [(ptr) = true];
}
message PodSecurityContext {
  optional SELinuxOptions seLinuxOptions = 1 [(ptr) = true];
  optional WindowsSecurityContextOptions windowsOptions = 8 [(ptr) = true];
  optional int64 runAsUser = 2 [(ptr) = true];
  optional int64 runAsGroup = 6 [(ptr) = true];
  optional bool runAsNonRoot = 3 [(ptr) = true];
  repeated int64 supplementalGroups = 4;
  optional string supplementalGroupsPolicy = 12 [(ptr) = true];
  optional int64 fsGroup = 5 [(ptr) = true];
  repeated Sysctl sysctls = 7;
  optional string fsGroupChangePolicy = 9 [(ptr) = true];
  optional SeccompProfile seccompProfile = 10 [(ptr) = true];
  optional AppArmorProfile appArmorProfile = 11 [(ptr) = true];
  optional string seLinuxChangePolicy = 13 [(ptr) = true];
}
message Capabilities {
  repeated string add = 1;
  repeated string drop = 2;
}
message SELinuxOptions {
  optional string user = 1;
  optional string role = 2;
  optional string type = 3;
  optional string level = 4;
}
message WindowsSecurityContextOptions {
  optional string gmsaCredentialSpecName = 1 [(ptr) = true];
  optional string gmsaCredentialSpec = 2 [(ptr) = true];
  optional string runAsUserName = 3 [(ptr) = true];
  optional bool hostProcess = 4 [(ptr) = true];
}
message SeccompProfile {
  optional string type = 1;
  optional string localhostProfile = 2 [(ptr) = true];
}
message AppArmorProfile {
  optional string type = 1;
  optional string localhostProfile = 2 [(ptr) = true];
}
message Sysctl {
  optional string name = 1;
  optional string value = 2;
}
`;
