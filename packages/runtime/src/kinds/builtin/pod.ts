/** core/v1 Pod and everything it references: containers, probes, lifecycle, volumes, status. */
import type {
  ConditionStatus, IntOrString, KubeObject, LabelSelector, LocalObjectReference, ObjectMeta, Quantity, ResourceList, Time,
} from './meta.js';

/** A core/v1 ContainerPort. */
export interface ContainerPort {
  /** An IANA_SVC_NAME unique within the pod. */
  name?: string;
  /** Port on the pod's IP (1-65535). */
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  /** TCP (default), UDP or SCTP. */
  protocol?: 'TCP' | 'UDP' | 'SCTP';
}

/** Selects a key of a ConfigMap. */
export interface ConfigMapKeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}

/** Selects a key of a Secret. */
export interface SecretKeySelector {
  name?: string;
  key: string;
  optional?: boolean;
}

/** Selects a field of the pod (metadata.name, status.podIP…). */
export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath: string;
}

/** Selects a container resource (limits.cpu…). */
export interface ResourceFieldSelector {
  containerName?: string;
  resource: string;
  divisor?: Quantity;
}

/** Where an environment variable's value comes from. */
export interface EnvVarSource {
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  configMapKeyRef?: ConfigMapKeySelector;
  secretKeyRef?: SecretKeySelector;
}

/** A core/v1 EnvVar. */
export interface EnvVar {
  name: string;
  /** Value with $(VAR) references expanded. */
  value?: string;
  valueFrom?: EnvVarSource;
}

/** A ConfigMap or Secret whose keys become environment variables. */
export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name?: string; optional?: boolean };
  secretRef?: { name?: string; optional?: boolean };
}

/** A core/v1 ResourceClaim reference of a container. */
export interface ResourceClaim {
  name: string;
  request?: string;
}

/** core/v1 ResourceRequirements. */
export interface ResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
  claims?: ResourceClaim[];
}

/** How a resource is resized in place. */
export interface ContainerResizePolicy {
  resourceName: string;
  restartPolicy: 'NotRequired' | 'RestartContainer';
}

/** A core/v1 VolumeMount. */
export interface VolumeMount {
  /** Name of a volume of the pod. */
  name: string;
  /** Path inside the container; must not contain ':'. */
  mountPath: string;
  readOnly?: boolean;
  recursiveReadOnly?: 'Disabled' | 'IfPossible' | 'Enabled';
  subPath?: string;
  subPathExpr?: string;
  mountPropagation?: 'None' | 'HostToContainer' | 'Bidirectional';
}

/** A raw block device mapped into a container. */
export interface VolumeDevice {
  name: string;
  devicePath: string;
}

/** Runs a command in the container; exit 0 is success. */
export interface ExecAction {
  command?: string[];
}

/** An HTTP request header. */
export interface HTTPHeader {
  name: string;
  value: string;
}

/** An HTTP GET; a status in 200-399 is success. */
export interface HTTPGetAction {
  path?: string;
  port: IntOrString;
  host?: string;
  scheme?: 'HTTP' | 'HTTPS';
  httpHeaders?: HTTPHeader[];
}

/** Opens a TCP connection. */
export interface TCPSocketAction {
  port: IntOrString;
  host?: string;
}

/** Calls the gRPC health checking protocol. */
export interface GRPCAction {
  port: number;
  service?: string;
}

/** Sleeps for a number of seconds (lifecycle hooks). */
export interface SleepAction {
  seconds: number;
}

