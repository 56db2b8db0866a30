/**
 * The scheduler's predicates as the package exports them: the taint and node affinity checks
 * (from @kplane/runtime/internal, shared with the DaemonSet controller), the resource accounting and the
 * FitError message (from scheduling/).
 */
import { effectiveTaints, matchesNodeAffinity, tolerates } from '@kplane/runtime/internal';

export { effectiveTaints, matchesNodeAffinity, tolerates };
export { fitErrorMessage, NO_NODES_MESSAGE, SCORE_WEIGHTS } from './scheduling/framework.js';
export type { FilterFailure } from './scheduling/node-plugins.js';
export { podResources, insufficientResources, leastAllocatedScore, balancedAllocationScore, type PodResources, type NodeLoad, type ResourceAmounts } from './scheduling/resources.js';
