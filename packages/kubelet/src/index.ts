/**
 * @kplane/kubelet — a scheduler and a simulated kubelet (kwok-style: no containers) for kplane:
 * fake Ready nodes with heartbeat Leases, pods bound through pods/binding and moved through
 * their lifecycle, with configurable delays and injected failures.
 */
export { createKubelet, type Kubelet, type KubeletOptions } from './kubelet.js';
export { createScheduler, type Scheduler, type SchedulerOptions } from './scheduler.js';
export { SCHEDULER_LEASE, startElectedScheduler, type ElectedScheduler, type ElectedSchedulerOptions } from './elected-scheduler.js';
export { nodeUser, SCHEDULER_USER, startSimulation, type Simulation, type SimulationOptions } from './simulation.js';
export {
  ANNOTATION_PREFIX,
  BEHAVIOR_ANNOTATIONS,
  DEFAULT_RUN_MS,
  DEFAULT_START_AFTER_MS,
  EXIT_CODE_ANNOTATION_PREFIX,
  RUN_MS_ANNOTATION_PREFIX,
  compileKubeletConfig,
  planFor,
  type BehaviorRule,
  type CompiledConfig,
  type ContainerBehavior,
  type FailureMode,
  type KubeletConfig,
  type PodBehavior,
  type PodPlan,
} from './profile.js';
export {
  DEFAULT_MAX_PODS,
  DEFAULT_NODE_PREFIX,
  KUBELET_VERSION,
  MAX_NODES,
  buildNode,
  buildNodeLease,
  nodeInternalIp,
  nodeName,
  podCidr,
  type NodeTemplateOptions,
} from './node-template.js';
export { DEFAULT_BACKOFF, goDuration, type CrashBackoff } from './container-cycle.js';
export { normalizeImage, restartBackoffMs, simulatePod, stoppedPodStatus, type PodRecord, type SimulatedStatus } from './pod-status.js';
export {
  balancedAllocationScore,
  fitErrorMessage,
  insufficientResources,
  leastAllocatedScore,
  podResources,
  tolerates,
  NO_NODES_MESSAGE,
  SCORE_WEIGHTS,
  type FilterFailure,
  type NodeLoad,
  type PodResources,
  type ResourceAmounts,
} from './predicates.js';
export { ClusterState, type NodeInfo, type PodInfo } from './scheduling/cluster.js';
export { Cycle, place, type Nomination, type Placement } from './scheduling/framework.js';
export { findPreemption, type Candidate, type PreemptionResult } from './scheduling/preemption.js';
export { benchPodsReady, formatPodBench, type PodBenchOptions, type PodBenchResult } from './bench.js';
export { ContainerLogs, DEFAULT_MAX_LOG_LINES, logTimestamp, type LogLine, type LogUnavailable, type ReadLogOptions } from './container-log.js';
export {
  CPU_USAGE_ANNOTATION,
  DEFAULT_CPU_USAGE_NANOCORES,
  DEFAULT_MEMORY_USAGE_BYTES,
  MEMORY_USAGE_ANNOTATION,
  NODE_BASE_CPU_NANOCORES,
  NODE_BASE_MEMORY_BYTES,
  containerUsage,
  nodeMetrics,
  podMetrics,
  podUsage,
  type ContainerUsage,
  type NodeMetrics,
  type PodMetrics,
} from './usage.js';
export { LOG_ANNOTATION, LOG_ANNOTATION_PREFIX, annotatedLines } from './pod-log.js';
export { NODE_RULES, SCHEDULER_RULES, simulationPolicy, type PolicyRule as SimulationPolicyRule } from './policy.js';
