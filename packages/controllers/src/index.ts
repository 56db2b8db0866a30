/** @kplane/controllers — kplane's built-in controllers and the controller manager that runs them. */
export * from './namespace/index.js';
export * from './serviceaccount/index.js';
export * from './rootcacertpublisher/index.js';
export * from './manager.js';
export * from './garbagecollector/index.js';
export * from './clusterrole-aggregation/index.js';
export * from './podgc/index.js';
export {
  BURST_REPLICAS,
  POD_BATCH_WINDOW_MS,
  createExpectations,
  createReplicaSetController,
  type Expectations,
  type ExpectationsOptions,
  type ReplicaSetController,
  type ReplicaSetControllerOptions,
} from './replicaset/index.js';
export {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  REPLICASET_BATCH_WINDOW_MS,
  computeHash,
  createDeploymentController,
  type DeploymentControllerOptions,
} from './deployment/index.js';
export {
  DAEMONSET_BATCH_WINDOW_MS,
  DAEMONSET_BURST_REPLICAS,
  DAEMONSET_HASH_LABEL,
  createDaemonSetController,
  type DaemonSetController,
  type DaemonSetControllerOptions,
} from './daemonset/index.js';
export * from './identity/policy.js';
export * from './identity/reconcile.js';
export * from './identity/token-clients.js';
export * from './certificates/index.js';
export * from './replicationcontroller/index.js';
export * from './podautoscaler/index.js';
export * from './job/index.js';
export * from './ttlafterfinished/index.js';
export * from './nodelifecycle/index.js';
export * from './disruption/index.js';
export {
  CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION,
  compileSchedule,
  createCronJobController,
  jobName as cronJobJobName,
  type CronJobControllerOptions,
  type Schedule,
} from './cronjob/index.js';
export * from './history/index.js';
export * from './statefulset/index.js';
export * from './resourcequota/index.js';
export * from './volume/index.js';
export * from './endpointslice/index.js';
export * from './endpoints/index.js';
