// Generated from the model of the built-in API; do not edit.
// Derived from the Kubernetes v1.32.0 API definitions (Apache License 2.0).
// Rewrite it with: npx tsc -b && KPLANE_UPDATE_GENERATED=1 node --test packages/runtime/dist/kinds/builtin/

import type { KubeObject, ObjectMeta as KubeObjectMeta } from '@kplane/api';

/** core/v1 AWSElasticBlockStoreVolumeSource. */
export interface AWSElasticBlockStoreVolumeSource {
  fsType?: string;
  partition?: number;
  readOnly?: boolean;
  volumeID: string;
}

/** core/v1 Affinity. */
export interface Affinity {
  nodeAffinity?: NodeAffinity;
  podAffinity?: PodAffinity;
  podAntiAffinity?: PodAntiAffinity;
}

/** core/v1 AppArmorProfile. */
export interface AppArmorProfile {
  localhostProfile?: string;
  type: 'Localhost' | 'RuntimeDefault' | 'Unconfined';
}

/** core/v1 AttachedVolume. */
export interface AttachedVolume {
  devicePath: string;
  name: string;
}

/** core/v1 AzureDiskVolumeSource. */
export interface AzureDiskVolumeSource {
  cachingMode?: 'None' | 'ReadOnly' | 'ReadWrite';
  diskName: string;
  diskURI: string;
  fsType?: string;
  kind?: 'Dedicated' | 'Managed' | 'Shared';
  readOnly?: boolean;
}

/** core/v1 AzureFilePersistentVolumeSource. */
export interface AzureFilePersistentVolumeSource {
  readOnly?: boolean;
  secretName: string;
  secretNamespace?: string;
  shareName: string;
}

/** core/v1 AzureFileVolumeSource. */
export interface AzureFileVolumeSource {
  readOnly?: boolean;
  secretName: string;
  shareName: string;
}

/** core/v1 Binding. */
export interface Binding extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Binding';
  metadata?: ObjectMeta;
  target: ObjectReference;
}

/** core/v1 CSIPersistentVolumeSource. */
export interface CSIPersistentVolumeSource {
  controllerExpandSecretRef?: SecretReference;
  controllerPublishSecretRef?: SecretReference;
  driver: string;
  fsType?: string;
  nodeExpandSecretRef?: SecretReference;
  nodePublishSecretRef?: SecretReference;
  nodeStageSecretRef?: SecretReference;
  readOnly?: boolean;
  volumeAttributes?: Record<string, string>;
  volumeHandle: string;
}

/** core/v1 CSIVolumeSource. */
export interface CSIVolumeSource {
  driver: string;
  fsType?: string;
  nodePublishSecretRef?: LocalObjectReference;
  readOnly?: boolean;
  volumeAttributes?: Record<string, string>;
}

/** core/v1 Capabilities. */
export interface Capabilities {
  add?: string[];
  drop?: string[];
}

/** core/v1 CephFSPersistentVolumeSource. */
export interface CephFSPersistentVolumeSource {
  monitors: string[];
  path?: string;
  readOnly?: boolean;
  secretFile?: string;
  secretRef?: SecretReference;
  user?: string;
}

/** core/v1 CephFSVolumeSource. */
export interface CephFSVolumeSource {
  monitors: string[];
  path?: string;
  readOnly?: boolean;
  secretFile?: string;
  secretRef?: LocalObjectReference;
  user?: string;
}

/** core/v1 CinderPersistentVolumeSource. */
export interface CinderPersistentVolumeSource {
  fsType?: string;
  readOnly?: boolean;
  secretRef?: SecretReference;
  volumeID: string;
}

/** core/v1 CinderVolumeSource. */
export interface CinderVolumeSource {
  fsType?: string;
  readOnly?: boolean;
  secretRef?: LocalObjectReference;
  volumeID: string;
}

/** core/v1 ClientIPConfig. */
export interface ClientIPConfig {
  timeoutSeconds?: number;
}

/** core/v1 ClusterTrustBundleProjection. */
export interface ClusterTrustBundleProjection {
  labelSelector?: LabelSelector;
  name?: string;
  optional?: boolean;
  path: string;
  signerName?: string;
}

/** core/v1 ComponentCondition. */
export interface ComponentCondition {
  error?: string;
  message?: string;
  status: string;
  type: string;
}

/** core/v1 ComponentStatus. */
export interface ComponentStatus extends KubeObject {
  apiVersion?: 'v1';
  conditions?: ComponentCondition[];
  kind?: 'ComponentStatus';
  metadata?: ObjectMeta;
}

/** core/v1 ComponentStatusList. */
export interface ComponentStatusList {
  apiVersion?: 'v1';
  items: ComponentStatus[];
  kind?: 'ComponentStatusList';
  metadata?: ListMeta;
}

/** core/v1 ConfigMap. */
export interface ConfigMap extends KubeObject {
  apiVersion?: 'v1';
  binaryData?: Record<string, string>;
  data?: Record<string, string>;
  immutable?: boolean;
  kind?: 'ConfigMap';
  metadata?: ObjectMeta;
}

/** core/v1 ConfigMapEnvSource. */
export interface ConfigMapEnvSource {
  name?: string;
  optional?: boolean;
}

/** core/v1 ConfigMapKeySelector. */
export interface ConfigMapKeySelector {
  key: string;
  name?: string;
  optional?: boolean;
}

/** core/v1 ConfigMapList. */
export interface ConfigMapList {
  apiVersion?: 'v1';
  items: ConfigMap[];
  kind?: 'ConfigMapList';
  metadata?: ListMeta;
}

/** core/v1 ConfigMapNodeConfigSource. */
export interface ConfigMapNodeConfigSource {
  kubeletConfigKey: string;
  name: string;
  namespace: string;
  resourceVersion?: string;
  uid?: string;
}

/** core/v1 ConfigMapProjection. */
export interface ConfigMapProjection {
  items?: KeyToPath[];
  name?: string;
  optional?: boolean;
}

/** core/v1 ConfigMapVolumeSource. */
export interface ConfigMapVolumeSource {
  defaultMode?: number;
  items?: KeyToPath[];
  name?: string;
  optional?: boolean;
}

/** core/v1 Container. */
export interface Container {
  args?: string[];
  command?: string[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  image?: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  lifecycle?: Lifecycle;
  livenessProbe?: Probe;
  name: string;
  ports?: ContainerPort[];
  readinessProbe?: Probe;
  resizePolicy?: ContainerResizePolicy[];
  resources?: ResourceRequirements;
  restartPolicy?: string;
  securityContext?: SecurityContext;
  startupProbe?: Probe;
  stdin?: boolean;
  stdinOnce?: boolean;
  terminationMessagePath?: string;
  terminationMessagePolicy?: 'FallbackToLogsOnError' | 'File';
  tty?: boolean;
  volumeDevices?: VolumeDevice[];
  volumeMounts?: VolumeMount[];
  workingDir?: string;
}

/** core/v1 ContainerImage. */
export interface ContainerImage {
  names?: string[];
  sizeBytes?: number;
}

/** core/v1 ContainerPort. */
export interface ContainerPort {
  containerPort: number;
  hostIP?: string;
  hostPort?: number;
  name?: string;
  protocol?: 'SCTP' | 'TCP' | 'UDP';
}

/** core/v1 ContainerResizePolicy. */
export interface ContainerResizePolicy {
  resourceName: string;
  restartPolicy: string;
}

/** core/v1 ContainerState. */
export interface ContainerState {
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
  waiting?: ContainerStateWaiting;
}

/** core/v1 ContainerStateRunning. */
export interface ContainerStateRunning {
  startedAt?: Time;
}

/** core/v1 ContainerStateTerminated. */
export interface ContainerStateTerminated {
  containerID?: string;
  exitCode: number;
  finishedAt?: Time;
  message?: string;
  reason?: string;
  signal?: number;
  startedAt?: Time;
}

/** core/v1 ContainerStateWaiting. */
export interface ContainerStateWaiting {
  message?: string;
  reason?: string;
}

/** core/v1 ContainerStatus. */
export interface ContainerStatus {
  allocatedResources?: Record<string, Quantity>;
  allocatedResourcesStatus?: ResourceStatus[];
  containerID?: string;
  image: string;
  imageID: string;
  lastState?: ContainerState;
  name: string;
  ready: boolean;
  resources?: ResourceRequirements;
  restartCount: number;
  started?: boolean;
  state?: ContainerState;
  user?: ContainerUser;
  volumeMounts?: VolumeMountStatus[];
}

/** core/v1 ContainerUser. */
export interface ContainerUser {
  linux?: LinuxContainerUser;
}

/** core/v1 DaemonEndpoint. */
export interface DaemonEndpoint {
  Port: number;
}

/** core/v1 DownwardAPIProjection. */
export interface DownwardAPIProjection {
  items?: DownwardAPIVolumeFile[];
}

/** core/v1 DownwardAPIVolumeFile. */
export interface DownwardAPIVolumeFile {
  fieldRef?: ObjectFieldSelector;
  mode?: number;
  path: string;
  resourceFieldRef?: ResourceFieldSelector;
}

/** core/v1 DownwardAPIVolumeSource. */
export interface DownwardAPIVolumeSource {
  defaultMode?: number;
  items?: DownwardAPIVolumeFile[];
}

/** core/v1 EmptyDirVolumeSource. */
export interface EmptyDirVolumeSource {
  medium?: string;
  sizeLimit?: Quantity;
}

/** core/v1 EndpointAddress. */
export interface EndpointAddress {
  hostname?: string;
  ip: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

/** core/v1 EndpointPort. */
export interface EndpointPort {
  appProtocol?: string;
  name?: string;
  port: number;
  protocol?: 'SCTP' | 'TCP' | 'UDP';
}

/** core/v1 EndpointSubset. */
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/** core/v1 Endpoints. */
export interface Endpoints extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Endpoints';
  metadata?: ObjectMeta;
  subsets?: EndpointSubset[];
}

/** core/v1 EndpointsList. */
export interface EndpointsList {
  apiVersion?: 'v1';
  items: Endpoints[];
  kind?: 'EndpointsList';
  metadata?: ListMeta;
}

/** core/v1 EnvFromSource. */
export interface EnvFromSource {
  configMapRef?: ConfigMapEnvSource;
  prefix?: string;
  secretRef?: SecretEnvSource;
}

/** core/v1 EnvVar. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

/** core/v1 EnvVarSource. */
export interface EnvVarSource {
  configMapKeyRef?: ConfigMapKeySelector;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  secretKeyRef?: SecretKeySelector;
}

/** core/v1 EphemeralContainer. */
export interface EphemeralContainer {
  args?: string[];
  command?: string[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  image?: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  lifecycle?: Lifecycle;
  livenessProbe?: Probe;
  name: string;
  ports?: ContainerPort[];
  readinessProbe?: Probe;
  resizePolicy?: ContainerResizePolicy[];
  resources?: ResourceRequirements;
  restartPolicy?: string;
  securityContext?: SecurityContext;
  startupProbe?: Probe;
  stdin?: boolean;
  stdinOnce?: boolean;
  targetContainerName?: string;
  terminationMessagePath?: string;
  terminationMessagePolicy?: 'FallbackToLogsOnError' | 'File';
  tty?: boolean;
  volumeDevices?: VolumeDevice[];
  volumeMounts?: VolumeMount[];
  workingDir?: string;
}

/** core/v1 EphemeralVolumeSource. */
export interface EphemeralVolumeSource {
  volumeClaimTemplate?: PersistentVolumeClaimTemplate;
}

/** core/v1 Event. */
export interface Event extends KubeObject {
  action?: string;
  apiVersion?: 'v1';
  count?: number;
  eventTime?: MicroTime;
  firstTimestamp?: Time;
  involvedObject: ObjectReference;
  kind?: 'Event';
  lastTimestamp?: Time;
  message?: string;
  metadata: ObjectMeta;
  reason?: string;
  related?: ObjectReference;
  reportingComponent?: string;
  reportingInstance?: string;
  series?: EventSeries;
  source?: EventSource;
  type?: string;
}

/** core/v1 EventList. */
export interface EventList {
  apiVersion?: 'v1';
  items: Event[];
  kind?: 'EventList';
  metadata?: ListMeta;
}

/** core/v1 EventSeries. */
export interface EventSeries {
  count?: number;
  lastObservedTime?: MicroTime;
}

/** core/v1 EventSource. */
export interface EventSource {
  component?: string;
  host?: string;
}

/** core/v1 ExecAction. */
export interface ExecAction {
  command?: string[];
}

/** core/v1 FCVolumeSource. */
export interface FCVolumeSource {
  fsType?: string;
  lun?: number;
  readOnly?: boolean;
  targetWWNs?: string[];
  wwids?: string[];
}

/** core/v1 FlexPersistentVolumeSource. */
export interface FlexPersistentVolumeSource {
  driver: string;
  fsType?: string;
  options?: Record<string, string>;
  readOnly?: boolean;
  secretRef?: SecretReference;
}

/** core/v1 FlexVolumeSource. */
export interface FlexVolumeSource {
  driver: string;
  fsType?: string;
  options?: Record<string, string>;
  readOnly?: boolean;
  secretRef?: LocalObjectReference;
}

/** core/v1 FlockerVolumeSource. */
export interface FlockerVolumeSource {
  datasetName?: string;
  datasetUUID?: string;
}

/** core/v1 GCEPersistentDiskVolumeSource. */
export interface GCEPersistentDiskVolumeSource {
  fsType?: string;
  partition?: number;
  pdName: string;
  readOnly?: boolean;
}

/** core/v1 GRPCAction. */
export interface GRPCAction {
  port: number;
  service?: string;
}

/** core/v1 GitRepoVolumeSource. */
export interface GitRepoVolumeSource {
  directory?: string;
  repository: string;
  revision?: string;
}

/** core/v1 GlusterfsPersistentVolumeSource. */
export interface GlusterfsPersistentVolumeSource {
  endpoints: string;
  endpointsNamespace?: string;
  path: string;
  readOnly?: boolean;
}

/** core/v1 GlusterfsVolumeSource. */
export interface GlusterfsVolumeSource {
  endpoints: string;
  path: string;
  readOnly?: boolean;
}

/** core/v1 HTTPGetAction. */
export interface HTTPGetAction {
  host?: string;
  httpHeaders?: HTTPHeader[];
  path?: string;
  port: IntOrString;
  scheme?: 'HTTP' | 'HTTPS';
}

/** core/v1 HTTPHeader. */
export interface HTTPHeader {
  name: string;
  value: string;
}

/** core/v1 HostAlias. */
export interface HostAlias {
  hostnames?: string[];
  ip: string;
}

/** core/v1 HostIP. */
export interface HostIP {
  ip: string;
}

/** core/v1 HostPathVolumeSource. */
export interface HostPathVolumeSource {
  path: string;
  type?:
    | ''
    | 'BlockDevice'
    | 'CharDevice'
    | 'Directory'
    | 'DirectoryOrCreate'
    | 'File'
    | 'FileOrCreate'
    | 'Socket';
}

/** core/v1 ISCSIPersistentVolumeSource. */
export interface ISCSIPersistentVolumeSource {
  chapAuthDiscovery?: boolean;
  chapAuthSession?: boolean;
  fsType?: string;
  initiatorName?: string;
  iqn: string;
  iscsiInterface?: string;
  lun: number;
  portals?: string[];
  readOnly?: boolean;
  secretRef?: SecretReference;
  targetPortal: string;
}

/** core/v1 ISCSIVolumeSource. */
export interface ISCSIVolumeSource {
  chapAuthDiscovery?: boolean;
  chapAuthSession?: boolean;
  fsType?: string;
  initiatorName?: string;
  iqn: string;
  iscsiInterface?: string;
  lun: number;
  portals?: string[];
  readOnly?: boolean;
  secretRef?: LocalObjectReference;
  targetPortal: string;
}

/** core/v1 ImageVolumeSource. */
export interface ImageVolumeSource {
  pullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  reference?: string;
}

/** core/v1 KeyToPath. */
export interface KeyToPath {
  key: string;
  mode?: number;
  path: string;
}

/** core/v1 Lifecycle. */
export interface Lifecycle {
  postStart?: LifecycleHandler;
  preStop?: LifecycleHandler;
}

/** core/v1 LifecycleHandler. */
export interface LifecycleHandler {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  sleep?: SleepAction;
  tcpSocket?: TCPSocketAction;
}

/** core/v1 LimitRange. */
export interface LimitRange extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'LimitRange';
  metadata?: ObjectMeta;
  spec?: LimitRangeSpec;
}

/** core/v1 LimitRangeItem. */
export interface LimitRangeItem {
  default?: Record<string, Quantity>;
  defaultRequest?: Record<string, Quantity>;
  max?: Record<string, Quantity>;
  maxLimitRequestRatio?: Record<string, Quantity>;
  min?: Record<string, Quantity>;
  type: string;
}

/** core/v1 LimitRangeList. */
export interface LimitRangeList {
  apiVersion?: 'v1';
  items: LimitRange[];
  kind?: 'LimitRangeList';
  metadata?: ListMeta;
}

/** core/v1 LimitRangeSpec. */
export interface LimitRangeSpec {
  limits: LimitRangeItem[];
}

/** core/v1 LinuxContainerUser. */
export interface LinuxContainerUser {
  gid: number;
  supplementalGroups?: number[];
  uid: number;
}

/** core/v1 LoadBalancerIngress. */
export interface LoadBalancerIngress {
  hostname?: string;
  ip?: string;
  ipMode?: string;
  ports?: PortStatus[];
}

/** core/v1 LoadBalancerStatus. */
export interface LoadBalancerStatus {
  ingress?: LoadBalancerIngress[];
}

/** core/v1 LocalObjectReference. */
export interface LocalObjectReference {
  name?: string;
}

/** core/v1 LocalVolumeSource. */
export interface LocalVolumeSource {
  fsType?: string;
  path: string;
}

/** core/v1 ModifyVolumeStatus. */
export interface ModifyVolumeStatus {
  status: 'InProgress' | 'Infeasible' | 'Pending';
  targetVolumeAttributesClassName?: string;
}

/** core/v1 NFSVolumeSource. */
export interface NFSVolumeSource {
  path: string;
  readOnly?: boolean;
  server: string;
}

/** core/v1 Namespace. */
export interface Namespace extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Namespace';
  metadata?: ObjectMeta;
  spec?: NamespaceSpec;
  status?: NamespaceStatus;
}

