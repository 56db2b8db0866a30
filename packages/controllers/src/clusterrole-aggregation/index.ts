export {
  aggregatedRules,
  createClusterRoleAggregationController,
  CLUSTERROLE_AGGREGATION_QUEUE_NAME,
  CLUSTERROLE_AGGREGATION_FIELD_MANAGER,
  type AggregatedClusterRole,
  type ClusterRoleAggregationOptions,
} from './controller.js';
