export {
  aggregatedRules,
  createClusterRoleAggregationController,
  CLUSTERROLE_AGGREGATION_QUEUE_NAME,
  type AggregatedClusterRole,
  type ClusterRoleAggregationOptions,
} from './controller.js';