/** core/v1 NamespaceCondition. */
export interface NamespaceCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** core/v1 NamespaceList. */
export interface NamespaceList {
  apiVersion?: 'v1';
  items: Namespace[];
  kind?: 'NamespaceList';
  metadata?: ListMeta;
}

/** core/v1 NamespaceSpec. */
export interface NamespaceSpec {
  finalizers?: string[];
}

/** core/v1 NamespaceStatus. */
export interface NamespaceStatus {
  conditions?: NamespaceCondition[];
  phase?: 'Active' | 'Terminating';
}

/** core/v1 Node. */
export interface Node extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Node';
  metadata?: ObjectMeta;
  spec?: NodeSpec;
  status?: NodeStatus;
}

/** core/v1 NodeAddress. */
export interface NodeAddress {
  address: string;
  type: string;
}

/** core/v1 NodeAffinity. */
export interface NodeAffinity {
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
  requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
}

/** core/v1 NodeCondition. */
export interface NodeCondition {
  lastHeartbeatTime?: Time;
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** core/v1 NodeConfigSource. */
export interface NodeConfigSource {
  configMap?: ConfigMapNodeConfigSource;
}

/** core/v1 NodeConfigStatus. */
export interface NodeConfigStatus {
  active?: NodeConfigSource;
  assigned?: NodeConfigSource;
  error?: string;
  lastKnownGood?: NodeConfigSource;
}

/** core/v1 NodeDaemonEndpoints. */
export interface NodeDaemonEndpoints {
  kubeletEndpoint?: DaemonEndpoint;
}

/** core/v1 NodeFeatures. */
export interface NodeFeatures {
  supplementalGroupsPolicy?: boolean;
}

/** core/v1 NodeList. */
export interface NodeList {
  apiVersion?: 'v1';
  items: Node[];
  kind?: 'NodeList';
  metadata?: ListMeta;
}

/** core/v1 NodeRuntimeHandler. */
export interface NodeRuntimeHandler {
  features?: NodeRuntimeHandlerFeatures;
  name?: string;
}

/** core/v1 NodeRuntimeHandlerFeatures. */
export interface NodeRuntimeHandlerFeatures {
  recursiveReadOnlyMounts?: boolean;
  userNamespaces?: boolean;
}

/** core/v1 NodeSelector. */
export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

/** core/v1 NodeSelectorRequirement. */
export interface NodeSelectorRequirement {
  key: string;
  operator: 'DoesNotExist' | 'Exists' | 'Gt' | 'In' | 'Lt' | 'NotIn';
  values?: string[];
}

/** core/v1 NodeSelectorTerm. */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

/** core/v1 NodeSpec. */
export interface NodeSpec {
  configSource?: NodeConfigSource;
  externalID?: string;
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  taints?: Taint[];
  unschedulable?: boolean;
}

/** core/v1 NodeStatus. */
export interface NodeStatus {
  addresses?: NodeAddress[];
  allocatable?: Record<string, Quantity>;
  capacity?: Record<string, Quantity>;
  conditions?: NodeCondition[];
  config?: NodeConfigStatus;
  daemonEndpoints?: NodeDaemonEndpoints;
  features?: NodeFeatures;
  images?: ContainerImage[];
  nodeInfo?: NodeSystemInfo;
  phase?: 'Pending' | 'Running' | 'Terminated';
  runtimeHandlers?: NodeRuntimeHandler[];
  volumesAttached?: AttachedVolume[];
  volumesInUse?: string[];
}

/** core/v1 NodeSystemInfo. */
export interface NodeSystemInfo {
  architecture: string;
  bootID: string;
  containerRuntimeVersion: string;
  kernelVersion: string;
  kubeProxyVersion: string;
  kubeletVersion: string;
  machineID: string;
  operatingSystem: string;
  osImage: string;
  systemUUID: string;
}

/** core/v1 ObjectFieldSelector. */
export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath: string;
}

/** core/v1 ObjectReference. */
export interface ObjectReference {
  apiVersion?: string;
  fieldPath?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  uid?: string;
}

/** core/v1 PersistentVolume. */
export interface PersistentVolume extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'PersistentVolume';
  metadata?: ObjectMeta;
  spec?: PersistentVolumeSpec;
  status?: PersistentVolumeStatus;
}

/** core/v1 PersistentVolumeClaim. */
export interface PersistentVolumeClaim extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'PersistentVolumeClaim';
  metadata?: ObjectMeta;
  spec?: PersistentVolumeClaimSpec;
  status?: PersistentVolumeClaimStatus;
}

/** core/v1 PersistentVolumeClaimCondition. */
export interface PersistentVolumeClaimCondition {
  lastProbeTime?: Time;
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** core/v1 PersistentVolumeClaimList. */
export interface PersistentVolumeClaimList {
  apiVersion?: 'v1';
  items: PersistentVolumeClaim[];
  kind?: 'PersistentVolumeClaimList';
  metadata?: ListMeta;
}

/** core/v1 PersistentVolumeClaimSpec. */
export interface PersistentVolumeClaimSpec {
  accessModes?: ('ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOnce' | 'ReadWriteOncePod')[];
  dataSource?: TypedLocalObjectReference;
  dataSourceRef?: TypedObjectReference;
  resources?: VolumeResourceRequirements;
  selector?: LabelSelector;
  storageClassName?: string;
  volumeAttributesClassName?: string;
  volumeMode?: 'Block' | 'Filesystem';
  volumeName?: string;
}

/** core/v1 PersistentVolumeClaimStatus. */
export interface PersistentVolumeClaimStatus {
  accessModes?: ('ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOnce' | 'ReadWriteOncePod')[];
  allocatedResourceStatuses?: Record<string, 'ControllerResizeInProgress' | 'ControllerResizeInfeasible' | 'NodeResizeInProgress' | 'NodeResizeInfeasible' | 'NodeResizePending'>;
  allocatedResources?: Record<string, Quantity>;
  capacity?: Record<string, Quantity>;
  conditions?: PersistentVolumeClaimCondition[];
  currentVolumeAttributesClassName?: string;
  modifyVolumeStatus?: ModifyVolumeStatus;
  phase?: 'Bound' | 'Lost' | 'Pending';
}

/** core/v1 PersistentVolumeClaimTemplate. */
export interface PersistentVolumeClaimTemplate {
  metadata?: ObjectMeta;
  spec: PersistentVolumeClaimSpec;
}

/** core/v1 PersistentVolumeClaimVolumeSource. */
export interface PersistentVolumeClaimVolumeSource {
  claimName: string;
  readOnly?: boolean;
}

/** core/v1 PersistentVolumeList. */
export interface PersistentVolumeList {
  apiVersion?: 'v1';
  items: PersistentVolume[];
  kind?: 'PersistentVolumeList';
  metadata?: ListMeta;
}

/** core/v1 PersistentVolumeSpec. */
export interface PersistentVolumeSpec {
  accessModes?: ('ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOnce' | 'ReadWriteOncePod')[];
  awsElasticBlockStore?: AWSElasticBlockStoreVolumeSource;
  azureDisk?: AzureDiskVolumeSource;
  azureFile?: AzureFilePersistentVolumeSource;
  capacity?: Record<string, Quantity>;
  cephfs?: CephFSPersistentVolumeSource;
  cinder?: CinderPersistentVolumeSource;
  claimRef?: ObjectReference;
  csi?: CSIPersistentVolumeSource;
  fc?: FCVolumeSource;
  flexVolume?: FlexPersistentVolumeSource;
  flocker?: FlockerVolumeSource;
  gcePersistentDisk?: GCEPersistentDiskVolumeSource;
  glusterfs?: GlusterfsPersistentVolumeSource;
  hostPath?: HostPathVolumeSource;
  iscsi?: ISCSIPersistentVolumeSource;
  local?: LocalVolumeSource;
  mountOptions?: string[];
  nfs?: NFSVolumeSource;
  nodeAffinity?: VolumeNodeAffinity;
  persistentVolumeReclaimPolicy?: 'Delete' | 'Recycle' | 'Retain';
  photonPersistentDisk?: PhotonPersistentDiskVolumeSource;
  portworxVolume?: PortworxVolumeSource;
  quobyte?: QuobyteVolumeSource;
  rbd?: RBDPersistentVolumeSource;
  scaleIO?: ScaleIOPersistentVolumeSource;
  storageClassName?: string;
  storageos?: StorageOSPersistentVolumeSource;
  volumeAttributesClassName?: string;
  volumeMode?: 'Block' | 'Filesystem';
  vsphereVolume?: VsphereVirtualDiskVolumeSource;
}

/** core/v1 PersistentVolumeStatus. */
export interface PersistentVolumeStatus {
  lastPhaseTransitionTime?: Time;
  message?: string;
  phase?: 'Available' | 'Bound' | 'Failed' | 'Pending' | 'Released';
  reason?: string;
}

/** core/v1 PhotonPersistentDiskVolumeSource. */
export interface PhotonPersistentDiskVolumeSource {
  fsType?: string;
  pdID: string;
}

/** core/v1 Pod. */
export interface Pod extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Pod';
  metadata?: ObjectMeta;
  spec?: PodSpec;
  status?: PodStatus;
}

/** core/v1 PodAffinity. */
export interface PodAffinity {
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
}

/** core/v1 PodAffinityTerm. */
export interface PodAffinityTerm {
  labelSelector?: LabelSelector;
  matchLabelKeys?: string[];
  mismatchLabelKeys?: string[];
  namespaceSelector?: LabelSelector;
  namespaces?: string[];
  topologyKey: string;
}

/** core/v1 PodAntiAffinity. */
export interface PodAntiAffinity {
  preferredDuringSchedulingIgnoredDuringExecution?: WeightedPodAffinityTerm[];
  requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[];
}

/** core/v1 PodCondition. */
export interface PodCondition {
  lastProbeTime?: Time;
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** core/v1 PodDNSConfig. */
export interface PodDNSConfig {
  nameservers?: string[];
  options?: PodDNSConfigOption[];
  searches?: string[];
}

/** core/v1 PodDNSConfigOption. */
export interface PodDNSConfigOption {
  name?: string;
  value?: string;
}

/** core/v1 PodIP. */
export interface PodIP {
  ip: string;
}

/** core/v1 PodList. */
export interface PodList {
  apiVersion?: 'v1';
  items: Pod[];
  kind?: 'PodList';
  metadata?: ListMeta;
}

/** core/v1 PodOS. */
export interface PodOS {
  name: string;
}

/** core/v1 PodReadinessGate. */
export interface PodReadinessGate {
  conditionType: string;
}

/** core/v1 PodResourceClaim. */
export interface PodResourceClaim {
  name: string;
  resourceClaimName?: string;
  resourceClaimTemplateName?: string;
}

/** core/v1 PodResourceClaimStatus. */
export interface PodResourceClaimStatus {
  name: string;
  resourceClaimName?: string;
}

/** core/v1 PodSchedulingGate. */
export interface PodSchedulingGate {
  name: string;
}

/** core/v1 PodSecurityContext. */
export interface PodSecurityContext {
  appArmorProfile?: AppArmorProfile;
  fsGroup?: number;
  fsGroupChangePolicy?: 'Always' | 'OnRootMismatch';
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  seLinuxChangePolicy?: string;
  seLinuxOptions?: SELinuxOptions;
  seccompProfile?: SeccompProfile;
  supplementalGroups?: number[];
  supplementalGroupsPolicy?: 'Merge' | 'Strict';
  sysctls?: Sysctl[];
  windowsOptions?: WindowsSecurityContextOptions;
}

/** core/v1 PodSpec. */
export interface PodSpec {
  activeDeadlineSeconds?: number;
  affinity?: Affinity;
  automountServiceAccountToken?: boolean;
  containers: Container[];
  dnsConfig?: PodDNSConfig;
  dnsPolicy?: 'ClusterFirst' | 'ClusterFirstWithHostNet' | 'Default' | 'None';
  enableServiceLinks?: boolean;
  ephemeralContainers?: EphemeralContainer[];
  hostAliases?: HostAlias[];
  hostIPC?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostUsers?: boolean;
  hostname?: string;
  imagePullSecrets?: LocalObjectReference[];
  initContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  os?: PodOS;
  overhead?: Record<string, Quantity>;
  preemptionPolicy?: 'Never' | 'PreemptLowerPriority';
  priority?: number;
  priorityClassName?: string;
  readinessGates?: PodReadinessGate[];
  resourceClaims?: PodResourceClaim[];
  resources?: ResourceRequirements;
  restartPolicy?: 'Always' | 'Never' | 'OnFailure';
  runtimeClassName?: string;
  schedulerName?: string;
  schedulingGates?: PodSchedulingGate[];
  securityContext?: PodSecurityContext;
  serviceAccount?: string;
  serviceAccountName?: string;
  setHostnameAsFQDN?: boolean;
  shareProcessNamespace?: boolean;
  subdomain?: string;
  terminationGracePeriodSeconds?: number;
  tolerations?: Toleration[];
  topologySpreadConstraints?: TopologySpreadConstraint[];
  volumes?: Volume[];
}

/** core/v1 PodStatus. */
export interface PodStatus {
  conditions?: PodCondition[];
  containerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  hostIP?: string;
  hostIPs?: HostIP[];
  initContainerStatuses?: ContainerStatus[];
  message?: string;
  nominatedNodeName?: string;
  phase?: 'Failed' | 'Pending' | 'Running' | 'Succeeded' | 'Unknown';
  podIP?: string;
  podIPs?: PodIP[];
  qosClass?: 'BestEffort' | 'Burstable' | 'Guaranteed';
  reason?: string;
  resize?: string;
  resourceClaimStatuses?: PodResourceClaimStatus[];
  startTime?: Time;
}

/** core/v1 PodTemplate. */
export interface PodTemplate extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'PodTemplate';
  metadata?: ObjectMeta;
  template?: PodTemplateSpec;
}

