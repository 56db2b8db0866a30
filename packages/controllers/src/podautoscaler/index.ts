/** The horizontal-pod-autoscaler controller, its replica calculator and its scaling rules. */
export { DEFAULT_SYNC_PERIOD_MS, createHorizontalPodAutoscalerController, metricName, type HorizontalPodAutoscalerControllerOptions } from './controller.js';
export { DEFAULT_TOLERANCE, groupPods, milliValue, podRequest, resourceReplicas, type PodSample, type ReplicaProposal, type ResourceTarget } from './replica-calculator.js';
export { DOWNSCALE_STABILIZATION_MS, newHistory, normalizeReplicas, recordScale, scaleDownLimit, scaleUpLimit, type NormalizeArgs, type Normalized, type ScalingCondition, type ScalingHistory } from './scaling.js';
