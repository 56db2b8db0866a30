/** core/v1 kinds besides Pod: Namespace, ConfigMap, Secret, Service, ServiceAccount, Event, Node, Endpoints. */
import type {
  Condition, ConditionStatus, IntOrString, KubeObject, LocalObjectReference, MicroTime, ObjectMeta, ObjectReference, ResourceList, Time,
} from './meta.js';

/** A core/v1 Namespace. */
export interface Namespace extends KubeObject {
  metadata?: ObjectMeta;
  spec?: { finalizers?: string[] };
  status?: NamespaceStatus;
}

/** core/v1 NamespaceStatus. */
export interface NamespaceStatus {
  phase?: 'Active' | 'Terminating';
  conditions?: NamespaceCondition[];
}

/** A core/v1 NamespaceCondition. */
export interface NamespaceCondition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

/** A core/v1 ConfigMap. */
export interface ConfigMap extends KubeObject {
  metadata?: ObjectMeta;
  data?: Record<string, string>;
  /** Base64-encoded values. */
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

/** A core/v1 Secret. */
export interface Secret extends KubeObject {
  metadata?: ObjectMeta;
  /** Base64-encoded values. */
  data?: Record<string, string>;
  /** Write-only plain-text values merged into data. */
  stringData?: Record<string, string>;
  /** Opaque (default), kubernetes.io/tls, kubernetes.io/service-account-token… */
  type?: string;
  immutable?: boolean;
}

/** A core/v1 ServicePort. */
export interface ServicePort {
  name?: string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  appProtocol?: string;
  port: number;
  /** Number or name of the pods' port; defaults to port. */
  targetPort?: IntOrString;
  nodePort?: number;
}

/** core/v1 ServiceSpec. */
export interface ServiceSpec {
  ports?: ServicePort[];
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  /** ClusterIP (default), NodePort, LoadBalancer or ExternalName. */
  type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';
  externalIPs?: string[];
  sessionAffinity?: 'ClientIP' | 'None';
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  loadBalancerClass?: string;
  externalName?: string;
  externalTrafficPolicy?: 'Cluster' | 'Local';
  internalTrafficPolicy?: 'Cluster' | 'Local';
  healthCheckNodePort?: number;
  publishNotReadyAddresses?: boolean;
  ipFamilies?: ('IPv4' | 'IPv6')[];
  ipFamilyPolicy?: 'SingleStack' | 'PreferDualStack' | 'RequireDualStack';
  allocateLoadBalancerNodePorts?: boolean;
  trafficDistribution?: string;
}

/** An ingress point of a load balancer. */
export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ipMode?: 'VIP' | 'Proxy';
  ports?: { port: number; protocol: 'TCP' | 'UDP' | 'SCTP'; error?: string }[];
}

/** core/v1 ServiceStatus. */
export interface ServiceStatus {
  loadBalancer?: { ingress?: LoadBalancerIngress[] };
  conditions?: Condition[];
}

/** A core/v1 Service. */
export interface Service extends KubeObject {
  metadata?: ObjectMeta;
  spec?: ServiceSpec;
  status?: ServiceStatus;
}

/** A core/v1 ServiceAccount. */
export interface ServiceAccount extends KubeObject {
  metadata?: ObjectMeta;
  secrets?: ObjectReference[];
  imagePullSecrets?: LocalObjectReference[];
  automountServiceAccountToken?: boolean;
}

/** A core/v1 EventSource. */
export interface EventSource {
  component?: string;
  host?: string;
}

/** A core/v1 EventSeries. */
export interface EventSeries {
  count?: number;
  lastObservedTime?: MicroTime;
}

/** A core/v1 Event. */
export interface Event extends KubeObject {
  metadata?: ObjectMeta;
  /** The object the event is about. */
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  source?: EventSource;
  firstTimestamp?: Time;
  lastTimestamp?: Time;
  count?: number;
  /** Normal or Warning. */
  type?: 'Normal' | 'Warning';
  eventTime?: MicroTime;
  series?: EventSeries;
  action?: string;
  related?: ObjectReference;
  reportingComponent?: string;
  reportingInstance?: string;
}

/** A core/v1 Taint. */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  timeAdded?: Time;
}

/** core/v1 NodeSpec. */
export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  /** Set by kubectl cordon. */
  unschedulable?: boolean;
  taints?: Taint[];
}

/** A core/v1 NodeCondition. */
export interface NodeCondition {
  /** Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable. */
  type: string;
  status: ConditionStatus;
  lastHeartbeatTime?: Time;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

/** A core/v1 NodeAddress. */
export interface NodeAddress {
  type: 'Hostname' | 'InternalIP' | 'ExternalIP' | 'InternalDNS' | 'ExternalDNS';
  address: string;
}

/** core/v1 NodeSystemInfo. */
export interface NodeSystemInfo {
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  containerRuntimeVersion: string;
  kubeletVersion: string;
  kubeProxyVersion: string;
  operatingSystem: string;
  architecture: string;
}

/** core/v1 NodeStatus. */
export interface NodeStatus {
  capacity?: ResourceList;
  allocatable?: ResourceList;
  phase?: string;
  conditions?: NodeCondition[];
  addresses?: NodeAddress[];
  daemonEndpoints?: { kubeletEndpoint?: { Port: number } };
  nodeInfo?: NodeSystemInfo;
  images?: { names?: string[]; sizeBytes?: number }[];
}

/** A core/v1 Node. */
export interface Node extends KubeObject {
  metadata?: ObjectMeta;
  spec?: NodeSpec;
  status?: NodeStatus;
}

/** A core/v1 EndpointAddress. */
export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

/** A core/v1 EndpointPort. */
export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  appProtocol?: string;
}

/** A core/v1 EndpointSubset. */
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/** A core/v1 Endpoints (the kind's name is plural in Kubernetes too). */
export interface Endpoints extends KubeObject {
  metadata?: ObjectMeta;
  subsets?: EndpointSubset[];
}