/** core/v1 PodTemplateList. */
export interface PodTemplateList {
  apiVersion?: 'v1';
  items: PodTemplate[];
  kind?: 'PodTemplateList';
  metadata?: ListMeta;
}

/** core/v1 PodTemplateSpec. */
export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

/** core/v1 PortStatus. */
export interface PortStatus {
  error?: string;
  port: number;
  protocol: 'SCTP' | 'TCP' | 'UDP';
}

/** core/v1 PortworxVolumeSource. */
export interface PortworxVolumeSource {
  fsType?: string;
  readOnly?: boolean;
  volumeID: string;
}

/** core/v1 PreferredSchedulingTerm. */
export interface PreferredSchedulingTerm {
  preference: NodeSelectorTerm;
  weight: number;
}

/** core/v1 Probe. */
export interface Probe {
  exec?: ExecAction;
  failureThreshold?: number;
  grpc?: GRPCAction;
  httpGet?: HTTPGetAction;
  initialDelaySeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  tcpSocket?: TCPSocketAction;
  terminationGracePeriodSeconds?: number;
  timeoutSeconds?: number;
}

/** core/v1 ProjectedVolumeSource. */
export interface ProjectedVolumeSource {
  defaultMode?: number;
  sources?: VolumeProjection[];
}

/** core/v1 QuobyteVolumeSource. */
export interface QuobyteVolumeSource {
  group?: string;
  readOnly?: boolean;
  registry: string;
  tenant?: string;
  user?: string;
  volume: string;
}

/** core/v1 RBDPersistentVolumeSource. */
export interface RBDPersistentVolumeSource {
  fsType?: string;
  image: string;
  keyring?: string;
  monitors: string[];
  pool?: string;
  readOnly?: boolean;
  secretRef?: SecretReference;
  user?: string;
}

/** core/v1 RBDVolumeSource. */
export interface RBDVolumeSource {
  fsType?: string;
  image: string;
  keyring?: string;
  monitors: string[];
  pool?: string;
  readOnly?: boolean;
  secretRef?: LocalObjectReference;
  user?: string;
}

/** core/v1 ReplicationController. */
export interface ReplicationController extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'ReplicationController';
  metadata?: ObjectMeta;
  spec?: ReplicationControllerSpec;
  status?: ReplicationControllerStatus;
}

/** core/v1 ReplicationControllerCondition. */
export interface ReplicationControllerCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** core/v1 ReplicationControllerList. */
export interface ReplicationControllerList {
  apiVersion?: 'v1';
  items: ReplicationController[];
  kind?: 'ReplicationControllerList';
  metadata?: ListMeta;
}

/** core/v1 ReplicationControllerSpec. */
export interface ReplicationControllerSpec {
  minReadySeconds?: number;
  replicas?: number;
  selector?: Record<string, string>;
  template?: PodTemplateSpec;
}

/** core/v1 ReplicationControllerStatus. */
export interface ReplicationControllerStatus {
  availableReplicas?: number;
  conditions?: ReplicationControllerCondition[];
  fullyLabeledReplicas?: number;
  observedGeneration?: number;
  readyReplicas?: number;
  replicas: number;
}

/** core/v1 ResourceClaim. */
export interface ResourceClaim {
  name: string;
  request?: string;
}

/** core/v1 ResourceFieldSelector. */
export interface ResourceFieldSelector {
  containerName?: string;
  divisor?: Quantity;
  resource: string;
}

/** core/v1 ResourceHealth. */
export interface ResourceHealth {
  health?: string;
  resourceID: string;
}

/** core/v1 ResourceQuota. */
export interface ResourceQuota extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'ResourceQuota';
  metadata?: ObjectMeta;
  spec?: ResourceQuotaSpec;
  status?: ResourceQuotaStatus;
}

/** core/v1 ResourceQuotaList. */
export interface ResourceQuotaList {
  apiVersion?: 'v1';
  items: ResourceQuota[];
  kind?: 'ResourceQuotaList';
  metadata?: ListMeta;
}

/** core/v1 ResourceQuotaSpec. */
export interface ResourceQuotaSpec {
  hard?: Record<string, Quantity>;
  scopeSelector?: ScopeSelector;
  scopes?: ('BestEffort' | 'CrossNamespacePodAffinity' | 'NotBestEffort' | 'NotTerminating' | 'PriorityClass' | 'Terminating')[];
}

/** core/v1 ResourceQuotaStatus. */
export interface ResourceQuotaStatus {
  hard?: Record<string, Quantity>;
  used?: Record<string, Quantity>;
}

/** core/v1 ResourceRequirements. */
export interface ResourceRequirements {
  claims?: ResourceClaim[];
  limits?: Record<string, Quantity>;
  requests?: Record<string, Quantity>;
}

/** core/v1 ResourceStatus. */
export interface ResourceStatus {
  name: string;
  resources?: ResourceHealth[];
}

/** core/v1 SELinuxOptions. */
export interface SELinuxOptions {
  level?: string;
  role?: string;
  type?: string;
  user?: string;
}

/** core/v1 ScaleIOPersistentVolumeSource. */
export interface ScaleIOPersistentVolumeSource {
  fsType?: string;
  gateway: string;
  protectionDomain?: string;
  readOnly?: boolean;
  secretRef: SecretReference;
  sslEnabled?: boolean;
  storageMode?: string;
  storagePool?: string;
  system: string;
  volumeName?: string;
}

/** core/v1 ScaleIOVolumeSource. */
export interface ScaleIOVolumeSource {
  fsType?: string;
  gateway: string;
  protectionDomain?: string;
  readOnly?: boolean;
  secretRef: LocalObjectReference;
  sslEnabled?: boolean;
  storageMode?: string;
  storagePool?: string;
  system: string;
  volumeName?: string;
}

/** core/v1 ScopeSelector. */
export interface ScopeSelector {
  matchExpressions?: ScopedResourceSelectorRequirement[];
}

/** core/v1 ScopedResourceSelectorRequirement. */
export interface ScopedResourceSelectorRequirement {
  operator: 'DoesNotExist' | 'Exists' | 'In' | 'NotIn';
  scopeName:
    | 'BestEffort'
    | 'CrossNamespacePodAffinity'
    | 'NotBestEffort'
    | 'NotTerminating'
    | 'PriorityClass'
    | 'Terminating';
  values?: string[];
}

/** core/v1 SeccompProfile. */
export interface SeccompProfile {
  localhostProfile?: string;
  type: 'Localhost' | 'RuntimeDefault' | 'Unconfined';
}

/** core/v1 Secret. */
export interface Secret extends KubeObject {
  apiVersion?: 'v1';
  data?: Record<string, string>;
  immutable?: boolean;
  kind?: 'Secret';
  metadata?: ObjectMeta;
  stringData?: Record<string, string>;
  type?: string;
}

/** core/v1 SecretEnvSource. */
export interface SecretEnvSource {
  name?: string;
  optional?: boolean;
}

/** core/v1 SecretKeySelector. */
export interface SecretKeySelector {
  key: string;
  name?: string;
  optional?: boolean;
}

/** core/v1 SecretList. */
export interface SecretList {
  apiVersion?: 'v1';
  items: Secret[];
  kind?: 'SecretList';
  metadata?: ListMeta;
}

/** core/v1 SecretProjection. */
export interface SecretProjection {
  items?: KeyToPath[];
  name?: string;
  optional?: boolean;
}

/** core/v1 SecretReference. */
export interface SecretReference {
  name?: string;
  namespace?: string;
}

/** core/v1 SecretVolumeSource. */
export interface SecretVolumeSource {
  defaultMode?: number;
  items?: KeyToPath[];
  optional?: boolean;
  secretName?: string;
}

/** core/v1 SecurityContext. */
export interface SecurityContext {
  allowPrivilegeEscalation?: boolean;
  appArmorProfile?: AppArmorProfile;
  capabilities?: Capabilities;
  privileged?: boolean;
  procMount?: 'Default' | 'Unmasked';
  readOnlyRootFilesystem?: boolean;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  seLinuxOptions?: SELinuxOptions;
  seccompProfile?: SeccompProfile;
  windowsOptions?: WindowsSecurityContextOptions;
}

/** core/v1 Service. */
export interface Service extends KubeObject {
  apiVersion?: 'v1';
  kind?: 'Service';
  metadata?: ObjectMeta;
  spec?: ServiceSpec;
  status?: ServiceStatus;
}

/** core/v1 ServiceAccount. */
export interface ServiceAccount extends KubeObject {
  apiVersion?: 'v1';
  automountServiceAccountToken?: boolean;
  imagePullSecrets?: LocalObjectReference[];
  kind?: 'ServiceAccount';
  metadata?: ObjectMeta;
  secrets?: ObjectReference[];
}

/** core/v1 ServiceAccountList. */
export interface ServiceAccountList {
  apiVersion?: 'v1';
  items: ServiceAccount[];
  kind?: 'ServiceAccountList';
  metadata?: ListMeta;
}

/** core/v1 ServiceAccountTokenProjection. */
export interface ServiceAccountTokenProjection {
  audience?: string;
  expirationSeconds?: number;
  path: string;
}

/** core/v1 ServiceList. */
export interface ServiceList {
  apiVersion?: 'v1';
  items: Service[];
  kind?: 'ServiceList';
  metadata?: ListMeta;
}

/** core/v1 ServicePort. */
export interface ServicePort {
  appProtocol?: string;
  name?: string;
  nodePort?: number;
  port: number;
  protocol?: 'SCTP' | 'TCP' | 'UDP';
  targetPort?: IntOrString;
}

/** core/v1 ServiceSpec. */
export interface ServiceSpec {
  allocateLoadBalancerNodePorts?: boolean;
  clusterIP?: string;
  clusterIPs?: string[];
  externalIPs?: string[];
  externalName?: string;
  externalTrafficPolicy?: 'Cluster' | 'Local';
  healthCheckNodePort?: number;
  internalTrafficPolicy?: 'Cluster' | 'Local';
  ipFamilies?: ('' | 'IPv4' | 'IPv6')[];
  ipFamilyPolicy?: 'PreferDualStack' | 'RequireDualStack' | 'SingleStack';
  loadBalancerClass?: string;
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  ports?: ServicePort[];
  publishNotReadyAddresses?: boolean;
  selector?: Record<string, string>;
  sessionAffinity?: 'ClientIP' | 'None';
  sessionAffinityConfig?: SessionAffinityConfig;
  trafficDistribution?: string;
  type?: 'ClusterIP' | 'ExternalName' | 'LoadBalancer' | 'NodePort';
}

/** core/v1 ServiceStatus. */
export interface ServiceStatus {
  conditions?: Condition[];
  loadBalancer?: LoadBalancerStatus;
}

/** core/v1 SessionAffinityConfig. */
export interface SessionAffinityConfig {
  clientIP?: ClientIPConfig;
}

/** core/v1 SleepAction. */
export interface SleepAction {
  seconds: number;
}

/** core/v1 StorageOSPersistentVolumeSource. */
export interface StorageOSPersistentVolumeSource {
  fsType?: string;
  readOnly?: boolean;
  secretRef?: ObjectReference;
  volumeName?: string;
  volumeNamespace?: string;
}

/** core/v1 StorageOSVolumeSource. */
export interface StorageOSVolumeSource {
  fsType?: string;
  readOnly?: boolean;
  secretRef?: LocalObjectReference;
  volumeName?: string;
  volumeNamespace?: string;
}

/** core/v1 Sysctl. */
export interface Sysctl {
  name: string;
  value: string;
}

/** core/v1 TCPSocketAction. */
export interface TCPSocketAction {
  host?: string;
  port: IntOrString;
}

/** core/v1 Taint. */
export interface Taint {
  effect: 'NoExecute' | 'NoSchedule' | 'PreferNoSchedule';
  key: string;
  timeAdded?: Time;
  value?: string;
}

/** core/v1 Toleration. */
export interface Toleration {
  effect?: 'NoExecute' | 'NoSchedule' | 'PreferNoSchedule';
  key?: string;
  operator?: 'Equal' | 'Exists';
  tolerationSeconds?: number;
  value?: string;
}

/** core/v1 TopologySelectorLabelRequirement. */
export interface TopologySelectorLabelRequirement {
  key: string;
  values: string[];
}

/** core/v1 TopologySelectorTerm. */
export interface TopologySelectorTerm {
  matchLabelExpressions?: TopologySelectorLabelRequirement[];
}

/** core/v1 TopologySpreadConstraint. */
export interface TopologySpreadConstraint {
  labelSelector?: LabelSelector;
  matchLabelKeys?: string[];
  maxSkew: number;
  minDomains?: number;
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
}

/** core/v1 TypedLocalObjectReference. */
export interface TypedLocalObjectReference {
  apiGroup?: string;
  kind: string;
  name: string;
}