/** A core/v1 Probe. */
export interface Probe {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  grpc?: GRPCAction;
  initialDelaySeconds?: number;
  /** Defaults to 1. */
  timeoutSeconds?: number;
  /** Defaults to 10. */
  periodSeconds?: number;
  /** Defaults to 1. */
  successThreshold?: number;
  /** Defaults to 3. */
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

/** One lifecycle action: exactly one of exec, httpGet, tcpSocket or sleep. */
export interface LifecycleHandler {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  sleep?: SleepAction;
}

/** core/v1 Lifecycle hooks of a container. */
export interface Lifecycle {
  postStart?: LifecycleHandler;
  preStop?: LifecycleHandler;
  stopSignal?: string;
}

/** core/v1 SecurityContext of a container (the commonly used fields). */
export interface SecurityContext {
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  privileged?: boolean;
  readOnlyRootFilesystem?: boolean;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  [field: string]: unknown;
}

/** A core/v1 Container. */
export interface Container {
  /** DNS label unique within the pod. */
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  envFrom?: EnvFromSource[];
  env?: EnvVar[];
  resources?: ResourceRequirements;
  resizePolicy?: ContainerResizePolicy[];
  /** Only "Always", for init containers (sidecars). */
  restartPolicy?: 'Always';
  volumeMounts?: VolumeMount[];
  volumeDevices?: VolumeDevice[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: Lifecycle;
  terminationMessagePath?: string;
  terminationMessagePolicy?: 'File' | 'FallbackToLogsOnError';
  imagePullPolicy?: 'Always' | 'Never' | 'IfNotPresent';
  securityContext?: SecurityContext;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
}

/** A core/v1 EphemeralContainer (debugging). */
export interface EphemeralContainer extends Container {
  targetContainerName?: string;
}

/** Maps a key to a file path in a projected volume. */
export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

/** A core/v1 Volume: a name and exactly one source. Unlisted sources are kept as is. */
export interface Volume {
  name: string;
  emptyDir?: { medium?: '' | 'Memory'; sizeLimit?: Quantity };
  configMap?: { name?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  secret?: { secretName?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  hostPath?: { path: string; type?: string };
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  projected?: { sources?: unknown[]; defaultMode?: number };
  downwardAPI?: { items?: unknown[]; defaultMode?: number };
  [source: string]: unknown;
}

/** A core/v1 Toleration. */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

/** A core/v1 TopologySpreadConstraint. */
export interface TopologySpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelector;
  minDomains?: number;
  matchLabelKeys?: string[];
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
}

/** core/v1 PodSecurityContext (the commonly used fields). */
export interface PodSecurityContext {
  fsGroup?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  supplementalGroups?: number[];
  [field: string]: unknown;
}

/** An /etc/hosts entry. */
export interface HostAlias {
  ip: string;
  hostnames?: string[];
}

/** core/v1 PodSpec. */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: EphemeralContainer[];
  volumes?: Volume[];
  /** Always (default), OnFailure or Never. */
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  /** Defaults to 30. */
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: 'ClusterFirst' | 'ClusterFirstWithHostNet' | 'Default' | 'None';
  dnsConfig?: { nameservers?: string[]; searches?: string[]; options?: { name?: string; value?: string }[] };
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  /** Deprecated alias of serviceAccountName. */
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  /** Set by the scheduler, or directly to bypass it. */
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostUsers?: boolean;
  shareProcessNamespace?: boolean;
  securityContext?: PodSecurityContext;
  imagePullSecrets?: LocalObjectReference[];
  hostname?: string;
  subdomain?: string;
  setHostnameAsFQDN?: boolean;
  affinity?: { nodeAffinity?: unknown; podAffinity?: unknown; podAntiAffinity?: unknown };
  schedulerName?: string;
  tolerations?: Toleration[];
  hostAliases?: HostAlias[];
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: 'PreemptLowerPriority' | 'Never';
  readinessGates?: { conditionType: string }[];
  runtimeClassName?: string;
  enableServiceLinks?: boolean;
  overhead?: ResourceList;
  topologySpreadConstraints?: TopologySpreadConstraint[];
  os?: { name: 'linux' | 'windows' };
  schedulingGates?: { name: string }[];
  resourceClaims?: { name: string; resourceClaimName?: string; resourceClaimTemplateName?: string }[];
  resources?: ResourceRequirements;
}

/** core/v1 PodTemplateSpec: the pods a workload creates. */
export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

/** A core/v1 PodCondition. */
export interface PodCondition {
  /** PodScheduled, Initialized, ContainersReady, Ready, or a readiness gate. */
  type: string;
  status: ConditionStatus;
  lastProbeTime?: Time;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

/** A container that is waiting to start. */
export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}

/** A running container. */
export interface ContainerStateRunning {
  startedAt?: Time;
}

/** A container that has terminated. */
export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: Time;
  finishedAt?: Time;
  containerID?: string;
}

/** core/v1 ContainerState: at most one member is set. */
export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}

/** A core/v1 ContainerStatus. */
export interface ContainerStatus {
  name: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
  allocatedResources?: ResourceList;
  resources?: ResourceRequirements;
}

/** core/v1 PodStatus. */
export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: Time;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  qosClass?: 'Guaranteed' | 'Burstable' | 'BestEffort';
  resize?: string;
  observedGeneration?: number;
}

/** A core/v1 Pod. */
export interface Pod extends KubeObject {
  metadata?: ObjectMeta;
  spec?: PodSpec;
  status?: PodStatus;
}