/** core/v1 TypedObjectReference. */
export interface TypedObjectReference {
  apiGroup?: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** core/v1 Volume. */
export interface Volume {
  awsElasticBlockStore?: AWSElasticBlockStoreVolumeSource;
  azureDisk?: AzureDiskVolumeSource;
  azureFile?: AzureFileVolumeSource;
  cephfs?: CephFSVolumeSource;
  cinder?: CinderVolumeSource;
  configMap?: ConfigMapVolumeSource;
  csi?: CSIVolumeSource;
  downwardAPI?: DownwardAPIVolumeSource;
  emptyDir?: EmptyDirVolumeSource;
  ephemeral?: EphemeralVolumeSource;
  fc?: FCVolumeSource;
  flexVolume?: FlexVolumeSource;
  flocker?: FlockerVolumeSource;
  gcePersistentDisk?: GCEPersistentDiskVolumeSource;
  gitRepo?: GitRepoVolumeSource;
  glusterfs?: GlusterfsVolumeSource;
  hostPath?: HostPathVolumeSource;
  image?: ImageVolumeSource;
  iscsi?: ISCSIVolumeSource;
  name: string;
  nfs?: NFSVolumeSource;
  persistentVolumeClaim?: PersistentVolumeClaimVolumeSource;
  photonPersistentDisk?: PhotonPersistentDiskVolumeSource;
  portworxVolume?: PortworxVolumeSource;
  projected?: ProjectedVolumeSource;
  quobyte?: QuobyteVolumeSource;
  rbd?: RBDVolumeSource;
  scaleIO?: ScaleIOVolumeSource;
  secret?: SecretVolumeSource;
  storageos?: StorageOSVolumeSource;
  vsphereVolume?: VsphereVirtualDiskVolumeSource;
}

/** core/v1 VolumeDevice. */
export interface VolumeDevice {
  devicePath: string;
  name: string;
}

/** core/v1 VolumeMount. */
export interface VolumeMount {
  mountPath: string;
  mountPropagation?: 'Bidirectional' | 'HostToContainer' | 'None';
  name: string;
  readOnly?: boolean;
  recursiveReadOnly?: string;
  subPath?: string;
  subPathExpr?: string;
}

/** core/v1 VolumeMountStatus. */
export interface VolumeMountStatus {
  mountPath: string;
  name: string;
  readOnly?: boolean;
  recursiveReadOnly?: string;
}

/** core/v1 VolumeNodeAffinity. */
export interface VolumeNodeAffinity {
  required?: NodeSelector;
}

/** core/v1 VolumeProjection. */
export interface VolumeProjection {
  clusterTrustBundle?: ClusterTrustBundleProjection;
  configMap?: ConfigMapProjection;
  downwardAPI?: DownwardAPIProjection;
  secret?: SecretProjection;
  serviceAccountToken?: ServiceAccountTokenProjection;
}

/** core/v1 VolumeResourceRequirements. */
export interface VolumeResourceRequirements {
  limits?: Record<string, Quantity>;
  requests?: Record<string, Quantity>;
}

/** core/v1 VsphereVirtualDiskVolumeSource. */
export interface VsphereVirtualDiskVolumeSource {
  fsType?: string;
  storagePolicyID?: string;
  storagePolicyName?: string;
  volumePath: string;
}

/** core/v1 WeightedPodAffinityTerm. */
export interface WeightedPodAffinityTerm {
  podAffinityTerm: PodAffinityTerm;
  weight: number;
}

/** core/v1 WindowsSecurityContextOptions. */
export interface WindowsSecurityContextOptions {
  gmsaCredentialSpec?: string;
  gmsaCredentialSpecName?: string;
  hostProcess?: boolean;
  runAsUserName?: string;
}

/** resource Quantity. */
export type Quantity = string;

/** meta/v1 APIGroup. */
export interface APIGroup {
  apiVersion?: 'v1';
  kind?: 'APIGroup';
  name: string;
  preferredVersion?: GroupVersionForDiscovery;
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[];
  versions: GroupVersionForDiscovery[];
}

/** meta/v1 APIGroupList. */
export interface APIGroupList {
  apiVersion?: 'v1';
  groups: APIGroup[];
  kind?: 'APIGroupList';
}

/** meta/v1 APIResource. */
export interface APIResource {
  categories?: string[];
  group?: string;
  kind: string;
  name: string;
  namespaced: boolean;
  shortNames?: string[];
  singularName: string;
  storageVersionHash?: string;
  verbs: string[];
  version?: string;
}

/** meta/v1 APIResourceList. */
export interface APIResourceList {
  apiVersion?: 'v1';
  groupVersion: string;
  kind?: 'APIResourceList';
  resources: APIResource[];
}

/** meta/v1 APIVersions. */
export interface APIVersions {
  apiVersion?: 'v1';
  kind?: 'APIVersions';
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
  versions: string[];
}

/** meta/v1 Condition. */
export interface Condition {
  lastTransitionTime: Time;
  message: string;
  observedGeneration?: number;
  reason: string;
  status: string;
  type: string;
}

/** meta/v1 DeleteOptions. */
export interface DeleteOptions {
  apiVersion?:
    | 'admission.k8s.io/v1'
    | 'admission.k8s.io/v1beta1'
    | 'admissionregistration.k8s.io/v1'
    | 'admissionregistration.k8s.io/v1alpha1'
    | 'admissionregistration.k8s.io/v1beta1'
    | 'apiextensions.k8s.io/v1'
    | 'apiextensions.k8s.io/v1beta1'
    | 'apiregistration.k8s.io/v1'
    | 'apiregistration.k8s.io/v1beta1'
    | 'apps/v1'
    | 'apps/v1beta1'
    | 'apps/v1beta2'
    | 'authentication.k8s.io/v1'
    | 'authentication.k8s.io/v1alpha1'
    | 'authentication.k8s.io/v1beta1'
    | 'authorization.k8s.io/v1'
    | 'authorization.k8s.io/v1beta1'
    | 'autoscaling/v1'
    | 'autoscaling/v2'
    | 'autoscaling/v2beta1'
    | 'autoscaling/v2beta2'
    | 'batch/v1'
    | 'batch/v1beta1'
    | 'certificates.k8s.io/v1'
    | 'certificates.k8s.io/v1alpha1'
    | 'certificates.k8s.io/v1beta1'
    | 'coordination.k8s.io/v1'
    | 'coordination.k8s.io/v1alpha2'
    | 'coordination.k8s.io/v1beta1'
    | 'discovery.k8s.io/v1'
    | 'discovery.k8s.io/v1beta1'
    | 'events.k8s.io/v1'
    | 'events.k8s.io/v1beta1'
    | 'extensions/v1beta1'
    | 'flowcontrol.apiserver.k8s.io/v1'
    | 'flowcontrol.apiserver.k8s.io/v1beta1'
    | 'flowcontrol.apiserver.k8s.io/v1beta2'
    | 'flowcontrol.apiserver.k8s.io/v1beta3'
    | 'imagepolicy.k8s.io/v1alpha1'
    | 'internal.apiserver.k8s.io/v1alpha1'
    | 'networking.k8s.io/v1'
    | 'networking.k8s.io/v1alpha1'
    | 'networking.k8s.io/v1beta1'
    | 'node.k8s.io/v1'
    | 'node.k8s.io/v1alpha1'
    | 'node.k8s.io/v1beta1'
    | 'policy/v1'
    | 'policy/v1beta1'
    | 'rbac.authorization.k8s.io/v1'
    | 'rbac.authorization.k8s.io/v1alpha1'
    | 'rbac.authorization.k8s.io/v1beta1'
    | 'resource.k8s.io/v1alpha3'
    | 'resource.k8s.io/v1beta1'
    | 'scheduling.k8s.io/v1'
    | 'scheduling.k8s.io/v1alpha1'
    | 'scheduling.k8s.io/v1beta1'
    | 'storage.k8s.io/v1'
    | 'storage.k8s.io/v1alpha1'
    | 'storage.k8s.io/v1beta1'
    | 'storagemigration.k8s.io/v1alpha1'
    | 'v1';
  dryRun?: string[];
  gracePeriodSeconds?: number;
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
  kind?: 'DeleteOptions';
  orphanDependents?: boolean;
  preconditions?: Preconditions;
  propagationPolicy?: string;
}

/** meta/v1 FieldSelectorRequirement. */
export interface FieldSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** meta/v1 FieldsV1. */
export type FieldsV1 = Record<string, unknown>;

/** meta/v1 GroupVersionForDiscovery. */
export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

/** meta/v1 LabelSelector. */
export interface LabelSelector {
  matchExpressions?: LabelSelectorRequirement[];
  matchLabels?: Record<string, string>;
}

/** meta/v1 LabelSelectorRequirement. */
export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** meta/v1 ListMeta. */
export interface ListMeta {
  continue?: string;
  remainingItemCount?: number;
  resourceVersion?: string;
  selfLink?: string;
}

/** meta/v1 ManagedFieldsEntry. */
export interface ManagedFieldsEntry {
  apiVersion?: string;
  fieldsType?: string;
  fieldsV1?: FieldsV1;
  manager?: string;
  operation?: string;
  subresource?: string;
  time?: Time;
}

/** meta/v1 MicroTime. */
export type MicroTime = string;

/** meta/v1 ObjectMeta. */
export interface ObjectMeta extends KubeObjectMeta {
  annotations?: Record<string, string>;
  creationTimestamp?: Time;
  deletionGracePeriodSeconds?: number;
  deletionTimestamp?: Time;
  finalizers?: string[];
  generateName?: string;
  generation?: number;
  labels?: Record<string, string>;
  managedFields?: ManagedFieldsEntry[];
  name?: string;
  namespace?: string;
  ownerReferences?: OwnerReference[];
  resourceVersion?: string;
  selfLink?: string;
  uid?: string;
}

/** meta/v1 OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  blockOwnerDeletion?: boolean;
  controller?: boolean;
  kind: string;
  name: string;
  uid: string;
}

/** meta/v1 Patch. */
export type Patch = Record<string, never>;

/** meta/v1 Preconditions. */
export interface Preconditions {
  resourceVersion?: string;
  uid?: string;
}

/** meta/v1 ServerAddressByClientCIDR. */
export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

/** meta/v1 Status. */
export interface Status {
  apiVersion?: 'v1';
  code?: number;
  details?: StatusDetails;
  kind?: 'Status';
  message?: string;
  metadata?: ListMeta;
  reason?: string;
  status?: string;
}

/** meta/v1 StatusCause. */
export interface StatusCause {
  field?: string;
  message?: string;
  reason?: string;
}

/** meta/v1 StatusDetails. */
export interface StatusDetails {
  causes?: StatusCause[];
  group?: string;
  kind?: string;
  name?: string;
  retryAfterSeconds?: number;
  uid?: string;
}

/** meta/v1 Time. */
export type Time = string;

/** meta/v1 WatchEvent. */
export interface WatchEvent {
  object: RawExtension;
  type: string;
}

/** runtime RawExtension. */
export type RawExtension = Record<string, unknown>;

/** intstr IntOrString. */
export type IntOrString = number | string;

/** version Info. */
export interface Info {
  buildDate: string;
  compiler: string;
  gitCommit: string;
  gitTreeState: string;
  gitVersion: string;
  goVersion: string;
  major: string;
  minor: string;
  platform: string;
}

/** admissionregistration.k8s.io/v1 AuditAnnotation. */
export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

/** admissionregistration.k8s.io/v1 ExpressionWarning. */
export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

/** admissionregistration.k8s.io/v1 MatchCondition. */
export interface MatchCondition {
  expression: string;
  name: string;
}

/** admissionregistration.k8s.io/v1 MatchResources. */
export interface MatchResources {
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: 'Equivalent' | 'Exact';
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
}

/** admissionregistration.k8s.io/v1 MutatingWebhook. */
export interface MutatingWebhook {
  admissionReviewVersions: string[];
  clientConfig: WebhookClientConfig;
  failurePolicy?: 'Fail' | 'Ignore';
  matchConditions?: MatchCondition[];
  matchPolicy?: 'Equivalent' | 'Exact';
  name: string;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  reinvocationPolicy?: 'IfNeeded' | 'Never';
  rules?: RuleWithOperations[];
  sideEffects: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
  timeoutSeconds?: number;
}

/** admissionregistration.k8s.io/v1 MutatingWebhookConfiguration. */
export interface MutatingWebhookConfiguration extends KubeObject {
  apiVersion?: 'admissionregistration.k8s.io/v1';
  kind?: 'MutatingWebhookConfiguration';
  metadata?: ObjectMeta;
  webhooks?: MutatingWebhook[];
}

/** admissionregistration.k8s.io/v1 MutatingWebhookConfigurationList. */
export interface MutatingWebhookConfigurationList {
  apiVersion?: 'admissionregistration.k8s.io/v1';
  items: MutatingWebhookConfiguration[];
  kind?: 'MutatingWebhookConfigurationList';
  metadata?: ListMeta;
}

/** admissionregistration.k8s.io/v1 NamedRuleWithOperations. */
export interface NamedRuleWithOperations {
  apiGroups?: string[];
  apiVersions?: string[];
  operations?: ('*' | 'CONNECT' | 'CREATE' | 'DELETE' | 'UPDATE')[];
  resourceNames?: string[];
  resources?: string[];
  scope?: '*' | 'Cluster' | 'Namespaced';
}

/** admissionregistration.k8s.io/v1 ParamKind. */
export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

/** admissionregistration.k8s.io/v1 ParamRef. */
export interface ParamRef {
  name?: string;
  namespace?: string;
  parameterNotFoundAction?: string;
  selector?: LabelSelector;
}

/** admissionregistration.k8s.io/v1 RuleWithOperations. */
export interface RuleWithOperations {
  apiGroups?: string[];
  apiVersions?: string[];
  operations?: ('*' | 'CONNECT' | 'CREATE' | 'DELETE' | 'UPDATE')[];
  resources?: string[];
  scope?: '*' | 'Cluster' | 'Namespaced';
}

/** admissionregistration.k8s.io/v1 ServiceReference. */
export interface ServiceReference {
  name: string;
  namespace: string;
  path?: string;
  port?: number;
}

/** admissionregistration.k8s.io/v1 TypeChecking. */
export interface TypeChecking {
  expressionWarnings?: ExpressionWarning[];
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy. */
export interface ValidatingAdmissionPolicy extends KubeObject {
  apiVersion?: 'admissionregistration.k8s.io/v1';
  kind?: 'ValidatingAdmissionPolicy';
  metadata?: ObjectMeta;
  spec?: ValidatingAdmissionPolicySpec;
  status?: ValidatingAdmissionPolicyStatus;
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding. */
export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  apiVersion?: 'admissionregistration.k8s.io/v1';
  kind?: 'ValidatingAdmissionPolicyBinding';
  metadata?: ObjectMeta;
  spec?: ValidatingAdmissionPolicyBindingSpec;
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBindingList. */
export interface ValidatingAdmissionPolicyBindingList {
  apiVersion?: 'admissionregistration.k8s.io/v1';
  items: ValidatingAdmissionPolicyBinding[];
  kind?: 'ValidatingAdmissionPolicyBindingList';
  metadata?: ListMeta;
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBindingSpec. */
export interface ValidatingAdmissionPolicyBindingSpec {
  matchResources?: MatchResources;
  paramRef?: ParamRef;
  policyName?: string;
  validationActions?: ('Audit' | 'Deny' | 'Warn')[];
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyList. */
export interface ValidatingAdmissionPolicyList {
  apiVersion?: 'admissionregistration.k8s.io/v1';
  items: ValidatingAdmissionPolicy[];
  kind?: 'ValidatingAdmissionPolicyList';
  metadata?: ListMeta;
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicySpec. */
export interface ValidatingAdmissionPolicySpec {
  auditAnnotations?: AuditAnnotation[];
  failurePolicy?: 'Fail' | 'Ignore';
  matchConditions?: MatchCondition[];
  matchConstraints?: MatchResources;
  paramKind?: ParamKind;
  validations?: Validation[];
  variables?: Variable[];
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyStatus. */
export interface ValidatingAdmissionPolicyStatus {
  conditions?: Condition[];
  observedGeneration?: number;
  typeChecking?: TypeChecking;
}

/** admissionregistration.k8s.io/v1 ValidatingWebhook. */
export interface ValidatingWebhook {
  admissionReviewVersions: string[];
  clientConfig: WebhookClientConfig;
  failurePolicy?: 'Fail' | 'Ignore';
  matchConditions?: MatchCondition[];
  matchPolicy?: 'Equivalent' | 'Exact';
  name: string;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  rules?: RuleWithOperations[];
  sideEffects: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
  timeoutSeconds?: number;
}

/** admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration. */
export interface ValidatingWebhookConfiguration extends KubeObject {
  apiVersion?: 'admissionregistration.k8s.io/v1';
  kind?: 'ValidatingWebhookConfiguration';
  metadata?: ObjectMeta;
  webhooks?: ValidatingWebhook[];
}

/** admissionregistration.k8s.io/v1 ValidatingWebhookConfigurationList. */
export interface ValidatingWebhookConfigurationList {
  apiVersion?: 'admissionregistration.k8s.io/v1';
  items: ValidatingWebhookConfiguration[];
  kind?: 'ValidatingWebhookConfigurationList';
  metadata?: ListMeta;
}

/** admissionregistration.k8s.io/v1 Validation. */
export interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

/** admissionregistration.k8s.io/v1 Variable. */
export interface Variable {
  expression: string;
  name: string;
}

/** admissionregistration.k8s.io/v1 WebhookClientConfig. */
export interface WebhookClientConfig {
  caBundle?: string;
  service?: ServiceReference;
  url?: string;
}

/** admissionregistration.k8s.io/v1alpha1 ApplyConfiguration. */
export interface ApplyConfiguration {
  expression?: string;
}

/** admissionregistration.k8s.io/v1alpha1 JSONPatch. */
export interface JSONPatch {
  expression?: string;
}

/** admissionregistration.k8s.io/v1alpha1 MatchCondition. */
export interface AdmissionregistrationV1alpha1MatchCondition {
  expression: string;
  name: string;
}

/** admissionregistration.k8s.io/v1alpha1 MatchResources. */
export interface AdmissionregistrationV1alpha1MatchResources {
  excludeResourceRules?: AdmissionregistrationV1alpha1NamedRuleWithOperations[];
  matchPolicy?: 'Equivalent' | 'Exact';
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: AdmissionregistrationV1alpha1NamedRuleWithOperations[];
}

/** admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicy. */
export interface MutatingAdmissionPolicy extends KubeObject {
  apiVersion?: 'admissionregistration.k8s.io/v1alpha1';
  kind?: 'MutatingAdmissionPolicy';
  metadata?: ObjectMeta;
  spec?: MutatingAdmissionPolicySpec;
}

/** admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicyBinding. */
export interface MutatingAdmissionPolicyBinding extends KubeObject {
  apiVersion?: 'admissionregistration.k8s.io/v1alpha1';
  kind?: 'MutatingAdmissionPolicyBinding';
  metadata?: ObjectMeta;
  spec?: MutatingAdmissionPolicyBindingSpec;
}

/** admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicyBindingList. */
export interface MutatingAdmissionPolicyBindingList {
  apiVersion?: 'admissionregistration.k8s.io/v1alpha1';
  items: MutatingAdmissionPolicyBinding[];
  kind?: 'MutatingAdmissionPolicyBindingList';
  metadata?: ListMeta;
}

/** admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicyBindingSpec. */
export interface MutatingAdmissionPolicyBindingSpec {
  matchResources?: AdmissionregistrationV1alpha1MatchResources;
  paramRef?: AdmissionregistrationV1alpha1ParamRef;
  policyName?: string;
}

/** admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicyList. */
export interface MutatingAdmissionPolicyList {
  apiVersion?: 'admissionregistration.k8s.io/v1alpha1';
  items: MutatingAdmissionPolicy[];
  kind?: 'MutatingAdmissionPolicyList';
  metadata?: ListMeta;
}

/** admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicySpec. */
export interface MutatingAdmissionPolicySpec {
  failurePolicy?: 'Fail' | 'Ignore';
  matchConditions?: AdmissionregistrationV1alpha1MatchCondition[];
  matchConstraints?: AdmissionregistrationV1alpha1MatchResources;
  mutations?: Mutation[];
  paramKind?: AdmissionregistrationV1alpha1ParamKind;
  reinvocationPolicy?: 'IfNeeded' | 'Never';
  variables?: AdmissionregistrationV1alpha1Variable[];
}

/** admissionregistration.k8s.io/v1alpha1 Mutation. */
export interface Mutation {
  applyConfiguration?: ApplyConfiguration;
  jsonPatch?: JSONPatch;
  patchType: 'ApplyConfiguration' | 'JSONPatch';
}

/** admissionregistration.k8s.io/v1alpha1 NamedRuleWithOperations. */
export interface AdmissionregistrationV1alpha1NamedRuleWithOperations {
  apiGroups?: string[];
  apiVersions?: string[];
  operations?: ('*' | 'CONNECT' | 'CREATE' | 'DELETE' | 'UPDATE')[];
  resourceNames?: string[];
  resources?: string[];
  scope?: '*' | 'Cluster' | 'Namespaced';
}

/** admissionregistration.k8s.io/v1alpha1 ParamKind. */
export interface AdmissionregistrationV1alpha1ParamKind {
  apiVersion?: string;
  kind?: string;
}

/** admissionregistration.k8s.io/v1alpha1 ParamRef. */
export interface AdmissionregistrationV1alpha1ParamRef {
  name?: string;
  namespace?: string;
  parameterNotFoundAction?: string;
  selector?: LabelSelector;
}

/** admissionregistration.k8s.io/v1alpha1 Variable. */
export interface AdmissionregistrationV1alpha1Variable {
  expression: string;
  name: string;
}

/** apiextensions.k8s.io/v1 CustomResourceColumnDefinition. */
export interface CustomResourceColumnDefinition {
  description?: string;
  format?: string;
  jsonPath: string;
  name: string;
  priority?: number;
  type: string;
}

/** apiextensions.k8s.io/v1 CustomResourceConversion. */
export interface CustomResourceConversion {
  strategy: string;
  webhook?: WebhookConversion;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinition. */
export interface CustomResourceDefinition extends KubeObject {
  apiVersion?: 'apiextensions.k8s.io/v1';
  kind?: 'CustomResourceDefinition';
  metadata?: ObjectMeta;
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinitionCondition. */
export interface CustomResourceDefinitionCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinitionList. */
export interface CustomResourceDefinitionList {
  apiVersion?: 'apiextensions.k8s.io/v1';
  items: CustomResourceDefinition[];
  kind?: 'CustomResourceDefinitionList';
  metadata?: ListMeta;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinitionNames. */
export interface CustomResourceDefinitionNames {
  categories?: string[];
  kind: string;
  listKind?: string;
  plural: string;
  shortNames?: string[];
  singular?: string;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinitionSpec. */
export interface CustomResourceDefinitionSpec {
  conversion?: CustomResourceConversion;
  group: string;
  names: CustomResourceDefinitionNames;
  preserveUnknownFields?: boolean;
  scope: string;
  versions: CustomResourceDefinitionVersion[];
}

/** apiextensions.k8s.io/v1 CustomResourceDefinitionStatus. */
export interface CustomResourceDefinitionStatus {
  acceptedNames?: CustomResourceDefinitionNames;
  conditions?: CustomResourceDefinitionCondition[];
  storedVersions?: string[];
}

/** apiextensions.k8s.io/v1 CustomResourceDefinitionVersion. */
export interface CustomResourceDefinitionVersion {
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  deprecated?: boolean;
  deprecationWarning?: string;
  name: string;
  schema?: CustomResourceValidation;
  selectableFields?: SelectableField[];
  served: boolean;
  storage: boolean;
  subresources?: CustomResourceSubresources;
}

/** apiextensions.k8s.io/v1 CustomResourceSubresourceScale. */
export interface CustomResourceSubresourceScale {
  labelSelectorPath?: string;
  specReplicasPath: string;
  statusReplicasPath: string;
}

/** apiextensions.k8s.io/v1 CustomResourceSubresourceStatus. */
export type CustomResourceSubresourceStatus = Record<string, never>;

/** apiextensions.k8s.io/v1 CustomResourceSubresources. */
export interface CustomResourceSubresources {
  scale?: CustomResourceSubresourceScale;
  status?: CustomResourceSubresourceStatus;
}

/** apiextensions.k8s.io/v1 CustomResourceValidation. */
export interface CustomResourceValidation {
  openAPIV3Schema?: JSONSchemaProps;
}

/** apiextensions.k8s.io/v1 ExternalDocumentation. */
export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

/** apiextensions.k8s.io/v1 JSON. */
export type JSON = unknown;

/** apiextensions.k8s.io/v1 JSONSchemaProps. */
export interface JSONSchemaProps {
  $ref?: string;
  $schema?: string;
  additionalItems?: JSONSchemaPropsOrBool;
  additionalProperties?: JSONSchemaPropsOrBool;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  default?: JSON;
  definitions?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaPropsOrStringArray>;
  description?: string;
  enum?: JSON[];
  example?: JSON;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  externalDocs?: ExternalDocumentation;
  format?: string;
  id?: string;
  items?: JSONSchemaPropsOrArray;
  maxItems?: number;
  maxLength?: number;
  maxProperties?: number;
  maximum?: number;
  minItems?: number;
  minLength?: number;
  minProperties?: number;
  minimum?: number;
  multipleOf?: number;
  not?: JSONSchemaProps;
  nullable?: boolean;
  oneOf?: JSONSchemaProps[];
  pattern?: string;
  patternProperties?: Record<string, JSONSchemaProps>;
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  title?: string;
  type?: string;
  uniqueItems?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** apiextensions.k8s.io/v1 JSONSchemaPropsOrArray. */
export type JSONSchemaPropsOrArray = JSONSchemaProps | JSONSchemaProps[];

/** apiextensions.k8s.io/v1 JSONSchemaPropsOrBool. */
export type JSONSchemaPropsOrBool = JSONSchemaProps | boolean;

/** apiextensions.k8s.io/v1 JSONSchemaPropsOrStringArray. */
export type JSONSchemaPropsOrStringArray = JSONSchemaProps | string[];

/** apiextensions.k8s.io/v1 SelectableField. */
export interface SelectableField {
  jsonPath: string;
}

/** apiextensions.k8s.io/v1 ServiceReference. */
export interface ApiextensionsV1ServiceReference {
  name: string;
  namespace: string;
  path?: string;
  port?: number;
}

/** apiextensions.k8s.io/v1 ValidationRule. */
export interface ValidationRule {
  fieldPath?: string;
  message?: string;
  messageExpression?: string;
  optionalOldSelf?: boolean;
  reason?: 'FieldValueDuplicate' | 'FieldValueForbidden' | 'FieldValueInvalid' | 'FieldValueRequired';
  rule: string;
}

/** apiextensions.k8s.io/v1 WebhookClientConfig. */
export interface ApiextensionsV1WebhookClientConfig {
  caBundle?: string;
  service?: ApiextensionsV1ServiceReference;
  url?: string;
}

/** apiextensions.k8s.io/v1 WebhookConversion. */
export interface WebhookConversion {
  clientConfig?: ApiextensionsV1WebhookClientConfig;
  conversionReviewVersions: string[];
}

/** apiregistration.k8s.io/v1 APIService. */
export interface APIService extends KubeObject {
  apiVersion?: 'apiregistration.k8s.io/v1';
  kind?: 'APIService';
  metadata?: ObjectMeta;
  spec?: APIServiceSpec;
  status?: APIServiceStatus;
}

/** apiregistration.k8s.io/v1 APIServiceCondition. */
export interface APIServiceCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** apiregistration.k8s.io/v1 APIServiceList. */
export interface APIServiceList {
  apiVersion?: 'apiregistration.k8s.io/v1';
  items: APIService[];
  kind?: 'APIServiceList';
  metadata?: ListMeta;
}

/** apiregistration.k8s.io/v1 APIServiceSpec. */
export interface APIServiceSpec {
  caBundle?: string;
  group?: string;
  groupPriorityMinimum: number;
  insecureSkipTLSVerify?: boolean;
  service?: ApiregistrationV1ServiceReference;
  version?: string;
  versionPriority: number;
}

/** apiregistration.k8s.io/v1 APIServiceStatus. */
export interface APIServiceStatus {
  conditions?: APIServiceCondition[];
}

/** apiregistration.k8s.io/v1 ServiceReference. */
export interface ApiregistrationV1ServiceReference {
  name?: string;
  namespace?: string;
  port?: number;
}

/** apps/v1 ControllerRevision. */
export interface ControllerRevision extends KubeObject {
  apiVersion?: 'apps/v1';
  data?: RawExtension;
  kind?: 'ControllerRevision';
  metadata?: ObjectMeta;
  revision: number;
}

/** apps/v1 ControllerRevisionList. */
export interface ControllerRevisionList {
  apiVersion?: 'apps/v1';
  items: ControllerRevision[];
  kind?: 'ControllerRevisionList';
  metadata?: ListMeta;
}

/** apps/v1 DaemonSet. */
export interface DaemonSet extends KubeObject {
  apiVersion?: 'apps/v1';
  kind?: 'DaemonSet';
  metadata?: ObjectMeta;
  spec?: DaemonSetSpec;
  status?: DaemonSetStatus;
}

/** apps/v1 DaemonSetCondition. */
export interface DaemonSetCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** apps/v1 DaemonSetList. */
export interface DaemonSetList {
  apiVersion?: 'apps/v1';
  items: DaemonSet[];
  kind?: 'DaemonSetList';
  metadata?: ListMeta;
}

/** apps/v1 DaemonSetSpec. */
export interface DaemonSetSpec {
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  selector: LabelSelector;
  template: PodTemplateSpec;
  updateStrategy?: DaemonSetUpdateStrategy;
}

/** apps/v1 DaemonSetStatus. */
export interface DaemonSetStatus {
  collisionCount?: number;
  conditions?: DaemonSetCondition[];
  currentNumberScheduled: number;
  desiredNumberScheduled: number;
  numberAvailable?: number;
  numberMisscheduled: number;
  numberReady: number;
  numberUnavailable?: number;
  observedGeneration?: number;
  updatedNumberScheduled?: number;
}

/** apps/v1 DaemonSetUpdateStrategy. */
export interface DaemonSetUpdateStrategy {
  rollingUpdate?: RollingUpdateDaemonSet;
  type?: 'OnDelete' | 'RollingUpdate';
}

/** apps/v1 Deployment. */
export interface Deployment extends KubeObject {
  apiVersion?: 'apps/v1';
  kind?: 'Deployment';
  metadata?: ObjectMeta;
  spec?: DeploymentSpec;
  status?: DeploymentStatus;
}

/** apps/v1 DeploymentCondition. */
export interface DeploymentCondition {
  lastTransitionTime?: Time;
  lastUpdateTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** apps/v1 DeploymentList. */
export interface DeploymentList {
  apiVersion?: 'apps/v1';
  items: Deployment[];
  kind?: 'DeploymentList';
  metadata?: ListMeta;
}

/** apps/v1 DeploymentSpec. */
export interface DeploymentSpec {
  minReadySeconds?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
  replicas?: number;
  revisionHistoryLimit?: number;
  selector: LabelSelector;
  strategy?: DeploymentStrategy;
  template: PodTemplateSpec;
}

/** apps/v1 DeploymentStatus. */
export interface DeploymentStatus {
  availableReplicas?: number;
  collisionCount?: number;
  conditions?: DeploymentCondition[];
  observedGeneration?: number;
  readyReplicas?: number;
  replicas?: number;
  unavailableReplicas?: number;
  updatedReplicas?: number;
}

/** apps/v1 DeploymentStrategy. */
export interface DeploymentStrategy {
  rollingUpdate?: RollingUpdateDeployment;
  type?: 'Recreate' | 'RollingUpdate';
}

/** apps/v1 ReplicaSet. */
export interface ReplicaSet extends KubeObject {
  apiVersion?: 'apps/v1';
  kind?: 'ReplicaSet';
  metadata?: ObjectMeta;
  spec?: ReplicaSetSpec;
  status?: ReplicaSetStatus;
}

/** apps/v1 ReplicaSetCondition. */
export interface ReplicaSetCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** apps/v1 ReplicaSetList. */
export interface ReplicaSetList {
  apiVersion?: 'apps/v1';
  items: ReplicaSet[];
  kind?: 'ReplicaSetList';
  metadata?: ListMeta;
}

/** apps/v1 ReplicaSetSpec. */
export interface ReplicaSetSpec {
  minReadySeconds?: number;
  replicas?: number;
  selector: LabelSelector;
  template?: PodTemplateSpec;
}

/** apps/v1 ReplicaSetStatus. */
export interface ReplicaSetStatus {
  availableReplicas?: number;
  conditions?: ReplicaSetCondition[];
  fullyLabeledReplicas?: number;
  observedGeneration?: number;
  readyReplicas?: number;
  replicas: number;
}

/** apps/v1 RollingUpdateDaemonSet. */
export interface RollingUpdateDaemonSet {
  maxSurge?: IntOrString;
  maxUnavailable?: IntOrString;
}

/** apps/v1 RollingUpdateDeployment. */
export interface RollingUpdateDeployment {
  maxSurge?: IntOrString;
  maxUnavailable?: IntOrString;
}

/** apps/v1 RollingUpdateStatefulSetStrategy. */
export interface RollingUpdateStatefulSetStrategy {
  maxUnavailable?: IntOrString;
  partition?: number;
}

/** apps/v1 StatefulSet. */
export interface StatefulSet extends KubeObject {
  apiVersion?: 'apps/v1';
  kind?: 'StatefulSet';
  metadata?: ObjectMeta;
  spec?: StatefulSetSpec;
  status?: StatefulSetStatus;
}

/** apps/v1 StatefulSetCondition. */
export interface StatefulSetCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** apps/v1 StatefulSetList. */
export interface StatefulSetList {
  apiVersion?: 'apps/v1';
  items: StatefulSet[];
  kind?: 'StatefulSetList';
  metadata?: ListMeta;
}

/** apps/v1 StatefulSetOrdinals. */
export interface StatefulSetOrdinals {
  start?: number;
}

/** apps/v1 StatefulSetPersistentVolumeClaimRetentionPolicy. */
export interface StatefulSetPersistentVolumeClaimRetentionPolicy {
  whenDeleted?: string;
  whenScaled?: string;
}

/** apps/v1 StatefulSetSpec. */
export interface StatefulSetSpec {
  minReadySeconds?: number;
  ordinals?: StatefulSetOrdinals;
  persistentVolumeClaimRetentionPolicy?: StatefulSetPersistentVolumeClaimRetentionPolicy;
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
  replicas?: number;
  revisionHistoryLimit?: number;
  selector: LabelSelector;
  serviceName: string;
  template: PodTemplateSpec;
  updateStrategy?: StatefulSetUpdateStrategy;
  volumeClaimTemplates?: PersistentVolumeClaim[];
}

/** apps/v1 StatefulSetStatus. */
export interface StatefulSetStatus {
  availableReplicas?: number;
  collisionCount?: number;
  conditions?: StatefulSetCondition[];
  currentReplicas?: number;
  currentRevision?: string;
  observedGeneration?: number;
  readyReplicas?: number;
  replicas: number;
  updateRevision?: string;
  updatedReplicas?: number;
}

/** apps/v1 StatefulSetUpdateStrategy. */
export interface StatefulSetUpdateStrategy {
  rollingUpdate?: RollingUpdateStatefulSetStrategy;
  type?: 'OnDelete' | 'RollingUpdate';
}

/** authentication.k8s.io/v1 BoundObjectReference. */
export interface BoundObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
}

/** authentication.k8s.io/v1 SelfSubjectReview. */
export interface SelfSubjectReview extends KubeObject {
  apiVersion?: 'authentication.k8s.io/v1';
  kind?: 'SelfSubjectReview';
  metadata?: ObjectMeta;
  status?: SelfSubjectReviewStatus;
}

/** authentication.k8s.io/v1 SelfSubjectReviewStatus. */
export interface SelfSubjectReviewStatus {
  userInfo?: UserInfo;
}

/** authentication.k8s.io/v1 TokenRequest. */
export interface TokenRequest extends KubeObject {
  apiVersion?: 'authentication.k8s.io/v1';
  kind?: 'TokenRequest';
  metadata?: ObjectMeta;
  spec: TokenRequestSpec;
  status?: TokenRequestStatus;
}

/** authentication.k8s.io/v1 TokenRequestSpec. */
export interface TokenRequestSpec {
  audiences: string[];
  boundObjectRef?: BoundObjectReference;
  expirationSeconds?: number;
}

/** authentication.k8s.io/v1 TokenRequestStatus. */
export interface TokenRequestStatus {
  expirationTimestamp: Time;
  token: string;
}

/** authentication.k8s.io/v1 TokenReview. */
export interface TokenReview extends KubeObject {
  apiVersion?: 'authentication.k8s.io/v1';
  kind?: 'TokenReview';
  metadata?: ObjectMeta;
  spec: TokenReviewSpec;
  status?: TokenReviewStatus;
}

/** authentication.k8s.io/v1 TokenReviewSpec. */
export interface TokenReviewSpec {
  audiences?: string[];
  token?: string;
}

/** authentication.k8s.io/v1 TokenReviewStatus. */
export interface TokenReviewStatus {
  audiences?: string[];
  authenticated?: boolean;
  error?: string;
  user?: UserInfo;
}

/** authentication.k8s.io/v1 UserInfo. */
export interface UserInfo {
  extra?: Record<string, string[]>;
  groups?: string[];
  uid?: string;
  username?: string;
}

/** authorization.k8s.io/v1 FieldSelectorAttributes. */
export interface FieldSelectorAttributes {
  rawSelector?: string;
  requirements?: FieldSelectorRequirement[];
}

/** authorization.k8s.io/v1 LabelSelectorAttributes. */
export interface LabelSelectorAttributes {
  rawSelector?: string;
  requirements?: LabelSelectorRequirement[];
}

/** authorization.k8s.io/v1 LocalSubjectAccessReview. */
export interface LocalSubjectAccessReview extends KubeObject {
  apiVersion?: 'authorization.k8s.io/v1';
  kind?: 'LocalSubjectAccessReview';
  metadata?: ObjectMeta;
  spec: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

/** authorization.k8s.io/v1 NonResourceAttributes. */
export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** authorization.k8s.io/v1 NonResourceRule. */
export interface NonResourceRule {
  nonResourceURLs?: string[];
  verbs: string[];
}

/** authorization.k8s.io/v1 ResourceAttributes. */
export interface ResourceAttributes {
  fieldSelector?: FieldSelectorAttributes;
  group?: string;
  labelSelector?: LabelSelectorAttributes;
  name?: string;
  namespace?: string;
  resource?: string;
  subresource?: string;
  verb?: string;
  version?: string;
}

/** authorization.k8s.io/v1 ResourceRule. */
export interface ResourceRule {
  apiGroups?: string[];
  resourceNames?: string[];
  resources?: string[];
  verbs: string[];
}

/** authorization.k8s.io/v1 SelfSubjectAccessReview. */
export interface SelfSubjectAccessReview extends KubeObject {
  apiVersion?: 'authorization.k8s.io/v1';
  kind?: 'SelfSubjectAccessReview';
  metadata?: ObjectMeta;
  spec: SelfSubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

/** authorization.k8s.io/v1 SelfSubjectAccessReviewSpec. */
export interface SelfSubjectAccessReviewSpec {
  nonResourceAttributes?: NonResourceAttributes;
  resourceAttributes?: ResourceAttributes;
}

/** authorization.k8s.io/v1 SelfSubjectRulesReview. */
export interface SelfSubjectRulesReview extends KubeObject {
  apiVersion?: 'authorization.k8s.io/v1';
  kind?: 'SelfSubjectRulesReview';
  metadata?: ObjectMeta;
  spec: SelfSubjectRulesReviewSpec;
  status?: SubjectRulesReviewStatus;
}

/** authorization.k8s.io/v1 SelfSubjectRulesReviewSpec. */
export interface SelfSubjectRulesReviewSpec {
  namespace?: string;
}

/** authorization.k8s.io/v1 SubjectAccessReview. */
export interface SubjectAccessReview extends KubeObject {
  apiVersion?: 'authorization.k8s.io/v1';
  kind?: 'SubjectAccessReview';
  metadata?: ObjectMeta;
  spec: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

/** authorization.k8s.io/v1 SubjectAccessReviewSpec. */
export interface SubjectAccessReviewSpec {
  extra?: Record<string, string[]>;
  groups?: string[];
  nonResourceAttributes?: NonResourceAttributes;
  resourceAttributes?: ResourceAttributes;
  uid?: string;
  user?: string;
}

/** authorization.k8s.io/v1 SubjectAccessReviewStatus. */
export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  evaluationError?: string;
  reason?: string;
}

/** authorization.k8s.io/v1 SubjectRulesReviewStatus. */
export interface SubjectRulesReviewStatus {
  evaluationError?: string;
  incomplete: boolean;
  nonResourceRules: NonResourceRule[];
  resourceRules: ResourceRule[];
}

/** autoscaling/v2 ContainerResourceMetricSource. */
export interface ContainerResourceMetricSource {
  container: string;
  name: string;
  target: MetricTarget;
}

/** autoscaling/v2 ContainerResourceMetricStatus. */
export interface ContainerResourceMetricStatus {
  container: string;
  current: MetricValueStatus;
  name: string;
}

/** autoscaling/v2 CrossVersionObjectReference. */
export interface CrossVersionObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
}

/** autoscaling/v2 ExternalMetricSource. */
export interface ExternalMetricSource {
  metric: MetricIdentifier;
  target: MetricTarget;
}

/** autoscaling/v2 ExternalMetricStatus. */
export interface ExternalMetricStatus {
  current: MetricValueStatus;
  metric: MetricIdentifier;
}

/** autoscaling/v2 HPAScalingPolicy. */
export interface HPAScalingPolicy {
  periodSeconds: number;
  type: string;
  value: number;
}

/** autoscaling/v2 HPAScalingRules. */
export interface HPAScalingRules {
  policies?: HPAScalingPolicy[];
  selectPolicy?: string;
  stabilizationWindowSeconds?: number;
}

/** autoscaling/v2 HorizontalPodAutoscaler. */
export interface HorizontalPodAutoscaler extends KubeObject {
  apiVersion?: 'autoscaling/v2';
  kind?: 'HorizontalPodAutoscaler';
  metadata?: ObjectMeta;
  spec?: HorizontalPodAutoscalerSpec;
  status?: HorizontalPodAutoscalerStatus;
}

/** autoscaling/v2 HorizontalPodAutoscalerBehavior. */
export interface HorizontalPodAutoscalerBehavior {
  scaleDown?: HPAScalingRules;
  scaleUp?: HPAScalingRules;
}

/** autoscaling/v2 HorizontalPodAutoscalerCondition. */
export interface HorizontalPodAutoscalerCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** autoscaling/v2 HorizontalPodAutoscalerList. */
export interface HorizontalPodAutoscalerList {
  apiVersion?: 'autoscaling/v2';
  items: HorizontalPodAutoscaler[];
  kind?: 'HorizontalPodAutoscalerList';
  metadata?: ListMeta;
}

/** autoscaling/v2 HorizontalPodAutoscalerSpec. */
export interface HorizontalPodAutoscalerSpec {
  behavior?: HorizontalPodAutoscalerBehavior;
  maxReplicas: number;
  metrics?: MetricSpec[];
  minReplicas?: number;
  scaleTargetRef: CrossVersionObjectReference;
}

/** autoscaling/v2 HorizontalPodAutoscalerStatus. */
export interface HorizontalPodAutoscalerStatus {
  conditions?: HorizontalPodAutoscalerCondition[];
  currentMetrics?: MetricStatus[];
  currentReplicas?: number;
  desiredReplicas: number;
  lastScaleTime?: Time;
  observedGeneration?: number;
}

/** autoscaling/v2 MetricIdentifier. */
export interface MetricIdentifier {
  name: string;
  selector?: LabelSelector;
}

/** autoscaling/v2 MetricSpec. */
export interface MetricSpec {
  containerResource?: ContainerResourceMetricSource;
  external?: ExternalMetricSource;
  object?: ObjectMetricSource;
  pods?: PodsMetricSource;
  resource?: ResourceMetricSource;
  type: string;
}

/** autoscaling/v2 MetricStatus. */
export interface MetricStatus {
  containerResource?: ContainerResourceMetricStatus;
  external?: ExternalMetricStatus;
  object?: ObjectMetricStatus;
  pods?: PodsMetricStatus;
  resource?: ResourceMetricStatus;
  type: string;
}

/** autoscaling/v2 MetricTarget. */
export interface MetricTarget {
  averageUtilization?: number;
  averageValue?: Quantity;
  type: string;
  value?: Quantity;
}

/** autoscaling/v2 MetricValueStatus. */
export interface MetricValueStatus {
  averageUtilization?: number;
  averageValue?: Quantity;
  value?: Quantity;
}

/** autoscaling/v2 ObjectMetricSource. */
export interface ObjectMetricSource {
  describedObject: CrossVersionObjectReference;
  metric: MetricIdentifier;
  target: MetricTarget;
}

/** autoscaling/v2 ObjectMetricStatus. */
export interface ObjectMetricStatus {
  current: MetricValueStatus;
  describedObject: CrossVersionObjectReference;
  metric: MetricIdentifier;
}

/** autoscaling/v2 PodsMetricSource. */
export interface PodsMetricSource {
  metric: MetricIdentifier;
  target: MetricTarget;
}

/** autoscaling/v2 PodsMetricStatus. */
export interface PodsMetricStatus {
  current: MetricValueStatus;
  metric: MetricIdentifier;
}

/** autoscaling/v2 ResourceMetricSource. */
export interface ResourceMetricSource {
  name: string;
  target: MetricTarget;
}

/** autoscaling/v2 ResourceMetricStatus. */
export interface ResourceMetricStatus {
  current: MetricValueStatus;
  name: string;
}

/** autoscaling/v1 CrossVersionObjectReference. */
export interface AutoscalingV1CrossVersionObjectReference {
  apiVersion?: string;
  kind: string;
  name: string;
}

/** autoscaling/v1 HorizontalPodAutoscaler. */
export interface AutoscalingV1HorizontalPodAutoscaler extends KubeObject {
  apiVersion?: 'autoscaling/v1';
  kind?: 'HorizontalPodAutoscaler';
  metadata?: ObjectMeta;
  spec?: AutoscalingV1HorizontalPodAutoscalerSpec;
  status?: AutoscalingV1HorizontalPodAutoscalerStatus;
}

/** autoscaling/v1 HorizontalPodAutoscalerList. */
export interface AutoscalingV1HorizontalPodAutoscalerList {
  apiVersion?: 'autoscaling/v1';
  items: AutoscalingV1HorizontalPodAutoscaler[];
  kind?: 'HorizontalPodAutoscalerList';
  metadata?: ListMeta;
}

/** autoscaling/v1 HorizontalPodAutoscalerSpec. */
export interface AutoscalingV1HorizontalPodAutoscalerSpec {
  maxReplicas: number;
  minReplicas?: number;
  scaleTargetRef: AutoscalingV1CrossVersionObjectReference;
  targetCPUUtilizationPercentage?: number;
}

/** autoscaling/v1 HorizontalPodAutoscalerStatus. */
export interface AutoscalingV1HorizontalPodAutoscalerStatus {
  currentCPUUtilizationPercentage?: number;
  currentReplicas: number;
  desiredReplicas: number;
  lastScaleTime?: Time;
  observedGeneration?: number;
}

/** autoscaling/v1 Scale. */
export interface Scale extends KubeObject {
  apiVersion?: 'autoscaling/v1';
  kind?: 'Scale';
  metadata?: ObjectMeta;
  spec?: ScaleSpec;
  status?: ScaleStatus;
}

/** autoscaling/v1 ScaleSpec. */
export interface ScaleSpec {
  replicas?: number;
}

/** autoscaling/v1 ScaleStatus. */
export interface ScaleStatus {
  replicas: number;
  selector?: string;
}

/** batch/v1 CronJob. */
export interface CronJob extends KubeObject {
  apiVersion?: 'batch/v1';
  kind?: 'CronJob';
  metadata?: ObjectMeta;
  spec?: CronJobSpec;
  status?: CronJobStatus;
}

/** batch/v1 CronJobList. */
export interface CronJobList {
  apiVersion?: 'batch/v1';
  items: CronJob[];
  kind?: 'CronJobList';
  metadata?: ListMeta;
}

/** batch/v1 CronJobSpec. */
export interface CronJobSpec {
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  failedJobsHistoryLimit?: number;
  jobTemplate: JobTemplateSpec;
  schedule: string;
  startingDeadlineSeconds?: number;
  successfulJobsHistoryLimit?: number;
  suspend?: boolean;
  timeZone?: string;
}

/** batch/v1 CronJobStatus. */
export interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: Time;
  lastSuccessfulTime?: Time;
}

/** batch/v1 Job. */
export interface Job extends KubeObject {
  apiVersion?: 'batch/v1';
  kind?: 'Job';
  metadata?: ObjectMeta;
  spec?: JobSpec;
  status?: JobStatus;
}

/** batch/v1 JobCondition. */
export interface JobCondition {
  lastProbeTime?: Time;
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** batch/v1 JobList. */
export interface JobList {
  apiVersion?: 'batch/v1';
  items: Job[];
  kind?: 'JobList';
  metadata?: ListMeta;
}

/** batch/v1 JobSpec. */
export interface JobSpec {
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  backoffLimitPerIndex?: number;
  completionMode?: 'Indexed' | 'NonIndexed';
  completions?: number;
  managedBy?: string;
  manualSelector?: boolean;
  maxFailedIndexes?: number;
  parallelism?: number;
  podFailurePolicy?: PodFailurePolicy;
  podReplacementPolicy?: 'Failed' | 'TerminatingOrFailed';
  selector?: LabelSelector;
  successPolicy?: SuccessPolicy;
  suspend?: boolean;
  template: PodTemplateSpec;
  ttlSecondsAfterFinished?: number;
}

/** batch/v1 JobStatus. */
export interface JobStatus {
  active?: number;
  completedIndexes?: string;
  completionTime?: Time;
  conditions?: JobCondition[];
  failed?: number;
  failedIndexes?: string;
  ready?: number;
  startTime?: Time;
  succeeded?: number;
  terminating?: number;
  uncountedTerminatedPods?: UncountedTerminatedPods;
}

/** batch/v1 JobTemplateSpec. */
export interface JobTemplateSpec {
  metadata?: ObjectMeta;
  spec?: JobSpec;
}

/** batch/v1 PodFailurePolicy. */
export interface PodFailurePolicy {
  rules: PodFailurePolicyRule[];
}

/** batch/v1 PodFailurePolicyOnExitCodesRequirement. */
export interface PodFailurePolicyOnExitCodesRequirement {
  containerName?: string;
  operator: 'In' | 'NotIn';
  values: number[];
}

/** batch/v1 PodFailurePolicyOnPodConditionsPattern. */
export interface PodFailurePolicyOnPodConditionsPattern {
  status: string;
  type: string;
}

/** batch/v1 PodFailurePolicyRule. */
export interface PodFailurePolicyRule {
  action: 'Count' | 'FailIndex' | 'FailJob' | 'Ignore';
  onExitCodes?: PodFailurePolicyOnExitCodesRequirement;
  onPodConditions?: PodFailurePolicyOnPodConditionsPattern[];
}

/** batch/v1 SuccessPolicy. */
export interface SuccessPolicy {
  rules: SuccessPolicyRule[];
}

/** batch/v1 SuccessPolicyRule. */
export interface SuccessPolicyRule {
  succeededCount?: number;
  succeededIndexes?: string;
}

/** batch/v1 UncountedTerminatedPods. */
export interface UncountedTerminatedPods {
  failed?: string[];
  succeeded?: string[];
}

/** certificates.k8s.io/v1 CertificateSigningRequest. */
export interface CertificateSigningRequest extends KubeObject {
  apiVersion?: 'certificates.k8s.io/v1';
  kind?: 'CertificateSigningRequest';
  metadata?: ObjectMeta;
  spec: CertificateSigningRequestSpec;
  status?: CertificateSigningRequestStatus;
}

/** certificates.k8s.io/v1 CertificateSigningRequestCondition. */
export interface CertificateSigningRequestCondition {
  lastTransitionTime?: Time;
  lastUpdateTime?: Time;
  message?: string;
  reason?: string;
  status: string;
  type: string;
}

/** certificates.k8s.io/v1 CertificateSigningRequestList. */
export interface CertificateSigningRequestList {
  apiVersion?: 'certificates.k8s.io/v1';
  items: CertificateSigningRequest[];
  kind?: 'CertificateSigningRequestList';
  metadata?: ListMeta;
}

/** certificates.k8s.io/v1 CertificateSigningRequestSpec. */
export interface CertificateSigningRequestSpec {
  expirationSeconds?: number;
  extra?: Record<string, string[]>;
  groups?: string[];
  request: string;
  signerName: string;
  uid?: string;
  usages?: ('any' | 'cert sign' | 'client auth' | 'code signing' | 'content commitment' | 'crl sign' | 'data encipherment' | 'decipher only' | 'digital signature' | 'email protection' | 'encipher only' | 'ipsec end system' | 'ipsec tunnel' | 'ipsec user' | 'key agreement' | 'key encipherment' | 'microsoft sgc' | 'netscape sgc' | 'ocsp signing' | 's/mime' | 'server auth' | 'signing' | 'timestamping')[];
  username?: string;
}

/** certificates.k8s.io/v1 CertificateSigningRequestStatus. */
export interface CertificateSigningRequestStatus {
  certificate?: string;
  conditions?: CertificateSigningRequestCondition[];
}

/** coordination.k8s.io/v1 Lease. */
export interface Lease extends KubeObject {
  apiVersion?: 'coordination.k8s.io/v1';
  kind?: 'Lease';
  metadata?: ObjectMeta;
  spec?: LeaseSpec;
}

/** coordination.k8s.io/v1 LeaseList. */
export interface LeaseList {
  apiVersion?: 'coordination.k8s.io/v1';
  items: Lease[];
  kind?: 'LeaseList';
  metadata?: ListMeta;
}

/** coordination.k8s.io/v1 LeaseSpec. */
export interface LeaseSpec {
  acquireTime?: MicroTime;
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
  preferredHolder?: string;
  renewTime?: MicroTime;
  strategy?: string;
}

/** discovery.k8s.io/v1 Endpoint. */
export interface Endpoint {
  addresses: string[];
  conditions?: EndpointConditions;
  deprecatedTopology?: Record<string, string>;
  hints?: EndpointHints;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
  zone?: string;
}

/** discovery.k8s.io/v1 EndpointConditions. */
export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

/** discovery.k8s.io/v1 EndpointHints. */
export interface EndpointHints {
  forZones?: ForZone[];
}

/** discovery.k8s.io/v1 EndpointPort. */
export interface DiscoveryV1EndpointPort {
  appProtocol?: string;
  name?: string;
  port?: number;
  protocol?: 'SCTP' | 'TCP' | 'UDP';
}

/** discovery.k8s.io/v1 EndpointSlice. */
export interface EndpointSlice extends KubeObject {
  addressType: 'FQDN' | 'IPv4' | 'IPv6';
  apiVersion?: 'discovery.k8s.io/v1';
  endpoints: Endpoint[];
  kind?: 'EndpointSlice';
  metadata?: ObjectMeta;
  ports?: DiscoveryV1EndpointPort[];
}

/** discovery.k8s.io/v1 EndpointSliceList. */
export interface EndpointSliceList {
  apiVersion?: 'discovery.k8s.io/v1';
  items: EndpointSlice[];
  kind?: 'EndpointSliceList';
  metadata?: ListMeta;
}

/** discovery.k8s.io/v1 ForZone. */
export interface ForZone {
  name: string;
}

/** events.k8s.io/v1 Event. */
export interface EventsV1Event extends KubeObject {
  action?: string;
  apiVersion?: 'events.k8s.io/v1';
  deprecatedCount?: number;
  deprecatedFirstTimestamp?: Time;
  deprecatedLastTimestamp?: Time;
  deprecatedSource?: EventSource;
  eventTime: MicroTime;
  kind?: 'Event';
  metadata?: ObjectMeta;
  note?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  reportingController?: string;
  reportingInstance?: string;
  series?: EventsV1EventSeries;
  type?: string;
}

/** events.k8s.io/v1 EventList. */
export interface EventsV1EventList {
  apiVersion?: 'events.k8s.io/v1';
  items: EventsV1Event[];
  kind?: 'EventList';
  metadata?: ListMeta;
}

/** events.k8s.io/v1 EventSeries. */
export interface EventsV1EventSeries {
  count: number;
  lastObservedTime: MicroTime;
}

/** flowcontrol.apiserver.k8s.io/v1 ExemptPriorityLevelConfiguration. */
export interface ExemptPriorityLevelConfiguration {
  lendablePercent?: number;
  nominalConcurrencyShares?: number;
}

/** flowcontrol.apiserver.k8s.io/v1 FlowDistinguisherMethod. */
export interface FlowDistinguisherMethod {
  type: string;
}

/** flowcontrol.apiserver.k8s.io/v1 FlowSchema. */
export interface FlowSchema extends KubeObject {
  apiVersion?: 'flowcontrol.apiserver.k8s.io/v1';
  kind?: 'FlowSchema';
  metadata?: ObjectMeta;
  spec?: FlowSchemaSpec;
  status?: FlowSchemaStatus;
}

/** flowcontrol.apiserver.k8s.io/v1 FlowSchemaCondition. */
export interface FlowSchemaCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status?: string;
  type?: string;
}

/** flowcontrol.apiserver.k8s.io/v1 FlowSchemaList. */
export interface FlowSchemaList {
  apiVersion?: 'flowcontrol.apiserver.k8s.io/v1';
  items: FlowSchema[];
  kind?: 'FlowSchemaList';
  metadata?: ListMeta;
}

/** flowcontrol.apiserver.k8s.io/v1 FlowSchemaSpec. */
export interface FlowSchemaSpec {
  distinguisherMethod?: FlowDistinguisherMethod;
  matchingPrecedence?: number;
  priorityLevelConfiguration: PriorityLevelConfigurationReference;
  rules?: PolicyRulesWithSubjects[];
}

/** flowcontrol.apiserver.k8s.io/v1 FlowSchemaStatus. */
export interface FlowSchemaStatus {
  conditions?: FlowSchemaCondition[];
}

/** flowcontrol.apiserver.k8s.io/v1 GroupSubject. */
export interface GroupSubject {
  name: string;
}

/** flowcontrol.apiserver.k8s.io/v1 LimitResponse. */
export interface LimitResponse {
  queuing?: QueuingConfiguration;
  type: string;
}

/** flowcontrol.apiserver.k8s.io/v1 LimitedPriorityLevelConfiguration. */
export interface LimitedPriorityLevelConfiguration {
  borrowingLimitPercent?: number;
  lendablePercent?: number;
  limitResponse?: LimitResponse;
  nominalConcurrencyShares?: number;
}

/** flowcontrol.apiserver.k8s.io/v1 NonResourcePolicyRule. */
export interface NonResourcePolicyRule {
  nonResourceURLs: string[];
  verbs: string[];
}

/** flowcontrol.apiserver.k8s.io/v1 PolicyRulesWithSubjects. */
export interface PolicyRulesWithSubjects {
  nonResourceRules?: NonResourcePolicyRule[];
  resourceRules?: ResourcePolicyRule[];
  subjects: FlowcontrolV1Subject[];
}

/** flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration. */
export interface PriorityLevelConfiguration extends KubeObject {
  apiVersion?: 'flowcontrol.apiserver.k8s.io/v1';
  kind?: 'PriorityLevelConfiguration';
  metadata?: ObjectMeta;
  spec?: PriorityLevelConfigurationSpec;
  status?: PriorityLevelConfigurationStatus;
}

/** flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfigurationCondition. */
export interface PriorityLevelConfigurationCondition {
  lastTransitionTime?: Time;
  message?: string;
  reason?: string;
  status?: string;
  type?: string;
}

/** flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfigurationList. */
export interface PriorityLevelConfigurationList {
  apiVersion?: 'flowcontrol.apiserver.k8s.io/v1';
  items: PriorityLevelConfiguration[];
  kind?: 'PriorityLevelConfigurationList';
  metadata?: ListMeta;
}

/** flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfigurationReference. */
export interface PriorityLevelConfigurationReference {
  name: string;
}

/** flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfigurationSpec. */
export interface PriorityLevelConfigurationSpec {
  exempt?: ExemptPriorityLevelConfiguration;
  limited?: LimitedPriorityLevelConfiguration;
  type: string;
}

/** flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfigurationStatus. */
export interface PriorityLevelConfigurationStatus {
  conditions?: PriorityLevelConfigurationCondition[];
}

/** flowcontrol.apiserver.k8s.io/v1 QueuingConfiguration. */
export interface QueuingConfiguration {
  handSize?: number;
  queueLengthLimit?: number;
  queues?: number;
}

/** flowcontrol.apiserver.k8s.io/v1 ResourcePolicyRule. */
export interface ResourcePolicyRule {
  apiGroups: string[];
  clusterScope?: boolean;
  namespaces?: string[];
  resources: string[];
  verbs: string[];
}

/** flowcontrol.apiserver.k8s.io/v1 ServiceAccountSubject. */
export interface ServiceAccountSubject {
  name: string;
  namespace: string;
}

/** flowcontrol.apiserver.k8s.io/v1 Subject. */
export interface FlowcontrolV1Subject {
  group?: GroupSubject;
  kind: string;
  serviceAccount?: ServiceAccountSubject;
  user?: UserSubject;
}

/** flowcontrol.apiserver.k8s.io/v1 UserSubject. */
export interface UserSubject {
  name: string;
}

/** networking.k8s.io/v1 HTTPIngressPath. */
export interface HTTPIngressPath {
  backend: IngressBackend;
  path?: string;
  pathType: 'Exact' | 'ImplementationSpecific' | 'Prefix';
}

/** networking.k8s.io/v1 HTTPIngressRuleValue. */
export interface HTTPIngressRuleValue {
  paths: HTTPIngressPath[];
}

/** networking.k8s.io/v1 IPBlock. */
export interface IPBlock {
  cidr: string;
  except?: string[];
}

/** networking.k8s.io/v1 Ingress. */
export interface Ingress extends KubeObject {
  apiVersion?: 'networking.k8s.io/v1';
  kind?: 'Ingress';
  metadata?: ObjectMeta;
  spec?: IngressSpec;
  status?: IngressStatus;
}

/** networking.k8s.io/v1 IngressBackend. */
export interface IngressBackend {
  resource?: TypedLocalObjectReference;
  service?: IngressServiceBackend;
}

/** networking.k8s.io/v1 IngressClass. */
export interface IngressClass extends KubeObject {
  apiVersion?: 'networking.k8s.io/v1';
  kind?: 'IngressClass';
  metadata?: ObjectMeta;
  spec?: IngressClassSpec;
}

/** networking.k8s.io/v1 IngressClassList. */
export interface IngressClassList {
  apiVersion?: 'networking.k8s.io/v1';
  items: IngressClass[];
  kind?: 'IngressClassList';
  metadata?: ListMeta;
}

/** networking.k8s.io/v1 IngressClassParametersReference. */
export interface IngressClassParametersReference {
  apiGroup?: string;
  kind: string;
  name: string;
  namespace?: string;
  scope?: string;
}

/** networking.k8s.io/v1 IngressClassSpec. */
export interface IngressClassSpec {
  controller?: string;
  parameters?: IngressClassParametersReference;
}

/** networking.k8s.io/v1 IngressList. */
export interface IngressList {
  apiVersion?: 'networking.k8s.io/v1';
  items: Ingress[];
  kind?: 'IngressList';
  metadata?: ListMeta;
}

/** networking.k8s.io/v1 IngressLoadBalancerIngress. */
export interface IngressLoadBalancerIngress {
  hostname?: string;
  ip?: string;
  ports?: IngressPortStatus[];
}

/** networking.k8s.io/v1 IngressLoadBalancerStatus. */
export interface IngressLoadBalancerStatus {
  ingress?: IngressLoadBalancerIngress[];
}

/** networking.k8s.io/v1 IngressPortStatus. */
export interface IngressPortStatus {
  error?: string;
  port: number;
  protocol: 'SCTP' | 'TCP' | 'UDP';
}

/** networking.k8s.io/v1 IngressRule. */
export interface IngressRule {
  host?: string;
  http?: HTTPIngressRuleValue;
}

/** networking.k8s.io/v1 IngressServiceBackend. */
export interface IngressServiceBackend {
  name: string;
  port?: ServiceBackendPort;
}

/** networking.k8s.io/v1 IngressSpec. */
export interface IngressSpec {
  defaultBackend?: IngressBackend;
  ingressClassName?: string;
  rules?: IngressRule[];
  tls?: IngressTLS[];
}

/** networking.k8s.io/v1 IngressStatus. */
export interface IngressStatus {
  loadBalancer?: IngressLoadBalancerStatus;
}

/** networking.k8s.io/v1 IngressTLS. */
export interface IngressTLS {
  hosts?: string[];
  secretName?: string;
}

/** networking.k8s.io/v1 NetworkPolicy. */
export interface NetworkPolicy extends KubeObject {
  apiVersion?: 'networking.k8s.io/v1';
  kind?: 'NetworkPolicy';
  metadata?: ObjectMeta;
  spec?: NetworkPolicySpec;
}

/** networking.k8s.io/v1 NetworkPolicyEgressRule. */
export interface NetworkPolicyEgressRule {
  ports?: NetworkPolicyPort[];
  to?: NetworkPolicyPeer[];
}

/** networking.k8s.io/v1 NetworkPolicyIngressRule. */
export interface NetworkPolicyIngressRule {
  from?: NetworkPolicyPeer[];
  ports?: NetworkPolicyPort[];
}

/** networking.k8s.io/v1 NetworkPolicyList. */
export interface NetworkPolicyList {
  apiVersion?: 'networking.k8s.io/v1';
  items: NetworkPolicy[];
  kind?: 'NetworkPolicyList';
  metadata?: ListMeta;
}

/** networking.k8s.io/v1 NetworkPolicyPeer. */
export interface NetworkPolicyPeer {
  ipBlock?: IPBlock;
  namespaceSelector?: LabelSelector;
  podSelector?: LabelSelector;
}

/** networking.k8s.io/v1 NetworkPolicyPort. */
export interface NetworkPolicyPort {
  endPort?: number;
  port?: IntOrString;
  protocol?: 'SCTP' | 'TCP' | 'UDP';
}

/** networking.k8s.io/v1 NetworkPolicySpec. */
export interface NetworkPolicySpec {
  egress?: NetworkPolicyEgressRule[];
  ingress?: NetworkPolicyIngressRule[];
  podSelector: LabelSelector;
  policyTypes?: ('Egress' | 'Ingress')[];
}

/** networking.k8s.io/v1 ServiceBackendPort. */
export interface ServiceBackendPort {
  name?: string;
  number?: number;
}

/** node.k8s.io/v1 Overhead. */
export interface Overhead {
  podFixed?: Record<string, Quantity>;
}

/** node.k8s.io/v1 RuntimeClass. */
export interface RuntimeClass extends KubeObject {
  apiVersion?: 'node.k8s.io/v1';
  handler: string;
  kind?: 'RuntimeClass';
  metadata?: ObjectMeta;
  overhead?: Overhead;
  scheduling?: Scheduling;
}

/** node.k8s.io/v1 RuntimeClassList. */
export interface RuntimeClassList {
  apiVersion?: 'node.k8s.io/v1';
  items: RuntimeClass[];
  kind?: 'RuntimeClassList';
  metadata?: ListMeta;
}

/** node.k8s.io/v1 Scheduling. */
export interface Scheduling {
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
}

/** policy/v1 Eviction. */
export interface Eviction extends KubeObject {
  apiVersion?: 'policy/v1';
  deleteOptions?: DeleteOptions;
  kind?: 'Eviction';
  metadata?: ObjectMeta;
}

/** policy/v1 PodDisruptionBudget. */
export interface PodDisruptionBudget extends KubeObject {
  apiVersion?: 'policy/v1';
  kind?: 'PodDisruptionBudget';
  metadata?: ObjectMeta;
  spec?: PodDisruptionBudgetSpec;
  status?: PodDisruptionBudgetStatus;
}

/** policy/v1 PodDisruptionBudgetList. */
export interface PodDisruptionBudgetList {
  apiVersion?: 'policy/v1';
  items: PodDisruptionBudget[];
  kind?: 'PodDisruptionBudgetList';
  metadata?: ListMeta;
}

/** policy/v1 PodDisruptionBudgetSpec. */
export interface PodDisruptionBudgetSpec {
  maxUnavailable?: IntOrString;
  minAvailable?: IntOrString;
  selector?: LabelSelector;
  unhealthyPodEvictionPolicy?: 'AlwaysAllow' | 'IfHealthyBudget';
}

/** policy/v1 PodDisruptionBudgetStatus. */
export interface PodDisruptionBudgetStatus {
  conditions?: Condition[];
  currentHealthy: number;
  desiredHealthy: number;
  disruptedPods?: Record<string, Time>;
  disruptionsAllowed: number;
  expectedPods: number;
  observedGeneration?: number;
}

/** rbac.authorization.k8s.io/v1 AggregationRule. */
export interface AggregationRule {
  clusterRoleSelectors?: LabelSelector[];
}

/** rbac.authorization.k8s.io/v1 ClusterRole. */
export interface ClusterRole extends KubeObject {
  aggregationRule?: AggregationRule;
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  kind?: 'ClusterRole';
  metadata?: ObjectMeta;
  rules?: PolicyRule[];
}

/** rbac.authorization.k8s.io/v1 ClusterRoleBinding. */
export interface ClusterRoleBinding extends KubeObject {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  kind?: 'ClusterRoleBinding';
  metadata?: ObjectMeta;
  roleRef: RoleRef;
  subjects?: Subject[];
}

/** rbac.authorization.k8s.io/v1 ClusterRoleBindingList. */
export interface ClusterRoleBindingList {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  items: ClusterRoleBinding[];
  kind?: 'ClusterRoleBindingList';
  metadata?: ListMeta;
}

/** rbac.authorization.k8s.io/v1 ClusterRoleList. */
export interface ClusterRoleList {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  items: ClusterRole[];
  kind?: 'ClusterRoleList';
  metadata?: ListMeta;
}

/** rbac.authorization.k8s.io/v1 PolicyRule. */
export interface PolicyRule {
  apiGroups?: string[];
  nonResourceURLs?: string[];
  resourceNames?: string[];
  resources?: string[];
  verbs: string[];
}

/** rbac.authorization.k8s.io/v1 Role. */
export interface Role extends KubeObject {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  kind?: 'Role';
  metadata?: ObjectMeta;
  rules?: PolicyRule[];
}

/** rbac.authorization.k8s.io/v1 RoleBinding. */
export interface RoleBinding extends KubeObject {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  kind?: 'RoleBinding';
  metadata?: ObjectMeta;
  roleRef: RoleRef;
  subjects?: Subject[];
}

/** rbac.authorization.k8s.io/v1 RoleBindingList. */
export interface RoleBindingList {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  items: RoleBinding[];
  kind?: 'RoleBindingList';
  metadata?: ListMeta;
}

/** rbac.authorization.k8s.io/v1 RoleList. */
export interface RoleList {
  apiVersion?: 'rbac.authorization.k8s.io/v1';
  items: Role[];
  kind?: 'RoleList';
  metadata?: ListMeta;
}

/** rbac.authorization.k8s.io/v1 RoleRef. */
export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** rbac.authorization.k8s.io/v1 Subject. */
export interface Subject {
  apiGroup?: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** scheduling.k8s.io/v1 PriorityClass. */
export interface PriorityClass extends KubeObject {
  apiVersion?: 'scheduling.k8s.io/v1';
  description?: string;
  globalDefault?: boolean;
  kind?: 'PriorityClass';
  metadata?: ObjectMeta;
  preemptionPolicy?: 'Never' | 'PreemptLowerPriority';
  value: number;
}

/** scheduling.k8s.io/v1 PriorityClassList. */
export interface PriorityClassList {
  apiVersion?: 'scheduling.k8s.io/v1';
  items: PriorityClass[];
  kind?: 'PriorityClassList';
  metadata?: ListMeta;
}

/** storage.k8s.io/v1 CSIDriver. */
export interface CSIDriver extends KubeObject {
  apiVersion?: 'storage.k8s.io/v1';
  kind?: 'CSIDriver';
  metadata?: ObjectMeta;
  spec: CSIDriverSpec;
}

/** storage.k8s.io/v1 CSIDriverList. */
export interface CSIDriverList {
  apiVersion?: 'storage.k8s.io/v1';
  items: CSIDriver[];
  kind?: 'CSIDriverList';
  metadata?: ListMeta;
}

/** storage.k8s.io/v1 CSIDriverSpec. */
export interface CSIDriverSpec {
  attachRequired?: boolean;
  fsGroupPolicy?: string;
  podInfoOnMount?: boolean;
  requiresRepublish?: boolean;
  seLinuxMount?: boolean;
  storageCapacity?: boolean;
  tokenRequests?: StorageV1TokenRequest[];
  volumeLifecycleModes?: string[];
}

/** storage.k8s.io/v1 CSINode. */
export interface CSINode extends KubeObject {
  apiVersion?: 'storage.k8s.io/v1';
  kind?: 'CSINode';
  metadata?: ObjectMeta;
  spec: CSINodeSpec;
}

/** storage.k8s.io/v1 CSINodeDriver. */
export interface CSINodeDriver {
  allocatable?: VolumeNodeResources;
  name: string;
  nodeID: string;
  topologyKeys?: string[];
}

/** storage.k8s.io/v1 CSINodeList. */
export interface CSINodeList {
  apiVersion?: 'storage.k8s.io/v1';
  items: CSINode[];
  kind?: 'CSINodeList';
  metadata?: ListMeta;
}

/** storage.k8s.io/v1 CSINodeSpec. */
export interface CSINodeSpec {
  drivers: CSINodeDriver[];
}

/** storage.k8s.io/v1 CSIStorageCapacity. */
export interface CSIStorageCapacity extends KubeObject {
  apiVersion?: 'storage.k8s.io/v1';
  capacity?: Quantity;
  kind?: 'CSIStorageCapacity';
  maximumVolumeSize?: Quantity;
  metadata?: ObjectMeta;
  nodeTopology?: LabelSelector;
  storageClassName: string;
}

/** storage.k8s.io/v1 CSIStorageCapacityList. */
export interface CSIStorageCapacityList {
  apiVersion?: 'storage.k8s.io/v1';
  items: CSIStorageCapacity[];
  kind?: 'CSIStorageCapacityList';
  metadata?: ListMeta;
}

/** storage.k8s.io/v1 StorageClass. */
export interface StorageClass extends KubeObject {
  allowVolumeExpansion?: boolean;
  allowedTopologies?: TopologySelectorTerm[];
  apiVersion?: 'storage.k8s.io/v1';
  kind?: 'StorageClass';
  metadata?: ObjectMeta;
  mountOptions?: string[];
  parameters?: Record<string, string>;
  provisioner: string;
  reclaimPolicy?: 'Delete' | 'Recycle' | 'Retain';
  volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer';
}

/** storage.k8s.io/v1 StorageClassList. */
export interface StorageClassList {
  apiVersion?: 'storage.k8s.io/v1';
  items: StorageClass[];
  kind?: 'StorageClassList';
  metadata?: ListMeta;
}

/** storage.k8s.io/v1 TokenRequest. */
export interface StorageV1TokenRequest {
  audience: string;
  expirationSeconds?: number;
}

/** storage.k8s.io/v1 VolumeAttachment. */
export interface VolumeAttachment extends KubeObject {
  apiVersion?: 'storage.k8s.io/v1';
  kind?: 'VolumeAttachment';
  metadata?: ObjectMeta;
  spec: VolumeAttachmentSpec;
  status?: VolumeAttachmentStatus;
}

/** storage.k8s.io/v1 VolumeAttachmentList. */
export interface VolumeAttachmentList {
  apiVersion?: 'storage.k8s.io/v1';
  items: VolumeAttachment[];
  kind?: 'VolumeAttachmentList';
  metadata?: ListMeta;
}

/** storage.k8s.io/v1 VolumeAttachmentSource. */
export interface VolumeAttachmentSource {
  inlineVolumeSpec?: PersistentVolumeSpec;
  persistentVolumeName?: string;
}

/** storage.k8s.io/v1 VolumeAttachmentSpec. */
export interface VolumeAttachmentSpec {
  attacher: string;
  nodeName: string;
  source: VolumeAttachmentSource;
}

/** storage.k8s.io/v1 VolumeAttachmentStatus. */
export interface VolumeAttachmentStatus {
  attachError?: VolumeError;
  attached: boolean;
  attachmentMetadata?: Record<string, string>;
  detachError?: VolumeError;
}

/** storage.k8s.io/v1 VolumeError. */
export interface VolumeError {
  message?: string;
  time?: Time;
}

/** storage.k8s.io/v1 VolumeNodeResources. */
export interface VolumeNodeResources {
  count?: number;
}
