/**
 * kplane's own short descriptions of the built-in API's types and fields, shown by
 * `kubectl explain` and carried into the OpenAPI documents and the SDK's types. They are
 * written for kplane (none comes from Kubernetes); a type or field without one has none.
 *
 * A few descriptions follow from the model instead of being listed: `apiVersion`, `kind` and
 * `metadata` of every kind, and a List kind with its `items`.
 */
import type { FieldModel, TypeModel } from './types.js';

/** The descriptions of one type: its own and its fields'. */
export interface TypeDescriptions {
  readonly type?: string;
  readonly fields?: Readonly<Record<string, string>>;
}

/** Descriptions keyed by full schema name (`io.k8s.api.apps.v1.Deployment`). */
export type Descriptions = Readonly<Record<string, TypeDescriptions>>;

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';

const API_VERSION = 'The versioned schema of this object, e.g. "v1" or "apps/v1". Servers convert recognized schemas to the latest internal value.';
const KIND = 'The REST kind this object represents, in CamelCase, e.g. "Pod". Servers may infer it from the endpoint the client uses.';
const OBJECT_METADATA = "Standard object metadata: name, namespace, labels, annotations and the server's bookkeeping.";
const LIST_METADATA = 'Standard list metadata: resourceVersion and continue token.';

/** The kind a List kind lists (`PodList` → `Pod`), when `type` is one. */
function listedKind(type: TypeModel): string | undefined {
  const kind = type.gvk?.[0]?.kind;
  if (!kind?.endsWith('List') || !type.fields?.items?.type.startsWith('[]')) return undefined;
  return kind.slice(0, -'List'.length);
}

/** The description of a type (`name` is its full schema name). */
export function typeDescription(name: string, type: TypeModel, descriptions: Descriptions = DESCRIPTIONS): string | undefined {
  const own = descriptions[name]?.type;
  if (own !== undefined) return own;
  const listed = listedKind(type);
  return listed ? `${listed}List is a list of ${listed} objects.` : undefined;
}

/** The description of one field of a type (`name` is the type's full schema name). */
export function fieldDescription(
  name: string,
  type: TypeModel,
  field: string,
  model: FieldModel,
  descriptions: Descriptions = DESCRIPTIONS,
): string | undefined {
  const own = descriptions[name]?.fields?.[field];
  if (own !== undefined) return own;
  if (!type.gvk?.length) return undefined;
  if (field === 'apiVersion' && model.type === 'string') return API_VERSION;
  if (field === 'kind' && model.type === 'string') return KIND;
  if (field === 'metadata' && model.type === OBJECT_META) return OBJECT_METADATA;
  if (field === 'metadata' && model.type === LIST_META) return LIST_METADATA;
  const listed = field === 'items' ? listedKind(type) : undefined;
  return listed ? `The ${listed} objects.` : undefined;
}

/** The fields mutating and validating webhooks share. */
const WEBHOOK_FIELDS = {
  admissionReviewVersions: 'The AdmissionReview versions the webhook accepts, in order of preference; the API server sends the first it supports.',
  clientConfig: 'How the webhook is reached: a URL or a Service, and the CA bundle that verifies its certificate.',
  failurePolicy: 'What happens when the webhook cannot be called or fails: Fail refuses the request, Ignore lets it through. Defaults to Fail.',
  matchConditions: 'CEL conditions over the request that must all hold for the webhook to be called.',
  matchPolicy: 'How rules match a request made through another version of the same resource: Exact or Equivalent. Defaults to Equivalent.',
  name: 'The webhook\'s name, a fully qualified domain name unique within the configuration.',
  namespaceSelector: 'Selects, by the labels of their namespace, the objects the webhook is called for; empty selects all.',
  objectSelector: 'Selects, by their own labels (new or old object), the objects the webhook is called for; empty selects all.',
  rules: 'The operations on resources the webhook is called for.',
  sideEffects: 'Whether calling the webhook has side effects: None or NoneOnDryRun; dry-run requests only reach webhooks without them.',
  timeoutSeconds: 'Seconds the API server waits for the webhook (1 to 30) before applying failurePolicy. Defaults to 10.',
};

/** kplane's descriptions of the built-in API. */
export const DESCRIPTIONS: Descriptions = {
  'io.k8s.api.apps.v1.DaemonSet': {
    type: 'Runs one copy of a pod on every eligible node.',
    fields: {
      spec: 'Desired behavior of the daemon set.',
      status: 'Most recently observed status of the daemon set. Read-only.',
    },
  },
  'io.k8s.api.apps.v1.DaemonSetSpec': {
    type: 'Desired state of a daemon set.',
    fields: {
      minReadySeconds: 'Seconds a new daemon pod must be ready, without crashing, to count as available. Defaults to 0.',
      revisionHistoryLimit: 'How many old ControllerRevisions to keep for rollback. Defaults to 10.',
      selector: "Label selector of the daemon pods; must match the template's labels. Immutable.",
      template: 'The pod to run on each eligible node. Its restartPolicy must be Always.',
      updateStrategy: 'How daemon pods are replaced when the template changes.',
    },
  },
  'io.k8s.api.apps.v1.DaemonSetStatus': {
    type: 'Observed state of a daemon set.',
    fields: {
      collisionCount: 'Count of hash collisions, used to name new ControllerRevisions.',
      conditions: 'Latest observations of the daemon set.',
      currentNumberScheduled: 'Nodes running at least one daemon pod that should run one.',
      desiredNumberScheduled: 'Nodes that should run the daemon pod.',
      numberAvailable: 'Nodes whose daemon pod has been ready for minReadySeconds.',
      numberMisscheduled: 'Nodes running the daemon pod that should not.',
      numberReady: 'Nodes whose daemon pod is ready.',
      numberUnavailable: 'Nodes that should run the daemon pod and have none available.',
      observedGeneration: 'The generation the controller last observed.',
      updatedNumberScheduled: 'Nodes running the updated daemon pod.',
    },
  },
  'io.k8s.api.apps.v1.DaemonSetUpdateStrategy': {
    type: 'How a daemon set replaces its pods.',
    fields: {
      rollingUpdate: 'Parameters of a RollingUpdate.',
      type: 'RollingUpdate (default) or OnDelete (new pods only where old ones were deleted).',
    },
  },
  'io.k8s.api.apps.v1.RollingUpdateDaemonSet': {
    type: 'Parameters of a daemon set rolling update.',
    fields: {
      maxSurge: 'Nodes that may run an updated pod beside the old one, a number or a percentage of the desired nodes (rounded up). Defaults to 0.',
      maxUnavailable: 'Nodes whose daemon pod may be unavailable during the update, a number or a percentage (rounded up). Defaults to 1.',
    },
  },
  'io.k8s.api.apps.v1.Deployment': {
    type: 'Declarative updates for pods, through ReplicaSets.',
    fields: {
      spec: 'Desired behavior of the deployment.',
      status: 'Most recently observed status of the deployment. Read-only.',
    },
  },
  'io.k8s.api.apps.v1.DeploymentCondition': {
    type: 'One condition of a Deployment.',
    fields: {
      lastTransitionTime: 'Last time the condition changed status.',
      lastUpdateTime: 'Last time the condition was updated.',
      message: 'Human-readable details.',
      reason: 'CamelCase reason for the last transition.',
      status: 'True, False or Unknown.',
      type: 'Condition type.',
    },
  },
  'io.k8s.api.apps.v1.DeploymentSpec': {
    type: 'Desired state of a deployment.',
    fields: {
      minReadySeconds: 'Seconds a new pod must be ready, without crashing, to count as available. Defaults to 0.',
      paused: 'Pauses the rollout.',
      progressDeadlineSeconds: 'Seconds the rollout may make no progress before it is reported as failed. Defaults to 600.',
      replicas: 'Desired number of pods. Defaults to 1.',
      revisionHistoryLimit: 'How many old ReplicaSets to keep for rollback. Defaults to 10.',
      selector: 'Label selector of the pods; must match the template\'s labels. Immutable in apps/v1.',
      strategy: 'How pods are replaced by new ones.',
      template: 'The pods to create. Its restartPolicy must be Always.',
    },
  },
  'io.k8s.api.apps.v1.DeploymentStatus': {
    type: 'Observed state of a deployment.',
    fields: {
      availableReplicas: 'Pods ready for at least minReadySeconds.',
      collisionCount: 'Count of hash collisions, used to name new ReplicaSets.',
      conditions: 'Latest observations: Available, Progressing, ReplicaFailure.',
      observedGeneration: 'The generation the controller last observed.',
      readyReplicas: 'Pods with a Ready condition.',
      replicas: 'Pods targeted by the deployment (their labels match the selector).',
      unavailableReplicas: 'Pods still needed for the deployment to have 100% available capacity.',
      updatedReplicas: 'Pods running the desired template.',
    },
  },
  'io.k8s.api.apps.v1.DeploymentStrategy': {
    type: 'How a deployment replaces pods.',
    fields: {
      rollingUpdate: 'Parameters of a RollingUpdate.',
      type: 'Recreate or RollingUpdate (default).',
    },
  },
  'io.k8s.api.apps.v1.ControllerRevision': {
    type: 'An immutable snapshot of a StatefulSet\'s or DaemonSet\'s template, kept for rollbacks.',
    fields: {
      data: 'The snapshot: the patch that restores the template.',
      revision: 'The revision this snapshot records (increasing).',
    },
  },
  'io.k8s.api.apps.v1.StatefulSet': {
    type: 'Runs pods with stable identities: ordinal names, stable hostnames and their own volume claims.',
    fields: {
      spec: 'Desired behavior of the StatefulSet.',
      status: 'Most recently observed status of the StatefulSet. Read-only.',
    },
  },
  'io.k8s.api.apps.v1.StatefulSetSpec': {
    type: 'Desired behavior of a StatefulSet.',
    fields: {
      minReadySeconds: 'Seconds a new pod must be ready before it counts as available (default 0).',
      ordinals: 'Where the replicas\' ordinals start.',
      persistentVolumeClaimRetentionPolicy: 'What happens to the claims made from volumeClaimTemplates when the set is deleted or scaled down.',
      podManagementPolicy: 'OrderedReady (default): one pod at a time, in order; Parallel: all at once.',
      replicas: 'Desired number of pods (default 1).',
      revisionHistoryLimit: 'Old ControllerRevisions to keep (default 10).',
      selector: 'Label query over the pods the set owns; must match the template labels.',
      serviceName: 'The headless service giving the pods their DNS names.',
      template: 'The pods to create; each gets a unique ordinal identity.',
      updateStrategy: 'How pods are replaced when the template changes.',
      volumeClaimTemplates: 'Claims each pod gets, named <claim>-<set>-<ordinal>.',
    },
  },
  'io.k8s.api.apps.v1.StatefulSetStatus': {
    type: 'Most recently observed state of a StatefulSet.',
    fields: {
      availableReplicas: 'Pods ready for at least minReadySeconds.',
      collisionCount: 'Hash collisions met while naming ControllerRevisions.',
      conditions: 'Latest observations of the set.',
      currentReplicas: 'Pods running the current revision.',
      currentRevision: 'The revision of the pods below the update partition.',
      observedGeneration: 'The generation the controller last observed.',
      readyReplicas: 'Pods with a Ready condition.',
      replicas: 'Pods the controller created.',
      updateRevision: 'The revision the set is updating to.',
      updatedReplicas: 'Pods running the update revision.',
    },
  },
  'io.k8s.api.apps.v1.StatefulSetUpdateStrategy': {
    type: 'How a StatefulSet replaces pods.',
    fields: {
      rollingUpdate: 'Parameters of a RollingUpdate.',
      type: 'RollingUpdate (default) or OnDelete.',
    },
  },
  'io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy': {
    type: 'Parameters of a StatefulSet rolling update.',
    fields: {
      maxUnavailable: 'Most pods unavailable during the update (a number or a percentage).',
      partition: 'Pods with an ordinal at or above it are updated; the others keep the current revision.',
    },
  },
  'io.k8s.api.core.v1.PersistentVolume': {
    type: 'A piece of storage in the cluster, provisioned by an administrator or by a StorageClass.',
    fields: {
      spec: 'The volume\'s capacity, access modes, source and reclaim policy.',
      status: 'The current phase of the volume (Pending, Available, Bound, Released, Failed). Read-only.',
    },
  },
  'io.k8s.api.storage.v1.StorageClass': {
    type: 'A class of storage: the provisioner that creates its volumes, with their parameters and policies.',
    fields: {
      allowVolumeExpansion: 'Whether claims of this class may grow.',
      parameters: 'Provisioner parameters. Immutable.',
      provisioner: 'The provisioner of the volumes of this class. Immutable.',
      reclaimPolicy: 'What happens to a provisioned volume when its claim goes: Delete (default) or Retain.',
      volumeBindingMode: 'Immediate (default), or WaitForFirstConsumer: bind and provision once a pod using the claim is scheduled.',
    },
  },
  'io.k8s.api.core.v1.PersistentVolumeClaim': {
    type: 'A request for storage by a user.',
    fields: {
      spec: 'The storage asked for.',
      status: 'The current state of the claim. Read-only.',
    },
  },
  'io.k8s.api.apps.v1.ReplicaSet': {
    type: 'Keeps a number of identical pods running.',
    fields: {
      spec: 'Desired behavior of the ReplicaSet.',
      status: 'Most recently observed status of the ReplicaSet. Read-only.',
    },
  },
  'io.k8s.api.apps.v1.ReplicaSetCondition': {
    type: 'One condition of a ReplicaSet.',
    fields: {
      lastTransitionTime: 'Last time the condition changed status.',
      message: 'Human-readable details.',
      reason: 'CamelCase reason for the last transition.',
      status: 'True, False or Unknown.',
      type: 'Condition type.',
    },
  },
  'io.k8s.api.apps.v1.ReplicaSetSpec': {
    type: 'Desired state of a ReplicaSet.',
    fields: {
      minReadySeconds: 'Seconds a new pod must be ready, without crashing, to count as available. Defaults to 0.',
      replicas: 'Desired number of pods. Defaults to 1.',
      selector: 'Label selector of the pods; must match the template\'s labels.',
      template: 'The pods to create when too few exist.',
    },
  },
  'io.k8s.api.apps.v1.ReplicaSetStatus': {
    type: 'Observed state of a ReplicaSet.',
    fields: {
      availableReplicas: 'Pods ready for at least minReadySeconds.',
      conditions: 'Latest observations of the ReplicaSet\'s state.',
      fullyLabeledReplicas: 'Pods whose labels match the template\'s labels.',
      observedGeneration: 'The generation the controller last observed.',
      readyReplicas: 'Pods with a Ready condition.',
      replicas: 'The most recently observed number of pods.',
    },
  },
  'io.k8s.api.apps.v1.RollingUpdateDeployment': {
    type: 'Parameters of a rolling update.',
    fields: {
      maxSurge: 'How many pods may be created above the desired count, as a number or a percentage. Defaults to 25%.',
      maxUnavailable: 'How many pods may be unavailable during the update, as a number or a percentage. Defaults to 25%.',
    },
  },
  'io.k8s.api.batch.v1.Job': {
    type: 'Runs pods until a number of them succeed.',
    fields: {
      spec: 'Desired behavior of the Job.',
      status: 'Most recently observed status of the Job. Read-only.',
    },
  },
  'io.k8s.api.batch.v1.JobSpec': {
    type: 'Desired state of a Job.',
    fields: {
      activeDeadlineSeconds: 'Seconds the Job may stay active (from its start) before its pods are stopped and it fails with DeadlineExceeded.',
      backoffLimit: 'Pod failures allowed before the Job fails. Defaults to 6.',
      backoffLimitPerIndex: 'Pod failures allowed per index of an Indexed Job before that index fails.',
      completionMode: 'NonIndexed (default): any completions count; Indexed: each index from 0 to completions-1 must succeed once.',
      completions: 'Successful pods needed for the Job to complete; unset: the first success completes it once all pods end.',
      managedBy: 'The controller that manages this Job; the built-in one when unset.',
      manualSelector: 'Use the given selector instead of the generated one. Defaults to false.',
      maxFailedIndexes: 'Failed indexes allowed before the Job fails (with backoffLimitPerIndex).',
      parallelism: 'Most pods running at once. Defaults to 1.',
      podFailurePolicy: 'Rules deciding what a pod failure does: fail the Job, fail the index, ignore it or count it.',
      podReplacementPolicy: 'When a replacement pod is created: TerminatingOrFailed or Failed (once the old pod is fully terminated).',
      selector: 'Label query over the Job\'s pods; generated unless manualSelector is true.',
      successPolicy: 'Rules that declare an Indexed Job succeeded before all indexes succeed.',
      suspend: 'While true no pods are created and running ones are deleted. Defaults to false.',
      template: 'The pods the Job runs.',
      ttlSecondsAfterFinished: 'Seconds after the Job finishes before it is deleted.',
    },
  },
  'io.k8s.api.batch.v1.JobStatus': {
    type: 'Observed state of a Job.',
    fields: {
      active: 'Pending or running pods.',
      completedIndexes: 'Succeeded indexes of an Indexed Job, as intervals ("1,3-5").',
      completionTime: 'When the Job completed.',
      conditions: 'Latest observations: Complete, Failed, Suspended, FailureTarget, SuccessCriteriaMet.',
      failed: 'Pods that reached phase Failed.',
      failedIndexes: 'Failed indexes of an Indexed Job (with backoffLimitPerIndex), as intervals.',
      ready: 'Active pods with a Ready condition.',
      startTime: 'When the controller started working on the Job (reset when a suspended Job resumes).',
      succeeded: 'Pods that reached phase Succeeded.',
      terminating: 'Pods being deleted (not yet Succeeded or Failed).',
      uncountedTerminatedPods: 'Finished pods counted in neither succeeded nor failed yet, whose tracking finalizer is being removed.',
    },
  },
  'io.k8s.api.authentication.v1.BoundObjectReference': {
    type: 'The object a token is bound to: the token stops working when that object is deleted.',
    fields: {
      apiVersion: 'API version of the object (v1).',
      kind: 'Kind of the object: Pod, Secret or Node.',
      name: 'Name of the object.',
      uid: 'UID of the object; when given, it must match the existing object.',
    },
  },
  'io.k8s.api.authentication.v1.SelfSubjectReview': {
    type: 'Asks the server who the requester is (kubectl auth whoami). Never stored.',
    fields: {
      status: 'Filled by the server with the requester\'s identity.',
    },
  },
  'io.k8s.api.authentication.v1.SelfSubjectReviewStatus': {
    type: 'The identity the server sees for the requester.',
    fields: {
      userInfo: 'User name, uid, groups and extra attributes of the requester.',
    },
  },
  'io.k8s.api.authentication.v1.TokenRequest': {
    type: 'Asks for a signed token of a service account (the serviceaccounts/token subresource).',
    fields: {
      spec: 'What the token is for: audiences, lifetime and the object it is bound to.',
      status: 'The issued token and when it expires.',
    },
  },
  'io.k8s.api.authentication.v1.TokenRequestSpec': {
    type: 'The parameters of a requested token.',
    fields: {
      audiences: 'Who the token is meant for; empty means the API server itself.',
      boundObjectRef: 'An object (Pod, Secret or Node) whose deletion invalidates the token.',
      expirationSeconds: 'Requested lifetime in seconds: at least 600, 3600 by default; the server may shorten it.',
    },
  },
  'io.k8s.api.authentication.v1.TokenRequestStatus': {
    type: 'The result of a token request.',
    fields: {
      expirationTimestamp: 'When the token stops being valid.',
      token: 'The signed token, to send as a bearer token.',
    },
  },
  'io.k8s.api.authentication.v1.TokenReview': {
    type: 'Asks the server whether a bearer token is valid and whose it is. Never stored.',
    fields: {
      spec: 'The token to check and the audiences it should be valid for.',
      status: 'Filled by the server: whether the token authenticated, and as whom.',
    },
  },
  'io.k8s.api.authentication.v1.TokenReviewSpec': {
    type: 'The token to review.',
    fields: {
      audiences: 'Audiences the token must be valid for; empty means the API server\'s own.',
      token: 'The bearer token.',
    },
  },
  'io.k8s.api.authentication.v1.TokenReviewStatus': {
    type: 'The outcome of a token review.',
    fields: {
      audiences: 'The requested audiences the token is valid for.',
      authenticated: 'True when the token is valid.',
      error: 'Why the token was not accepted.',
      user: 'Whose token it is, when it is valid.',
    },
  },
  'io.k8s.api.authentication.v1.UserInfo': {
    type: 'An authenticated identity.',
    fields: {
      extra: 'Further attributes the authenticator attached (bound pod, node, credential id).',
      groups: 'The groups the user belongs to.',
      uid: 'A unique value that identifies the user across time.',
      username: 'The name of the user.',
    },
  },
  'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler': {
    type: 'Scales a workload (through its scale subresource) to keep the average CPU use of its pods near a target.',
    fields: {
      spec: 'Target, replica bounds and CPU target.',
      status: 'What the autoscaler last observed and decided.',
    },
  },
  'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler': {
    type: 'Scales a workload (through its scale subresource) from metrics of its pods, within bounds and at the rates its behavior allows.',
    fields: {
      spec: 'Target, replica bounds, metrics and scaling behavior.',
      status: 'What the autoscaler last observed and decided: replicas, current metrics, conditions.',
    },
  },
  'io.k8s.api.autoscaling.v1.Scale': {
    type: 'The scale subresource of a scalable resource.',
    fields: {
      spec: 'The desired scale.',
      status: 'The observed scale. Read-only.',
    },
  },
  'io.k8s.api.autoscaling.v1.ScaleSpec': {
    type: 'Desired scale.',
    fields: {
      replicas: 'The desired number of instances.',
    },
  },
  'io.k8s.api.autoscaling.v1.ScaleStatus': {
    type: 'Observed scale.',
    fields: {
      replicas: 'The observed number of instances.',
      selector: 'The label query over the scaled pods, in string form.',
    },
  },
  'io.k8s.api.policy.v1.PodDisruptionBudget': {
    type: 'Limits how many pods of a set voluntary disruptions (evictions, drains) may take down at once.',
    fields: {
      spec: 'Which pods the budget covers and how many of them must stay available.',
      status: 'What the disruption controller last observed of the covered pods.',
    },
  },
  'io.k8s.api.policy.v1.PodDisruptionBudgetSpec': {
    type: 'The pods a budget covers and the availability it asks for.',
    fields: {
      maxUnavailable: 'At most this many of the expected pods (a number, or a percentage of the controllers\' scale) may be unavailable after an eviction. Exclusive with minAvailable.',
      minAvailable: 'At least this many pods (a number, or a percentage of the controllers\' scale) must stay available after an eviction. Exclusive with maxUnavailable.',
      selector: 'The pods the budget covers; an empty selector covers every pod of the namespace.',
      unhealthyPodEvictionPolicy: 'When a pod that is not Ready may be evicted: IfHealthyBudget (default; only while the budget has enough healthy pods) or AlwaysAllow.',
    },
  },
  'io.k8s.api.policy.v1.PodDisruptionBudgetStatus': {
    type: 'How many of the covered pods are healthy and how many may be disrupted now.',
    fields: {
      conditions: 'DisruptionAllowed: True (SufficientPods) while an eviction may proceed, False (InsufficientPods or SyncFailed) otherwise.',
      currentHealthy: 'Covered pods that are Ready and not being disrupted.',
      desiredHealthy: 'The fewest healthy pods the budget accepts.',
      disruptedPods: 'Pods the eviction API let go that are not deleted yet, with when; an entry is dropped after two minutes.',
      disruptionsAllowed: 'How many more pods may be evicted now.',
      expectedPods: 'How many pods the budget counts on.',
      observedGeneration: 'The spec generation this status was computed from; evictions wait until it is current.',
    },
  },
  'io.k8s.api.policy.v1.Eviction': {
    type: 'A request to evict a pod, honouring its PodDisruptionBudget: POST it to pods/<name>/eviction.',
    fields: {
      deleteOptions: 'How the pod is deleted once its budget allows.',
    },
  },
  'io.k8s.api.batch.v1.CronJob': {
    type: 'Runs a Job on a schedule, written in cron syntax.',
    fields: {
      spec: 'The schedule and the Job to run.',
      status: 'The Jobs running now and when the last one was started.',
    },
  },
  'io.k8s.api.batch.v1.CronJobSpec': {
    type: 'When and how a CronJob runs its Jobs.',
    fields: {
      concurrencyPolicy: 'What to do when a run is due while an earlier one still runs: Allow (run both, the default), Forbid (skip the new one) or Replace (delete the running one first).',
      failedJobsHistoryLimit: 'How many failed Jobs to keep (default 1).',
      jobTemplate: 'The Job created at each scheduled time.',
      schedule: 'When to run, in cron syntax: five fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly, @yearly, @every <duration>.',
      startingDeadlineSeconds: 'A run that could not start within this many seconds of its scheduled time is skipped and counted as missed.',
      successfulJobsHistoryLimit: 'How many successful Jobs to keep (default 3).',
      suspend: 'When true, no new run starts; running Jobs are left alone (default false).',
      timeZone: 'The IANA time zone the schedule is read in (e.g. Europe/Paris); absent: the controller manager\'s zone (UTC in kplane).',
    },
  },
  'io.k8s.api.batch.v1.CronJobStatus': {
    type: 'What a CronJob has run.',
    fields: {
      active: 'References to the Jobs running now.',
      lastScheduleTime: 'The scheduled time of the last Job started.',
      lastSuccessfulTime: 'When the last successful Job completed.',
    },
  },
  'io.k8s.api.batch.v1.JobTemplateSpec': {
    type: 'The Job a CronJob creates: its metadata and spec.',
    fields: {
      metadata: 'Labels and annotations copied to each Job.',
      spec: 'The spec of each Job.',
    },
  },
  'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy': {
    type: 'A set of CEL validations that accept or refuse requests without changing them; a binding puts it in force.',
    fields: {
      spec: 'What the policy matches, its variables and validations, and what happens when an expression fails.',
      status: 'The result of type checking the expressions.',
    },
  },
  'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec': {
    type: 'What a ValidatingAdmissionPolicy checks.',
    fields: {
      auditAnnotations: 'Expressions whose values are recorded in the audit log.',
      failurePolicy: 'Fail (the default) refuses a request when an expression errors; Ignore admits it.',
      matchConditions: 'Expressions a request must all satisfy for the policy to apply.',
      matchConstraints: 'The resources and operations the policy applies to.',
      paramKind: 'The kind of the objects bindings give the policy as `params`.',
      validations: 'Expressions that must be true for the request to be admitted.',
      variables: 'Named expressions the other expressions read as `variables.<name>`.',
    },
  },
  'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding': {
    type: 'Puts a ValidatingAdmissionPolicy in force for some resources, with its params and the actions taken on a failure.',
    fields: {
      spec: 'The policy, its params, the resources and the actions.',
    },
  },
  'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBindingSpec': {
    type: 'What a ValidatingAdmissionPolicyBinding binds.',
    fields: {
      matchResources: 'Narrows the resources the policy applies to through this binding.',
      paramRef: 'The object (or objects, by selector) given to the policy as `params`.',
      policyName: 'The name of the bound policy.',
      validationActions: 'What a failure does: Deny refuses the request, Warn returns a warning, Audit records it.',
    },
  },
  'io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicy': {
    type: 'A set of CEL mutations that change objects as they are admitted; a binding puts it in force.',
    fields: {
      spec: 'What the policy matches, its variables and mutations, and what happens when an expression fails.',
    },
  },
  'io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicySpec': {
    type: 'What a MutatingAdmissionPolicy changes.',
    fields: {
      failurePolicy: 'Fail (the default) refuses a request when an expression errors; Ignore admits it unchanged by the policy.',
      matchConditions: 'Expressions a request must all satisfy for the policy to apply.',
      matchConstraints: 'The resources and operations (CREATE, UPDATE, CONNECT) the policy applies to.',
      mutations: 'The changes, made in order, each seeing the object the previous one produced.',
      paramKind: 'The kind of the objects bindings give the policy as `params`.',
      reinvocationPolicy: 'IfNeeded runs the policy again when a later mutation changed the object; Never (the default) runs it once.',
      variables: 'Named expressions the other expressions read as `variables.<name>`.',
    },
  },
  'io.k8s.api.admissionregistration.v1alpha1.Mutation': {
    type: 'One change of a MutatingAdmissionPolicy.',
    fields: {
      applyConfiguration: 'An expression building the fields to set, merged into the object as server-side apply merges.',
      jsonPatch: 'An expression returning JSON patch operations to apply to the object.',
      patchType: 'ApplyConfiguration or JSONPatch: which of the two expressions is used.',
    },
  },
  'io.k8s.api.admissionregistration.v1alpha1.ApplyConfiguration': {
    type: 'A CEL expression returning an apply configuration, written as `Object{spec: Object.spec{...}}`.',
    fields: { expression: 'The expression.' },
  },
  'io.k8s.api.admissionregistration.v1alpha1.JSONPatch': {
    type: 'A CEL expression returning a list of `JSONPatch{op, path, value}` operations.',
    fields: { expression: 'The expression.' },
  },
  'io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicyBinding': {
    type: 'Puts a MutatingAdmissionPolicy in force for some resources, with its params.',
    fields: {
      spec: 'The policy, its params and the resources.',
    },
  },
  'io.k8s.api.admissionregistration.v1alpha1.MutatingAdmissionPolicyBindingSpec': {
    type: 'What a MutatingAdmissionPolicyBinding binds.',
    fields: {
      matchResources: 'Narrows the resources the policy applies to through this binding.',
      paramRef: 'The object (or objects, by selector) given to the policy as `params`.',
      policyName: 'The name of the bound policy.',
    },
  },
  'io.k8s.api.certificates.v1.CertificateSigningRequest': {
    type: 'A request for an X.509 certificate from a signer, approved or denied by an authorised user and then issued by the signer.',
    fields: {
      spec: 'The certificate request and the identity of who made it. Immutable.',
      status: 'Approval conditions and, once issued, the certificate.',
    },
  },
  'io.k8s.api.certificates.v1.CertificateSigningRequestCondition': {
    type: 'A condition of a certificate signing request.',
    fields: {
      lastTransitionTime: 'When the condition last changed status.',
      lastUpdateTime: 'When the condition was last written.',
      message: 'A human-readable explanation.',
      reason: 'A short machine-readable reason.',
      status: 'True, False or Unknown; Approved, Denied and Failed are only True.',
      type: 'Approved, Denied, Failed, or another type.',
    },
  },
  'io.k8s.api.certificates.v1.CertificateSigningRequestSpec': {
    type: 'The certificate request, the signer asked for, and who asked.',
    fields: {
      expirationSeconds: 'The requested validity of the certificate, in seconds (at least 600); the signer may give less.',
      extra: 'Extra attributes of the requesting user. Set by the API server.',
      groups: 'Groups of the requesting user. Set by the API server.',
      request: 'A PEM "CERTIFICATE REQUEST" block (PKCS#10), base64 in JSON.',
      signerName: 'The signer asked to sign, a qualified name such as kubernetes.io/kube-apiserver-client.',
      uid: 'The uid of the requesting user. Set by the API server.',
      usages: 'The key usages and extended key usages asked for, e.g. "client auth".',
      username: 'The name of the requesting user. Set by the API server.',
    },
  },
  'io.k8s.api.certificates.v1.CertificateSigningRequestStatus': {
    type: 'What became of a certificate signing request.',
    fields: {
      certificate: 'The issued certificate as PEM "CERTIFICATE" blocks, set by the signer once approved.',
      conditions: 'Approved, Denied and Failed conditions.',
    },
  },
  'io.k8s.api.coordination.v1.Lease': {
    type: 'A lease: a lock with a holder and a duration, used for leader election and node heartbeats.',
    fields: {
      spec: 'Specification of the lease.',
    },
  },
  'io.k8s.api.coordination.v1.LeaseSpec': {
    type: 'Specification of a lease.',
    fields: {
      acquireTime: 'When the current holder acquired the lease.',
      holderIdentity: 'Identity of the current holder.',
      leaseDurationSeconds: 'Seconds candidates wait, since the last renewTime, before they may take the lease.',
      leaseTransitions: 'How many times the lease changed holders.',
      preferredHolder: 'The holder the lease should go to, with strategy set.',
      renewTime: 'When the holder last renewed the lease.',
      strategy: 'The strategy for picking the leader in coordinated elections.',
    },
  },
  'io.k8s.api.core.v1.AWSElasticBlockStoreVolumeSource': {
    type: 'Deprecated in-tree AWS EBS volume.',
  },
  'io.k8s.api.core.v1.Affinity': {
    type: 'Scheduling constraints.',
    fields: {
      nodeAffinity: 'Node affinity scheduling rules.',
      podAffinity: 'Rules to co-locate the pod with other pods.',
      podAntiAffinity: 'Rules to keep the pod away from other pods.',
    },
  },
  'io.k8s.api.core.v1.AppArmorProfile': {
    type: 'An AppArmor profile.',
    fields: {
      localhostProfile: 'Name of a profile loaded on the node (type Localhost only).',
      type: 'RuntimeDefault, Unconfined or Localhost.',
    },
  },
  'io.k8s.api.core.v1.AttachedVolume': {
    type: 'A volume attached to the node.',
    fields: {
      devicePath: 'Where the volume is available on the node.',
      name: 'Name of the volume.',
    },
  },
  'io.k8s.api.core.v1.AzureDiskVolumeSource': {
    type: 'Deprecated in-tree Azure data disk.',
  },
  'io.k8s.api.core.v1.AzureFileVolumeSource': {
    type: 'Deprecated in-tree Azure File share.',
  },
  'io.k8s.api.core.v1.Binding': {
    type: 'Ties one object to another, e.g. a pod to the node it is scheduled on.',
    fields: {
      metadata: 'Standard object metadata.',
      target: 'The object to bind to.',
    },
  },
  'io.k8s.api.core.v1.CSIVolumeSource': {
    type: 'A volume of a CSI driver, living as long as the pod.',
  },
  'io.k8s.api.core.v1.Capabilities': {
    type: 'POSIX capabilities to add to and drop from a container.',
    fields: {
      add: 'Capabilities to add.',
      drop: 'Capabilities to drop.',
    },
  },
  'io.k8s.api.core.v1.CephFSVolumeSource': {
    type: 'A CephFS mount.',
  },
  'io.k8s.api.core.v1.CinderVolumeSource': {
    type: 'Deprecated in-tree Cinder volume.',
  },
  'io.k8s.api.core.v1.ClientIPConfig': {
    type: 'Settings of ClientIP session affinity.',
    fields: {
      timeoutSeconds: 'Seconds a client keeps going to the same endpoint (1-86400; 10800 by default).',
    },
  },
  'io.k8s.api.core.v1.ClusterTrustBundleProjection': {
    type: 'Certificates of ClusterTrustBundles as one file.',
    fields: {
      labelSelector: 'Selects bundles by label.',
      name: 'Name of one bundle.',
      optional: 'Whether the bundles may be missing.',
      path: 'Relative path of the file.',
      signerName: 'Selects bundles by signer.',
    },
  },
  'io.k8s.api.core.v1.ConfigMap': {
    type: 'Non-confidential configuration data, as key/value pairs, for pods to consume.',
    fields: {
      binaryData: 'Binary values, base64-encoded. Keys must not also appear in data.',
      data: 'Configuration values. Keys consist of alphanumerics, "-", "_" or ".".',
      immutable: 'When true, data and binaryData cannot be changed (only metadata).',
    },
  },
  'io.k8s.api.core.v1.ConfigMapEnvSource': {
    type: 'A ConfigMap whose keys become environment variables.',
    fields: {
      name: 'Name of the ConfigMap.',
      optional: 'Whether the ConfigMap may be missing.',
    },
  },
  'io.k8s.api.core.v1.ConfigMapKeySelector': {
    type: 'Selects a key of a ConfigMap.',
    fields: {
      key: 'The key to select.',
      name: 'Name of the ConfigMap.',
      optional: 'Whether the ConfigMap or its key may be missing.',
    },
  },
  'io.k8s.api.core.v1.ConfigMapNodeConfigSource': {
    type: 'Deprecated: a ConfigMap holding kubelet configuration.',
  },
  'io.k8s.api.core.v1.ConfigMapProjection': {
    type: 'Keys of a ConfigMap projected as files.',
    fields: {
      items: 'Keys to project, and their paths; all keys when empty.',
      name: 'Name of the ConfigMap.',
      optional: 'Whether the ConfigMap may be missing.',
    },
  },
  'io.k8s.api.core.v1.ConfigMapVolumeSource': {
    type: 'Projects a ConfigMap\'s keys as files.',
    fields: {
      defaultMode: 'File mode bits of the created files. Defaults to 0644.',
      items: 'Keys to project, and their paths; all keys when empty.',
      name: 'Name of the ConfigMap.',
      optional: 'Whether the ConfigMap may be missing.',
    },
  },
  'io.k8s.api.core.v1.Container': {
    type: 'A single application container run within a pod.',
    fields: {
      args: 'Arguments to the entrypoint; the image\'s CMD is used when empty. $(VAR) references are expanded from the environment.',
      command: 'The entrypoint array, run without a shell; the image\'s ENTRYPOINT is used when empty.',
      env: 'Environment variables to set in the container.',
      envFrom: 'Sources (ConfigMaps, Secrets) to populate environment variables from. Explicit env wins on duplicates.',
      image: 'Container image name, e.g. "nginx:1.27".',
      imagePullPolicy: 'When to pull the image: Always, Never or IfNotPresent. Defaults to Always for :latest (or no tag), else IfNotPresent.',
      lifecycle: 'Actions the system runs after the container starts and before it stops.',
      livenessProbe: 'Periodic probe of liveness; the container is restarted when it fails.',
      name: 'Name of the container, a DNS label unique within the pod. Cannot be updated.',
      ports: 'Ports to expose from the container. Informational; any port the process listens on is reachable.',
      readinessProbe: 'Periodic probe of readiness; the pod is removed from service endpoints while it fails.',
      resizePolicy: 'How the container is resized in place.',
      resources: 'Compute resources (CPU, memory) the container requests and is limited to.',
      restartPolicy: 'Per-container restart policy; only "Always" for init containers (sidecars).',
      securityContext: 'Security options for the container, overriding the pod\'s.',
      startupProbe: 'Probe that must succeed before the other probes start.',
      stdin: 'Allocate a buffer for stdin in the container runtime.',
      stdinOnce: 'Close stdin after the first attach session ends.',
      terminationMessagePath: 'File whose contents become the termination message. Defaults to /dev/termination-log.',
      terminationMessagePolicy: 'How the termination message is filled: File, or FallbackToLogsOnError.',
      tty: 'Allocate a TTY (needs stdin).',
      volumeDevices: 'Block devices to expose to the container.',
      volumeMounts: 'Pod volumes to mount into the container\'s filesystem.',
      workingDir: 'Working directory; the image\'s default when empty.',
    },
  },
  'io.k8s.api.core.v1.ContainerImage': {
    type: 'A container image: names and sizeBytes.',
  },
  'io.k8s.api.core.v1.ContainerPort': {
    type: 'A network port of a container.',
    fields: {
      containerPort: 'Port number on the pod\'s IP address (1-65535).',
      hostIP: 'Host IP to bind the external port to.',
      hostPort: 'Port number on the host (1-65535). Most containers do not need it.',
      name: 'An IANA_SVC_NAME, unique within the pod; services refer to it by name.',
      protocol: 'TCP, UDP or SCTP. Defaults to TCP.',
    },
  },
  'io.k8s.api.core.v1.ContainerResizePolicy': {
    type: 'How a resource is resized in place.',
    fields: {
      resourceName: 'cpu or memory.',
      restartPolicy: 'NotRequired or RestartContainer.',
    },
  },
  'io.k8s.api.core.v1.ContainerState': {
    type: 'State of a container: exactly one of waiting (reason, message), running (startedAt) or terminated (exitCode, reason, startedAt, finishedAt...).',
  },
  'io.k8s.api.core.v1.ContainerStateRunning': {
    type: 'A running container.',
    fields: {
      startedAt: 'When the container last started.',
    },
  },
  'io.k8s.api.core.v1.ContainerStateTerminated': {
    type: 'A container that ran and exited.',
    fields: {
      containerID: 'Runtime id of the container: <type>://<id>.',
      exitCode: 'Exit code of the container.',
      finishedAt: 'When the container exited.',
      message: 'Details of the termination.',
      reason: 'CamelCase reason, e.g. Completed or OOMKilled.',
      signal: 'Signal that ended the container, if any.',
      startedAt: 'When the container started.',
    },
  },
  'io.k8s.api.core.v1.ContainerStateWaiting': {
    type: 'A container not running yet.',
    fields: {
      message: 'Why the container is not running yet.',
      reason: 'CamelCase reason, e.g. ContainerCreating or CrashLoopBackOff.',
    },
  },
  'io.k8s.api.core.v1.ContainerStatus': {
    type: 'The observed state of one container.',
    fields: {
      containerID: 'Runtime id of the container: <type>://<id>.',
      image: 'The image the container runs.',
      imageID: 'Id of the image.',
      lastState: 'The previous termination, if any.',
      name: 'Container name.',
      ready: 'Whether the container passes its readiness probe.',
      restartCount: 'How many times the container restarted.',
      started: 'Whether the container passed its startup probe.',
      state: 'Current state: waiting, running or terminated.',
    },
  },
  'io.k8s.api.core.v1.ContainerUser': {
    type: 'The identity a container\'s first process runs with.',
    fields: {
      linux: 'The Linux identity.',
    },
  },
  'io.k8s.api.core.v1.DaemonEndpoint': {
    type: 'A port of a daemon.',
    fields: {
      Port: 'The port number.',
    },
  },
  'io.k8s.api.core.v1.DownwardAPIProjection': {
    type: 'Fields of the pod projected as files.',
    fields: {
      items: 'The files.',
    },
  },
  'io.k8s.api.core.v1.DownwardAPIVolumeFile': {
    type: 'A file holding a field of the pod or a resource of a container.',
    fields: {
      fieldRef: 'The pod field.',
      mode: 'File mode bits.',
      path: 'Relative path of the file.',
      resourceFieldRef: 'The container resource.',
    },
  },
  'io.k8s.api.core.v1.DownwardAPIVolumeSource': {
    type: 'Fields of the pod as files.',
    fields: {
      defaultMode: 'File mode bits of the created files. Defaults to 0644.',
      items: 'The files.',
    },
  },
  'io.k8s.api.core.v1.EmptyDirVolumeSource': {
    type: 'An empty directory.',
    fields: {
      medium: 'Storage medium: "" (node default) or Memory.',
      sizeLimit: 'Maximum size of the directory.',
    },
  },
  'io.k8s.api.core.v1.EndpointAddress': {
    type: 'One endpoint address.',
    fields: {
      hostname: 'Hostname of the endpoint.',
      ip: 'IP of the endpoint.',
      nodeName: 'Node hosting the endpoint.',
      targetRef: 'The object providing the endpoint, usually a pod.',
    },
  },
  'io.k8s.api.core.v1.EndpointPort': {
    type: 'A port of an endpoint.',
    fields: {
      appProtocol: 'Application protocol.',
      name: 'Name of the port, matching the service port name.',
      port: 'Port number.',
      protocol: 'TCP, UDP or SCTP.',
    },
  },
  'io.k8s.api.core.v1.EndpointSubset': {
    type: 'A group of addresses sharing a set of ports.',
    fields: {
      addresses: 'Ready addresses.',
      notReadyAddresses: 'Addresses not ready yet.',
      ports: 'Ports available on every address.',
    },
  },
  'io.k8s.api.core.v1.Endpoints': {
    type: 'The addresses implementing a service, grouped in subsets.',
    fields: {
      subsets: 'Sets of addresses and the ports they share.',
    },
  },
  'io.k8s.api.core.v1.EnvFromSource': {
    type: 'A set of environment variables from a ConfigMap or Secret.',
    fields: {
      configMapRef: 'The ConfigMap to take variables from.',
      prefix: 'A prefix added to every key; must be a C identifier.',
      secretRef: 'The Secret to take variables from.',
    },
  },
  'io.k8s.api.core.v1.EnvVar': {
    type: 'An environment variable.',
    fields: {
      name: 'Name of the variable.',
      value: 'Value, with $(VAR) references expanded. Defaults to "".',
      valueFrom: 'Source of the value; cannot be used with value.',
    },
  },
  'io.k8s.api.core.v1.EnvVarSource': {
    type: 'Where an environment variable\'s value comes from.',
    fields: {
      configMapKeyRef: 'A key of a ConfigMap.',
      fieldRef: 'A field of the pod: metadata.name, metadata.namespace, metadata.labels[\'<KEY>\'], spec.nodeName, status.podIP...',
      resourceFieldRef: 'A resource of a container: limits.cpu, requests.memory...',
      secretKeyRef: 'A key of a Secret in the pod\'s namespace.',
    },
  },
  'io.k8s.api.core.v1.EphemeralContainer': {
    type: 'A temporary container added to a running pod for debugging.',
    fields: {
      args: 'Arguments to the entrypoint; the image\'s CMD is used when empty. $(VAR) references are expanded from the environment.',
      command: 'The entrypoint array, run without a shell; the image\'s ENTRYPOINT is used when empty.',
      env: 'Environment variables to set in the container.',
      envFrom: 'Sources (ConfigMaps, Secrets) to populate environment variables from. Explicit env wins on duplicates.',
      image: 'Container image name, e.g. "nginx:1.27".',
      imagePullPolicy: 'When to pull the image: Always, Never or IfNotPresent. Defaults to Always for :latest (or no tag), else IfNotPresent.',
      lifecycle: 'Actions the system runs after the container starts and before it stops.',
      livenessProbe: 'Periodic probe of liveness; the container is restarted when it fails.',
      name: 'Name of the container, a DNS label unique within the pod. Cannot be updated.',
      ports: 'Ports to expose from the container. Informational; any port the process listens on is reachable.',
      readinessProbe: 'Periodic probe of readiness; the pod is removed from service endpoints while it fails.',
      resizePolicy: 'How the container is resized in place.',
      resources: 'Compute resources (CPU, memory) the container requests and is limited to.',
      restartPolicy: 'Per-container restart policy; only "Always" for init containers (sidecars).',
      securityContext: 'Security options for the container, overriding the pod\'s.',
      startupProbe: 'Probe that must succeed before the other probes start.',
      stdin: 'Allocate a buffer for stdin in the container runtime.',
      stdinOnce: 'Close stdin after the first attach session ends.',
      targetContainerName: 'Name of a container whose namespaces this one shares.',
      terminationMessagePath: 'File whose contents become the termination message. Defaults to /dev/termination-log.',
      terminationMessagePolicy: 'How the termination message is filled: File, or FallbackToLogsOnError.',
      tty: 'Allocate a TTY (needs stdin).',
      volumeDevices: 'Block devices to expose to the container.',
      volumeMounts: 'Pod volumes to mount into the container\'s filesystem.',
      workingDir: 'Working directory; the image\'s default when empty.',
    },
  },
  'io.k8s.api.core.v1.EphemeralVolumeSource': {
    type: 'A volume backed by a claim created with the pod and deleted with it.',
    fields: {
      volumeClaimTemplate: 'The claim to create, named <pod>-<volume>.',
    },
  },
  'io.k8s.api.core.v1.Event': {
    type: 'A report of something that happened in the cluster.',
    fields: {
      action: 'What action was taken or failed.',
      count: 'How many times the event occurred.',
      eventTime: 'When the event was first observed.',
      firstTimestamp: 'When the event was first recorded.',
      involvedObject: 'The object the event is about.',
      lastTimestamp: 'When the most recent occurrence was recorded.',
      message: 'Human-readable description of the event.',
      reason: 'Short, machine-understandable reason, e.g. Scheduled.',
      related: 'A secondary object involved.',
      reportingComponent: 'Controller that emitted the event, e.g. kubernetes.io/kubelet.',
      reportingInstance: 'Id of the controller instance.',
      series: 'Data about the series this event represents.',
      source: 'The component reporting the event.',
      type: 'Normal or Warning.',
    },
  },
  'io.k8s.api.core.v1.EventSeries': {
    type: 'Information on a series of repeated events.',
    fields: {
      count: 'Number of occurrences so far.',
      lastObservedTime: 'Time of the last occurrence.',
    },
  },
  'io.k8s.api.core.v1.EventSource': {
    type: 'The component that reported an event.',
    fields: {
      component: 'Component that generated the event.',
      host: 'Node name on which the event was generated.',
    },
  },
  'io.k8s.api.core.v1.ExecAction': {
    type: 'Runs a command in the container; exit status 0 is success.',
    fields: {
      command: 'The command line, run without a shell.',
    },
  },
  'io.k8s.api.core.v1.FCVolumeSource': {
    type: 'A Fibre Channel volume.',
  },
  'io.k8s.api.core.v1.FlexVolumeSource': {
    type: 'Deprecated FlexVolume driver volume.',
  },
  'io.k8s.api.core.v1.FlockerVolumeSource': {
    type: 'Deprecated Flocker volume.',
  },
  'io.k8s.api.core.v1.GCEPersistentDiskVolumeSource': {
    type: 'Deprecated in-tree GCE persistent disk.',
  },
  'io.k8s.api.core.v1.GRPCAction': {
    type: 'Calls the gRPC health checking protocol.',
    fields: {
      port: 'Port of the gRPC service.',
      service: 'Service name sent in the HealthCheckRequest.',
    },
  },
  'io.k8s.api.core.v1.GitRepoVolumeSource': {
    type: 'Deprecated: a git repository cloned into the volume.',
  },
  'io.k8s.api.core.v1.GlusterfsVolumeSource': {
    type: 'Deprecated Glusterfs mount.',
  },
  'io.k8s.api.core.v1.HTTPGetAction': {
    type: 'An HTTP GET; a status in 200-399 is success.',
    fields: {
      host: 'Host to connect to; the pod IP by default.',
      httpHeaders: 'Extra request headers.',
      path: 'Path to request.',
      port: 'Port number or name on the container.',
      scheme: 'HTTP or HTTPS. Defaults to HTTP.',
    },
  },
  'io.k8s.api.core.v1.HTTPHeader': {
    type: 'An HTTP header.',
    fields: {
      name: 'Header name.',
      value: 'Header value.',
    },
  },
  'io.k8s.api.core.v1.HostAlias': {
    type: 'An /etc/hosts entry.',
    fields: {
      hostnames: 'Hostnames for the IP.',
      ip: 'IP address.',
    },
  },
  'io.k8s.api.core.v1.HostIP': {
    type: 'An IP address of the pod\'s node.',
    fields: {
      ip: 'The IP address.',
    },
  },
  'io.k8s.api.core.v1.HostPathVolumeSource': {
    type: 'A path on the host.',
    fields: {
      path: 'Path on the host.',
      type: 'Kind of path expected, e.g. Directory, DirectoryOrCreate, File.',
    },
  },
  'io.k8s.api.core.v1.ISCSIVolumeSource': {
    type: 'An iSCSI disk.',
  },
  'io.k8s.api.core.v1.ImageVolumeSource': {
    type: 'An OCI image or artifact, mounted read-only.',
    fields: {
      pullPolicy: 'Always, Never or IfNotPresent.',
      reference: 'The image reference.',
    },
  },
  'io.k8s.api.core.v1.KeyToPath': {
    type: 'Maps a key to a file path.',
    fields: {
      key: 'The key.',
      mode: 'File mode bits.',
      path: 'Relative path of the file.',
    },
  },
  'io.k8s.api.core.v1.Lifecycle': {
    type: 'Actions run in response to container lifecycle events.',
    fields: {
      postStart: 'Runs right after the container is created; the container is restarted if it fails.',
      preStop: 'Runs before the container is terminated; counts against the termination grace period.',
    },
  },
  'io.k8s.api.core.v1.LifecycleHandler': {
    type: 'One lifecycle action: exactly one of exec, httpGet, tcpSocket or sleep.',
    fields: {
      exec: 'Run a command inside the container.',
      httpGet: 'Perform an HTTP GET.',
      sleep: 'Sleep for a while.',
      tcpSocket: 'Open a TCP connection.',
    },
  },
  'io.k8s.api.core.v1.LinuxContainerUser': {
    type: 'A Linux identity.',
    fields: {
      gid: 'Primary group id.',
      supplementalGroups: 'Supplemental group ids.',
      uid: 'User id.',
    },
  },
  'io.k8s.api.core.v1.LoadBalancerIngress': {
    type: 'An ingress point of a load balancer.',
    fields: {
      hostname: 'DNS name of the ingress point.',
      ip: 'IP of the ingress point.',
      ipMode: 'How traffic reaches the IP: VIP or Proxy.',
      ports: 'Status of the load balancer ports.',
    },
  },
  'io.k8s.api.core.v1.LoadBalancerStatus': {
    type: 'Status of a load balancer.',
    fields: {
      ingress: 'Ingress points of the load balancer.',
    },
  },
  'io.k8s.api.core.v1.LocalObjectReference': {
    type: 'References an object by name in the same namespace.',
    fields: {
      name: 'Name of the referent.',
    },
  },
  'io.k8s.api.core.v1.NFSVolumeSource': {
    type: 'An NFS export.',
    fields: {
      path: 'Path of the export.',
      readOnly: 'Mount read-only.',
      server: 'Host name or IP of the server.',
    },
  },
  'io.k8s.api.core.v1.Namespace': {
    type: 'A namespace: a scope for names and a unit of isolation and policy.',
    fields: {
      spec: 'Desired state of the namespace.',
      status: 'Observed state of the namespace. Read-only.',
    },
  },
  'io.k8s.api.core.v1.NamespaceCondition': {
    type: 'One condition of a namespace.',
    fields: {
      lastTransitionTime: 'Last time the condition changed.',
      message: 'Human-readable details.',
      reason: 'CamelCase reason.',
      status: 'True, False or Unknown.',
      type: 'Condition type.',
    },
  },
  'io.k8s.api.core.v1.NamespaceSpec': {
    type: 'Desired state of a namespace.',
    fields: {
      finalizers: 'Finalizers that must be empty before the namespace is removed from storage.',
    },
  },
  'io.k8s.api.core.v1.NamespaceStatus': {
    type: 'Observed state of a namespace.',
    fields: {
      conditions: 'Latest observations of the namespace\'s state.',
      phase: 'Active or Terminating.',
    },
  },
  'io.k8s.api.core.v1.Node': {
    type: 'A worker node of the cluster.',
    fields: {
      spec: 'Desired behavior of the node.',
      status: 'Most recently observed status of the node.',
    },
  },
  'io.k8s.api.core.v1.NodeAddress': {
    type: 'An address of a node.',
    fields: {
      address: 'The address.',
      type: 'Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.',
    },
  },
  'io.k8s.api.core.v1.NodeAffinity': {
    type: 'Node affinity rules of a pod.',
    fields: {
      preferredDuringSchedulingIgnoredDuringExecution: 'Weighted node preferences the scheduler tries to honour.',
      requiredDuringSchedulingIgnoredDuringExecution: 'Nodes the pod may be scheduled on; not checked again once it runs.',
    },
  },
  'io.k8s.api.core.v1.NodeCondition': {
    type: 'One condition of a node.',
    fields: {
      lastHeartbeatTime: 'Last time the condition was reported.',
      lastTransitionTime: 'Last time the condition changed status.',
      message: 'Human-readable details.',
      reason: 'CamelCase reason.',
      status: 'True, False or Unknown.',
      type: 'Condition type.',
    },
  },
  'io.k8s.api.core.v1.NodeConfigSource': {
    type: 'Deprecated dynamic kubelet configuration source.',
  },
  'io.k8s.api.core.v1.NodeConfigStatus': {
    type: 'Deprecated status of dynamic kubelet configuration.',
  },
  'io.k8s.api.core.v1.NodeDaemonEndpoints': {
    type: 'Ports of the daemons running on a node.',
    fields: {
      kubeletEndpoint: 'Port of the kubelet.',
    },
  },
  'io.k8s.api.core.v1.NodeFeatures': {
    type: 'Features the node supports.',
  },
  'io.k8s.api.core.v1.NodeRuntimeHandler': {
    type: 'A container runtime handler of the node.',
    fields: {
      features: 'Its features.',
      name: 'Its name; empty for the default one.',
    },
  },
  'io.k8s.api.core.v1.NodeRuntimeHandlerFeatures': {
    type: 'Features of a runtime handler.',
  },
  'io.k8s.api.core.v1.NodeSelector': {
    type: 'Node selector terms, ORed: a node matches when any term does.',
    fields: {
      nodeSelectorTerms: 'The terms.',
    },
  },
  'io.k8s.api.core.v1.NodeSelectorRequirement': {
    type: 'A requirement on one node label or field.',
    fields: {
      key: 'The label or field key.',
      operator: 'In, NotIn, Exists, DoesNotExist, Gt or Lt.',
      values: 'Values for In and NotIn, one integer for Gt and Lt, none for Exists and DoesNotExist.',
    },
  },
  'io.k8s.api.core.v1.NodeSelectorTerm': {
    type: 'Node requirements, ANDed. An empty term matches no node.',
    fields: {
      matchExpressions: 'Requirements on node labels.',
      matchFields: 'Requirements on node fields (metadata.name).',
    },
  },
  'io.k8s.api.core.v1.NodeSpec': {
    type: 'Desired state of a node.',
    fields: {
      configSource: 'Deprecated dynamic kubelet configuration source.',
      externalID: 'Deprecated.',
      podCIDR: 'The pod IP range assigned to the node.',
      podCIDRs: 'Pod IP ranges of the node, one per family.',
      providerID: 'Id of the node assigned by the cloud provider.',
      taints: 'Taints repelling pods that do not tolerate them.',
      unschedulable: 'Makes the node unschedulable for new pods (kubectl cordon).',
    },
  },
  'io.k8s.api.core.v1.NodeStatus': {
    type: 'Observed state of a node.',
    fields: {
      addresses: 'Addresses of the node: InternalIP, ExternalIP, Hostname.',
      allocatable: 'Resources available to pods. Defaults to capacity.',
      capacity: 'Total resources of the node.',
      conditions: 'Current conditions: Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable.',
      daemonEndpoints: 'Ports of the daemons on the node (kubeletEndpoint.Port).',
      images: 'Images present on the node.',
      nodeInfo: 'General information about the node.',
      phase: 'Deprecated.',
    },
  },
  'io.k8s.api.core.v1.NodeSystemInfo': {
    type: 'Identifiers and versions of a node.',
    fields: {
      architecture: 'Architecture.',
      bootID: 'Boot id.',
      containerRuntimeVersion: 'Container runtime version, e.g. containerd://1.7.',
      kernelVersion: 'Kernel version.',
      kubeProxyVersion: 'Deprecated.',
      kubeletVersion: 'Kubelet version.',
      machineID: 'Machine id.',
      operatingSystem: 'Operating system.',
      osImage: 'OS image, e.g. Debian GNU/Linux 12.',
      systemUUID: 'System UUID.',
    },
  },
  'io.k8s.api.core.v1.ObjectFieldSelector': {
    type: 'Selects a field of the pod.',
    fields: {
      apiVersion: 'Version of the schema the path is written in. Defaults to "v1".',
      fieldPath: 'Path of the field to select.',
    },
  },
  'io.k8s.api.core.v1.ObjectReference': {
    type: 'A reference to an object, with enough information to find it.',
    fields: {
      apiVersion: 'API version of the referent.',
      fieldPath: 'A field within the referent, e.g. spec.containers{name}.',
      kind: 'Kind of the referent.',
      name: 'Name of the referent.',
      namespace: 'Namespace of the referent.',
      resourceVersion: 'Resource version of the referent.',
      uid: 'UID of the referent.',
    },
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimSpec': {
    type: 'The storage a claim asks for.',
    fields: {
      accessModes: 'Access modes the volume must have.',
      dataSource: 'An object to populate the volume from.',
      dataSourceRef: 'An object to populate the volume from, possibly in another namespace.',
      resources: 'The storage requested.',
      selector: 'Selects volumes by label.',
      storageClassName: 'Name of the StorageClass.',
      volumeAttributesClassName: 'Name of the VolumeAttributesClass.',
      volumeMode: 'Filesystem (default) or Block.',
      volumeName: 'Name of the PersistentVolume to bind.',
    },
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimTemplate': {
    type: 'A claim created for a pod\'s ephemeral volume.',
    fields: {
      metadata: 'Labels and annotations of the claim.',
      spec: 'Specification of the claim.',
    },
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource': {
    type: 'References a PersistentVolumeClaim.',
    fields: {
      claimName: 'Name of the claim.',
      readOnly: 'Mount read-only.',
    },
  },
  'io.k8s.api.core.v1.PhotonPersistentDiskVolumeSource': {
    type: 'Deprecated Photon Controller disk.',
  },
  'io.k8s.api.core.v1.Pod': {
    type: 'A pod: a group of containers scheduled together on one node, sharing network and storage.',
    fields: {
      spec: 'The desired behavior of the pod.',
      status: 'The observed state of the pod. Read-only.',
    },
  },
  'io.k8s.api.core.v1.PodAffinity': {
    type: 'Rules to schedule a pod in the same topology domain as other pods.',
    fields: {
      preferredDuringSchedulingIgnoredDuringExecution: 'Weighted terms the scheduler tries to honour.',
      requiredDuringSchedulingIgnoredDuringExecution: 'Terms every candidate node must satisfy; not checked again once the pod runs.',
    },
  },
  'io.k8s.api.core.v1.PodAffinityTerm': {
    type: 'A set of pods, and the node label that defines the topology domain they are counted in.',
    fields: {
      labelSelector: 'The pods concerned.',
      matchLabelKeys: 'Label keys of the new pod whose values are added to the selector (key In value).',
      mismatchLabelKeys: 'Label keys of the new pod whose values are added to the selector (key NotIn value).',
      namespaceSelector: 'Namespaces the pods are looked for in, by label; with namespaces, the union of both.',
      namespaces: 'Namespaces the pods are looked for in; the new pod\'s namespace when both this and namespaceSelector are empty.',
      topologyKey: 'Node label whose value defines a domain, e.g. kubernetes.io/hostname or topology.kubernetes.io/zone.',
    },
  },
  'io.k8s.api.core.v1.PodAntiAffinity': {
    type: 'Rules to keep a pod out of the topology domains of other pods.',
    fields: {
      preferredDuringSchedulingIgnoredDuringExecution: 'Weighted terms the scheduler tries to honour.',
      requiredDuringSchedulingIgnoredDuringExecution: 'Terms every candidate node must satisfy; not checked again once the pod runs.',
    },
  },
  'io.k8s.api.core.v1.PodCondition': {
    type: 'One condition of a pod.',
    fields: {
      lastProbeTime: 'Last time the condition was probed.',
      lastTransitionTime: 'Last time the condition changed status.',
      message: 'Human-readable details.',
      reason: 'CamelCase reason for the last transition.',
      status: 'True, False or Unknown.',
      type: 'Condition type, e.g. Ready.',
    },
  },
  'io.k8s.api.core.v1.PodDNSConfig': {
    type: 'DNS parameters of a pod: nameservers, searches and options.',
  },
  'io.k8s.api.core.v1.PodDNSConfigOption': {
    type: 'A resolver option.',
    fields: {
      name: 'Name of the option.',
      value: 'Its value, if any.',
    },
  },
  'io.k8s.api.core.v1.PodIP': {
    type: 'An IP address of a pod.',
    fields: {
      ip: 'The IP address.',
    },
  },
  'io.k8s.api.core.v1.PodOS': {
    type: 'The operating system the pod runs on.',
    fields: {
      name: 'linux or windows.',
    },
  },
  'io.k8s.api.core.v1.PodReadinessGate': {
    type: 'An extra readiness condition.',
    fields: {
      conditionType: 'A condition type in the pod\'s conditions.',
    },
  },
  'io.k8s.api.core.v1.PodResourceClaim': {
    type: 'A named reference to a ResourceClaim or ResourceClaimTemplate.',
    fields: {
      name: 'Name of the claim within the pod.',
    },
  },
  'io.k8s.api.core.v1.PodResourceClaimStatus': {
    type: 'The ResourceClaim generated for one of a pod\'s resource claims.',
    fields: {
      name: 'Name of the claim in the pod.',
      resourceClaimName: 'Name of the generated ResourceClaim.',
    },
  },
  'io.k8s.api.core.v1.PodSchedulingGate': {
    type: 'A scheduling gate.',
    fields: {
      name: 'Name of the gate.',
    },
  },
  'io.k8s.api.core.v1.PodSecurityContext': {
    type: 'Pod-level security attributes: runAsUser, runAsGroup, runAsNonRoot, fsGroup, supplementalGroups, seccompProfile, sysctls...',
    fields: {
      fsGroup: 'A supplemental group owning the pod\'s volumes.',
      runAsGroup: 'GID to run the entrypoints as.',
      runAsNonRoot: 'Require the containers to run as non-root.',
      runAsUser: 'UID to run the entrypoints as.',
    },
  },
  'io.k8s.api.core.v1.PodSpec': {
    type: 'The desired behavior of a pod.',
    fields: {
      activeDeadlineSeconds: 'Seconds the pod may be active before the system fails it.',
      affinity: 'Scheduling constraints: node affinity, pod affinity and anti-affinity.',
      automountServiceAccountToken: 'Whether a service account token is mounted automatically.',
      containers: 'The containers of the pod. At least one. Cannot be added or removed once the pod exists.',
      dnsConfig: 'DNS settings merged with those chosen by dnsPolicy.',
      dnsPolicy: 'DNS policy: ClusterFirst (default), ClusterFirstWithHostNet, Default or None.',
      enableServiceLinks: 'Inject information about services into the environment, as Docker links do. Defaults to true.',
      ephemeralContainers: 'Ephemeral (debugging) containers, added through the ephemeralcontainers subresource.',
      hostAliases: 'Extra entries for the pod\'s /etc/hosts.',
      hostIPC: 'Use the host\'s IPC namespace.',
      hostNetwork: 'Use the host\'s network namespace; declared ports are then host ports.',
      hostPID: 'Use the host\'s PID namespace.',
      hostUsers: 'Use the host\'s user namespace. Defaults to true.',
      hostname: 'Hostname of the pod; the pod name by default.',
      imagePullSecrets: 'Secrets in the pod\'s namespace used to pull images.',
      initContainers: 'Containers run to completion, in order, before the app containers start.',
      nodeName: 'The node the pod is bound to. Set by the scheduler (or directly to bypass it).',
      nodeSelector: 'Labels a node must have for the pod to be scheduled on it.',
      os: 'The operating system of the containers (name: linux or windows).',
      overhead: 'Resource overhead of running the pod\'s sandbox, set by the RuntimeClass admission.',
      preemptionPolicy: 'Whether the pod may preempt lower-priority pods: PreemptLowerPriority (default) or Never.',
      priority: 'The pod\'s priority, resolved from priorityClassName by the Priority admission.',
      priorityClassName: 'Name of a PriorityClass giving the pod\'s priority.',
      readinessGates: 'Extra conditions that must be True for the pod to be ready.',
      resourceClaims: 'Dynamic resource claims the pod uses.',
      resources: 'Pod-level resource requests and limits.',
      restartPolicy: 'Restart policy of the containers: Always (default), OnFailure or Never.',
      runtimeClassName: 'Name of the RuntimeClass to run the pod with.',
      schedulerName: 'The scheduler that dispatches the pod. Defaults to "default-scheduler".',
      schedulingGates: 'Gates that hold the pod back from scheduling until removed.',
      securityContext: 'Pod-level security attributes and common container settings.',
      serviceAccount: 'Deprecated alias of serviceAccountName.',
      serviceAccountName: 'Name of the ServiceAccount the pod runs as. Defaults to "default".',
      setHostnameAsFQDN: 'Set the pod\'s hostname to its fully qualified domain name.',
      shareProcessNamespace: 'Share one process namespace between the pod\'s containers.',
      subdomain: 'Subdomain: the pod\'s FQDN becomes <hostname>.<subdomain>.<namespace>.svc.<cluster-domain>.',
      terminationGracePeriodSeconds: 'Seconds the pod has to terminate gracefully after deletion is requested. Defaults to 30.',
      tolerations: 'Taints the pod tolerates.',
      topologySpreadConstraints: 'How the pods spread across topology domains such as zones or nodes.',
      volumes: 'Volumes the pod\'s containers can mount.',
    },
  },
  'io.k8s.api.core.v1.PodStatus': {
    type: 'The most recently observed state of a pod.',
    fields: {
      conditions: 'Current service state of the pod: PodScheduled, Initialized, ContainersReady, Ready.',
      containerStatuses: 'One status per container of the pod.',
      ephemeralContainerStatuses: 'Statuses of the ephemeral containers.',
      hostIP: 'IP address of the node the pod is assigned to.',
      hostIPs: 'IP addresses of the node.',
      initContainerStatuses: 'One status per init container.',
      message: 'Human-readable message on why the pod is in this state.',
      nominatedNodeName: 'Node the scheduler nominated while preempting pods for this one.',
      phase: 'Lifecycle phase: Pending, Running, Succeeded, Failed or Unknown.',
      podIP: 'IP address allocated to the pod.',
      podIPs: 'IP addresses allocated to the pod; the first equals podIP.',
      qosClass: 'Quality of service class from the resource requirements: Guaranteed, Burstable or BestEffort.',
      reason: 'CamelCase reason the pod is in this state, e.g. Evicted.',
      resize: 'Status of an in-place resize.',
      startTime: 'When the kubelet acknowledged the pod, before pulling images.',
    },
  },
  'io.k8s.api.core.v1.PodTemplate': {
    type: 'A named pod template, kept for others to create pods from.',
    fields: {
      template: 'The pods to create.',
    },
  },
  'io.k8s.api.core.v1.PodTemplateSpec': {
    type: 'Describes the pods created from a template.',
    fields: {
      metadata: 'Metadata of the pods: labels (which must match the selector) and annotations.',
      spec: 'Specification of the pods.',
    },
  },
  'io.k8s.api.core.v1.PortStatus': {
    type: 'Status of one port.',
  },
  'io.k8s.api.core.v1.PortworxVolumeSource': {
    type: 'Deprecated in-tree Portworx volume.',
  },
  'io.k8s.api.core.v1.PreferredSchedulingTerm': {
    type: 'A node preference and its weight.',
    fields: {
      preference: 'The node requirements preferred.',
      weight: 'Weight (1-100) added to the score of the nodes that match.',
    },
  },
  'io.k8s.api.core.v1.Probe': {
    type: 'A health check run against a container.',
    fields: {
      exec: 'Run a command inside the container.',
      failureThreshold: 'Consecutive failures for the probe to count as failed. Defaults to 3.',
      grpc: 'Call a gRPC health check.',
      httpGet: 'Perform an HTTP GET.',
      initialDelaySeconds: 'Seconds after the container started before probes begin.',
      periodSeconds: 'How often to probe, in seconds. Defaults to 10.',
      successThreshold: 'Consecutive successes for the probe to count as passed after a failure. Defaults to 1.',
      tcpSocket: 'Open a TCP connection.',
      terminationGracePeriodSeconds: 'Grace period for the pod when this probe fails, overriding the pod\'s.',
      timeoutSeconds: 'Seconds after which the probe times out. Defaults to 1.',
    },
  },
  'io.k8s.api.core.v1.ProjectedVolumeSource': {
    type: 'Several sources projected into one directory.',
    fields: {
      defaultMode: 'File mode bits of the created files. Defaults to 0644.',
      sources: 'The sources.',
    },
  },
  'io.k8s.api.core.v1.QuobyteVolumeSource': {
    type: 'Deprecated Quobyte mount.',
  },
  'io.k8s.api.core.v1.RBDVolumeSource': {
    type: 'Deprecated Rados block device.',
  },
  'io.k8s.api.core.v1.ReplicationController': {
    type: 'The legacy ReplicaSet: keeps a number of identical pods running, selected by an equality-only label map.',
    fields: {
      spec: 'Desired behavior of the replication controller.',
      status: 'Most recently observed status of the replication controller. Read-only.',
    },
  },
  'io.k8s.api.core.v1.ResourceClaim': {
    type: 'A reference to a pod resource claim.',
    fields: {
      name: 'Name of the claim in pod.spec.resourceClaims.',
      request: 'A request within the claim.',
    },
  },
  'io.k8s.api.core.v1.ResourceFieldSelector': {
    type: 'Selects a container resource.',
    fields: {
      containerName: 'Container name; required for volumes.',
      divisor: 'Output format of the exposed value. Defaults to "1".',
      resource: 'Resource to select, e.g. limits.cpu.',
    },
  },
  'io.k8s.api.core.v1.ResourceHealth': {
    type: 'Health of one device.',
  },
  'io.k8s.api.core.v1.ResourceRequirements': {
    type: 'Compute resource requests and limits.',
    fields: {
      claims: 'Names of pod resource claims this container uses.',
      limits: 'The maximum amount of each resource allowed, e.g. cpu: 500m, memory: 128Mi.',
      requests: 'The minimum amount of each resource required; defaults to the limits when only limits are set.',
    },
  },
  'io.k8s.api.core.v1.ResourceStatus': {
    type: 'Health of the devices backing one resource of a container.',
  },
  'io.k8s.api.core.v1.SELinuxOptions': {
    type: 'SELinux labels of a container.',
    fields: {
      level: 'SELinux level label.',
      role: 'SELinux role label.',
      type: 'SELinux type label.',
      user: 'SELinux user label.',
    },
  },
  'io.k8s.api.core.v1.ScaleIOVolumeSource': {
    type: 'Deprecated ScaleIO volume.',
  },
  'io.k8s.api.core.v1.SeccompProfile': {
    type: 'A seccomp profile.',
    fields: {
      localhostProfile: 'Path of the profile on the node, relative to the kubelet\'s seccomp directory (type Localhost only).',
      type: 'RuntimeDefault, Unconfined or Localhost.',
    },
  },
  'io.k8s.api.core.v1.Secret': {
    type: 'Confidential data, such as a password, token or key, as base64-encoded key/value pairs.',
    fields: {
      data: 'The secret values, base64-encoded. Keys consist of alphanumerics, "-", "_" or ".".',
      immutable: 'When true, data cannot be changed (only metadata).',
      stringData: 'Write-only convenience: plain-text values merged into data on write (they win over data). Never returned.',
      type: 'Used to process the secret data programmatically, e.g. Opaque (default) or kubernetes.io/tls.',
    },
  },
  'io.k8s.api.core.v1.SecretEnvSource': {
    type: 'A Secret whose keys become environment variables.',
    fields: {
      name: 'Name of the Secret.',
      optional: 'Whether the Secret may be missing.',
    },
  },
  'io.k8s.api.core.v1.SecretKeySelector': {
    type: 'Selects a key of a Secret.',
    fields: {
      key: 'The key to select.',
      name: 'Name of the Secret.',
      optional: 'Whether the Secret or its key may be missing.',
    },
  },
  'io.k8s.api.core.v1.SecretProjection': {
    type: 'Keys of a Secret projected as files.',
    fields: {
      items: 'Keys to project, and their paths; all keys when empty.',
      name: 'Name of the Secret.',
      optional: 'Whether the Secret may be missing.',
    },
  },
  'io.k8s.api.core.v1.SecretVolumeSource': {
    type: 'Projects a Secret\'s keys as files.',
    fields: {
      defaultMode: 'File mode bits of the created files. Defaults to 0644.',
      items: 'Keys to project, and their paths; all keys when empty.',
      optional: 'Whether the Secret may be missing.',
      secretName: 'Name of the Secret in the pod\'s namespace.',
    },
  },
  'io.k8s.api.core.v1.SecurityContext': {
    type: 'Security options of a container: user and group ids, capabilities, privileged mode, read-only root filesystem, seccomp and SELinux settings.',
    fields: {
      allowPrivilegeEscalation: 'Whether a process can gain more privileges than its parent.',
      capabilities: 'POSIX capabilities to add and drop.',
      privileged: 'Run the container privileged.',
      readOnlyRootFilesystem: 'Mount the root filesystem read-only.',
      runAsGroup: 'GID to run the entrypoint as.',
      runAsNonRoot: 'Require the container to run as a non-root user.',
      runAsUser: 'UID to run the entrypoint as.',
    },
  },
  'io.k8s.api.core.v1.Service': {
    type: 'A named abstraction of a network service: a stable IP and DNS name routing to a set of pods.',
    fields: {
      spec: 'Desired behavior of the service.',
      status: 'Observed state of the service. Read-only.',
    },
  },
  'io.k8s.api.core.v1.ServiceAccount': {
    type: 'An identity for processes running in pods.',
    fields: {
      automountServiceAccountToken: 'Whether pods using this account get an API token mounted automatically.',
      imagePullSecrets: 'Secrets used to pull images for pods using this account.',
      secrets: 'Secrets pods using this account may use.',
    },
  },
  'io.k8s.api.core.v1.ServiceAccountTokenProjection': {
    type: 'A token of the pod\'s service account, as a file the kubelet keeps fresh.',
    fields: {
      audience: 'Intended audience of the token; the API server by default.',
      expirationSeconds: 'Requested lifetime of the token (at least 600). Defaults to 3600.',
      path: 'Relative path of the file.',
    },
  },
  'io.k8s.api.core.v1.ServicePort': {
    type: 'A port of a service.',
    fields: {
      appProtocol: 'Application protocol of the port, e.g. http or kubernetes.io/h2c.',
      name: 'Name of the port, a DNS label; required when the service has several ports.',
      nodePort: 'Port on every node for NodePort and LoadBalancer services; allocated when unset.',
      port: 'The port the service exposes.',
      protocol: 'TCP (default), UDP or SCTP.',
      targetPort: 'Number or name of the port on the pods. Defaults to port.',
    },
  },
  'io.k8s.api.core.v1.ServiceSpec': {
    type: 'Desired state of a service.',
    fields: {
      allocateLoadBalancerNodePorts: 'Whether node ports are allocated for a LoadBalancer service. Defaults to true.',
      clusterIP: 'The virtual IP of the service, allocated when empty; "None" makes a headless service. Immutable once set.',
      clusterIPs: 'The IPs of the service, one per IP family; the first equals clusterIP.',
      externalIPs: 'IPs for which nodes also accept traffic for this service.',
      externalName: 'DNS name a service of type ExternalName aliases.',
      externalTrafficPolicy: 'How external traffic is routed: Cluster or Local.',
      healthCheckNodePort: 'Health check node port for Local external traffic policy.',
      internalTrafficPolicy: 'How traffic from inside the cluster is routed: Cluster or Local.',
      ipFamilies: 'IP families (IPv4, IPv6) of the service.',
      ipFamilyPolicy: 'SingleStack, PreferDualStack or RequireDualStack.',
      loadBalancerClass: 'The load balancer implementation for a LoadBalancer service.',
      loadBalancerIP: 'Deprecated: requested load balancer IP.',
      loadBalancerSourceRanges: 'Client CIDRs a load balancer accepts.',
      ports: 'The ports the service exposes.',
      publishNotReadyAddresses: 'Publish endpoints for pods that are not ready.',
      selector: 'Routes traffic to pods whose labels match. Empty: endpoints are managed outside Kubernetes.',
      sessionAffinity: 'ClientIP or None (default).',
      sessionAffinityConfig: 'Settings of session affinity (clientIP.timeoutSeconds).',
      trafficDistribution: 'Preference for how traffic is distributed to endpoints.',
      type: 'How the service is exposed: ClusterIP (default), NodePort, LoadBalancer or ExternalName.',
    },
  },
  'io.k8s.api.core.v1.ServiceStatus': {
    type: 'Observed state of a service.',
    fields: {
      conditions: 'Current conditions of the service.',
      loadBalancer: 'The load balancer, if any.',
    },
  },
  'io.k8s.api.core.v1.SessionAffinityConfig': {
    type: 'Settings of a service\'s session affinity.',
    fields: {
      clientIP: 'Settings of ClientIP affinity.',
    },
  },
  'io.k8s.api.core.v1.SleepAction': {
    type: 'Sleeps for a number of seconds.',
    fields: {
      seconds: 'Seconds to sleep.',
    },
  },
  'io.k8s.api.core.v1.StorageOSVolumeSource': {
    type: 'Deprecated StorageOS volume.',
  },
  'io.k8s.api.core.v1.Sysctl': {
    type: 'A kernel parameter set in the pod\'s namespaces.',
    fields: {
      name: 'Name of the parameter.',
      value: 'Its value.',
    },
  },
  'io.k8s.api.core.v1.TCPSocketAction': {
    type: 'Opens a TCP connection; success when it connects.',
    fields: {
      host: 'Host to connect to; the pod IP by default.',
      port: 'Port number or name on the container.',
    },
  },
  'io.k8s.api.core.v1.Taint': {
    type: 'A taint of a node.',
    fields: {
      effect: 'NoSchedule, PreferNoSchedule or NoExecute.',
      key: 'Taint key.',
      timeAdded: 'When a NoExecute taint was added.',
      value: 'Taint value.',
    },
  },
  'io.k8s.api.core.v1.Toleration': {
    type: 'Lets the pod schedule onto (or stay on) nodes with a matching taint.',
    fields: {
      effect: 'Taint effect to match: NoSchedule, PreferNoSchedule or NoExecute; empty matches all.',
      key: 'Taint key; empty with operator Exists matches every taint.',
      operator: 'Exists or Equal (default).',
      tolerationSeconds: 'For NoExecute: how long the pod stays bound after the taint appears.',
      value: 'Taint value to match with operator Equal.',
    },
  },
  'io.k8s.api.core.v1.TopologySpreadConstraint': {
    type: 'How pods spread across a topology.',
    fields: {
      labelSelector: 'Selects the pods counted in each domain.',
      maxSkew: 'Maximum allowed difference in pod count between domains.',
      topologyKey: 'Node label key defining the domains.',
      whenUnsatisfiable: 'DoNotSchedule or ScheduleAnyway.',
    },
  },
  'io.k8s.api.core.v1.TypedLocalObjectReference': {
    type: 'A reference to an object of a given kind in the same namespace.',
    fields: {
      apiGroup: 'API group of the referent; the core group when empty.',
      kind: 'Kind of the referent.',
      name: 'Name of the referent.',
    },
  },
  'io.k8s.api.core.v1.TypedObjectReference': {
    type: 'A reference to an object of a given kind.',
    fields: {
      apiGroup: 'API group of the referent; the core group when empty.',
      kind: 'Kind of the referent.',
      name: 'Name of the referent.',
      namespace: 'Namespace of the referent.',
    },
  },
  'io.k8s.api.core.v1.Volume': {
    type: 'A named volume the pod\'s containers can mount. Exactly one source (emptyDir, configMap, secret, persistentVolumeClaim, hostPath, projected, downwardAPI, ...).',
    fields: {
      configMap: 'Files from a ConfigMap.',
      emptyDir: 'A temporary directory sharing the pod\'s lifetime.',
      hostPath: 'A file or directory of the host node.',
      name: 'Volume name, a DNS label unique within the pod.',
      persistentVolumeClaim: 'A PersistentVolumeClaim in the pod\'s namespace.',
      secret: 'Files from a Secret.',
    },
  },
  'io.k8s.api.core.v1.VolumeDevice': {
    type: 'Maps a raw block volume into the container.',
    fields: {
      devicePath: 'Path of the device inside the container.',
      name: 'Name of a PVC volume of the pod.',
    },
  },
  'io.k8s.api.core.v1.VolumeMount': {
    type: 'Mounts a pod volume into the container.',
    fields: {
      mountPath: 'Path inside the container at which to mount; must not contain ":".',
      mountPropagation: 'How mounts propagate between host and container: None, HostToContainer or Bidirectional.',
      name: 'Name of a volume of the pod.',
      readOnly: 'Mount read-only. Defaults to false.',
      recursiveReadOnly: 'Whether read-only mounts are recursive: Disabled, IfPossible or Enabled.',
      subPath: 'Path within the volume to mount instead of its root.',
      subPathExpr: 'Like subPath, with $(VAR) references expanded.',
    },
  },
  'io.k8s.api.core.v1.VolumeMountStatus': {
    type: 'A volume mount of a running container.',
    fields: {
      mountPath: 'Where it is mounted.',
      name: 'Name of the mount.',
      readOnly: 'Mounted read-only.',
      recursiveReadOnly: 'Whether read-only applies to submounts.',
    },
  },
  'io.k8s.api.core.v1.VolumeProjection': {
    type: 'One source of a projected volume: exactly one of configMap, secret, downwardAPI, serviceAccountToken or clusterTrustBundle.',
    fields: {
      clusterTrustBundle: 'Certificates of ClusterTrustBundles.',
      configMap: 'Keys of a ConfigMap.',
      downwardAPI: 'Fields of the pod.',
      secret: 'Keys of a Secret.',
      serviceAccountToken: 'A token of the pod\'s service account.',
    },
  },
  'io.k8s.api.core.v1.VolumeResourceRequirements': {
    type: 'Storage requested for a claim.',
    fields: {
      limits: 'Most storage allowed.',
      requests: 'Least storage required.',
    },
  },
  'io.k8s.api.core.v1.VsphereVirtualDiskVolumeSource': {
    type: 'Deprecated in-tree vSphere disk.',
  },
  'io.k8s.api.core.v1.WeightedPodAffinityTerm': {
    type: 'A pod affinity term and its weight.',
    fields: {
      podAffinityTerm: 'The term.',
      weight: 'Weight (1-100) added to the score of the nodes that match.',
    },
  },
  'io.k8s.api.core.v1.WindowsSecurityContextOptions': {
    type: 'Security settings of containers on Windows nodes.',
    fields: {
      gmsaCredentialSpec: 'Contents of the GMSA credential spec.',
      gmsaCredentialSpecName: 'Name of the GMSA credential spec.',
      hostProcess: 'Run as a host process container.',
      runAsUserName: 'User name the entrypoint runs as.',
    },
  },
  'io.k8s.api.events.v1.Event': {
    type: 'A report of an event somewhere in the cluster (the events.k8s.io form of core/v1 Event).',
    fields: {
      action: 'What action was taken or failed.',
      deprecatedCount: 'Deprecated count of the core/v1 form.',
      deprecatedFirstTimestamp: 'Deprecated firstTimestamp of the core/v1 form.',
      deprecatedLastTimestamp: 'Deprecated lastTimestamp of the core/v1 form.',
      deprecatedSource: 'Deprecated source of the core/v1 form.',
      eventTime: 'When the event was first observed. Required.',
      note: 'Human-readable description of the event.',
      reason: 'Why the action was taken.',
      regarding: 'The object the event is about.',
      related: 'A secondary object involved.',
      reportingController: 'Controller that emitted the event, e.g. kubernetes.io/kubelet.',
      reportingInstance: 'Id of the controller instance.',
      series: 'Data about the series this event represents.',
      type: 'Normal or Warning.',
    },
  },
  'io.k8s.api.events.v1.EventSeries': {
    type: 'A series of repeated events.',
    fields: {
      count: 'Occurrences so far.',
      lastObservedTime: 'Time of the last occurrence.',
    },
  },
  'io.k8s.api.networking.v1.HTTPIngressPath': {
    type: 'A path and the backend it routes to.',
    fields: {
      backend: 'Where matching traffic goes.',
      path: 'Path matched against the request path; must start with "/".',
      pathType: 'How the path matches: Exact, Prefix or ImplementationSpecific.',
    },
  },
  'io.k8s.api.networking.v1.HTTPIngressRuleValue': {
    type: 'HTTP paths and their backends.',
    fields: {
      paths: 'Paths mapped to backends.',
    },
  },
  'io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration': {
    type: 'Webhooks that may change objects as they are admitted by the API server.',
    fields: { webhooks: 'The webhooks, with the resources and operations each is called for.' },
  },
  'io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration': {
    type: 'Webhooks that may refuse objects as they are admitted by the API server, without changing them.',
    fields: { webhooks: 'The webhooks, with the resources and operations each is called for.' },
  },
  'io.k8s.api.admissionregistration.v1.MutatingWebhook': {
    type: 'A webhook called to admit (and possibly patch) requests.',
    fields: {
      ...WEBHOOK_FIELDS,
      reinvocationPolicy: 'Whether the webhook is called again when later admission changed the object: Never or IfNeeded. Defaults to Never.',
    },
  },
  'io.k8s.api.admissionregistration.v1.ValidatingWebhook': {
    type: 'A webhook called to allow or refuse requests.',
    fields: {
      ...WEBHOOK_FIELDS,
    },
  },
  'io.k8s.api.admissionregistration.v1.WebhookClientConfig': {
    type: 'How a webhook is reached over TLS.',
    fields: {
      caBundle: 'PEM CA certificates (base64 in JSON) that verify the webhook\'s serving certificate; the system roots when empty.',
      service: 'A Service the webhook runs behind; one of url or service.',
      url: 'The https URL of the webhook; one of url or service.',
    },
  },
  'io.k8s.api.admissionregistration.v1.ServiceReference': {
    type: 'A Service a webhook is called through.',
    fields: {
      name: 'The Service\'s name.',
      namespace: 'The Service\'s namespace.',
      path: 'The URL path requests are sent to.',
      port: 'The Service port to call (defaults to 443).',
    },
  },
  'io.k8s.api.discovery.v1.EndpointSlice': {
    type: 'A subset of the endpoints that implement a service, sharing one address type and one set of ports.',
    fields: {
      addressType: 'The type of the addresses in this slice: IPv4, IPv6 or FQDN. Immutable.',
      endpoints: 'The endpoints in this slice (at most 1000).',
      ports: 'The network ports every endpoint in this slice exposes; empty means no ports are exposed.',
    },
  },
  'io.k8s.api.discovery.v1.Endpoint': {
    type: 'One backend of a service.',
    fields: {
      addresses: 'The addresses of this endpoint (consumers use the first).',
      conditions: 'What is known of the endpoint\'s state.',
      hostname: 'The endpoint\'s hostname, when its pod sets hostname and subdomain.',
      nodeName: 'The node hosting this endpoint.',
      targetRef: 'The object (usually a pod) providing this endpoint.',
      zone: 'The zone this endpoint is in.',
    },
  },
  'io.k8s.api.discovery.v1.EndpointConditions': {
    type: 'The state of an endpoint.',
    fields: {
      ready: 'The endpoint can take new traffic (false while terminating).',
      serving: 'The endpoint passes its readiness checks, terminating or not.',
      terminating: 'The endpoint is terminating.',
    },
  },
  'io.k8s.api.discovery.v1.EndpointPort': {
    type: 'A port of the endpoints in a slice.',
    fields: {
      appProtocol: 'The application protocol of this port.',
      name: 'The name of this port, matching the service port\'s name.',
      port: 'The port number.',
      protocol: 'TCP, UDP or SCTP (default TCP).',
    },
  },
  'io.k8s.api.networking.v1.Ingress': {
    type: 'Rules routing external HTTP(S) traffic to services.',
    fields: {
      spec: 'Desired state of the ingress.',
      status: 'Observed state of the ingress. Read-only.',
    },
  },
  'io.k8s.api.networking.v1.IngressBackend': {
    type: 'A service (or other resource) receiving traffic.',
    fields: {
      resource: 'A reference to another object in the ingress\'s namespace (apiGroup, kind, name).',
      service: 'A service backend.',
    },
  },
  'io.k8s.api.networking.v1.IngressLoadBalancerIngress': {
    type: 'An ingress point.',
    fields: {
      hostname: 'DNS name.',
      ip: 'IP address.',
      ports: 'Port statuses.',
    },
  },
  'io.k8s.api.networking.v1.IngressLoadBalancerStatus': {
    type: 'Status of an ingress load balancer.',
    fields: {
      ingress: 'Ingress points.',
    },
  },
  'io.k8s.api.networking.v1.IngressPortStatus': {
    type: 'Status of one port.',
  },
  'io.k8s.api.networking.v1.IngressRule': {
    type: 'Maps the paths of a host to backends.',
    fields: {
      host: 'Fully qualified domain name (a leading "*." wildcard is allowed); all hosts when empty.',
      http: 'HTTP paths of the rule.',
    },
  },
  'io.k8s.api.networking.v1.IngressServiceBackend': {
    type: 'A service as a backend.',
    fields: {
      name: 'Name of the service.',
      port: 'Port of the service.',
    },
  },
  'io.k8s.api.networking.v1.IngressSpec': {
    type: 'Desired state of an ingress.',
    fields: {
      defaultBackend: 'Backend for requests matching no rule.',
      ingressClassName: 'Name of the IngressClass of the controller implementing this ingress.',
      rules: 'Host rules; requests matching none go to the default backend.',
      tls: 'TLS configuration.',
    },
  },
  'io.k8s.api.networking.v1.IngressStatus': {
    type: 'Observed state of an ingress.',
    fields: {
      loadBalancer: 'The load balancer.',
    },
  },
  'io.k8s.api.networking.v1.IngressTLS': {
    type: 'TLS for a set of hosts.',
    fields: {
      hosts: 'Hosts covered by the certificate.',
      secretName: 'Name of the Secret holding the certificate and key.',
    },
  },
  'io.k8s.api.networking.v1.ServiceBackendPort': {
    type: 'A port of a service, by name or number.',
    fields: {
      name: 'Port name.',
      number: 'Port number.',
    },
  },
  'io.k8s.api.rbac.v1.AggregationRule': {
    type: 'Aggregates the rules of the cluster roles it selects.',
    fields: {
      clusterRoleSelectors: 'Selectors of the cluster roles to aggregate.',
    },
  },
  'io.k8s.api.rbac.v1.ClusterRole': {
    type: 'A cluster-wide set of permissions.',
    fields: {
      aggregationRule: 'When set, the rules are computed from the selected cluster roles.',
      rules: 'The permissions of the role.',
    },
  },
  'io.k8s.api.rbac.v1.ClusterRoleBinding': {
    type: 'Grants a ClusterRole to subjects across the cluster.',
    fields: {
      roleRef: 'The cluster role granted. Cannot be updated.',
      subjects: 'Who the role is granted to.',
    },
  },
  'io.k8s.api.rbac.v1.PolicyRule': {
    type: 'A set of permissions: verbs on resources (or non-resource URLs).',
    fields: {
      apiGroups: 'API groups of the resources; "" is the core group, "*" all groups.',
      nonResourceURLs: 'URL paths (with a trailing * wildcard) for cluster roles only.',
      resourceNames: 'Names of the objects the rule is restricted to.',
      resources: 'Resources the rule applies to; "*" means all.',
      verbs: 'Verbs allowed, e.g. get, list, watch, create; "*" means all.',
    },
  },
  'io.k8s.api.rbac.v1.Role': {
    type: 'A namespaced set of permissions.',
    fields: {
      rules: 'The permissions of the role.',
    },
  },
  'io.k8s.api.rbac.v1.RoleBinding': {
    type: 'Grants a Role or ClusterRole to subjects within a namespace.',
    fields: {
      roleRef: 'The role granted. Cannot be updated.',
      subjects: 'Who the role is granted to.',
    },
  },
  'io.k8s.api.rbac.v1.RoleRef': {
    type: 'The role a binding grants.',
    fields: {
      apiGroup: 'rbac.authorization.k8s.io.',
      kind: 'Role or ClusterRole.',
      name: 'Name of the role.',
    },
  },
  'io.k8s.api.rbac.v1.Subject': {
    type: 'A user, group or service account a binding applies to.',
    fields: {
      apiGroup: '"" for ServiceAccount, rbac.authorization.k8s.io for User and Group.',
      kind: 'User, Group or ServiceAccount.',
      name: 'Name of the subject.',
      namespace: 'Namespace of a ServiceAccount subject.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceColumnDefinition': {
    type: 'An additional column of Table output.',
    fields: {
      description: 'Description of the column.',
      format: 'Format of the column.',
      jsonPath: 'JSON path of the value shown.',
      name: 'Name of the column.',
      priority: '0: always shown; more: only with -o wide.',
      type: 'OpenAPI type of the column.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceConversion': {
    type: 'How objects are converted between the versions of a custom resource.',
    fields: {
      strategy: 'None (only apiVersion changes) or Webhook.',
      webhook: 'The webhook called when strategy is Webhook.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition': {
    type: 'Defines a custom resource served by the API server: CustomResourceDefinitions are named <plural>.<group>.',
    fields: {
      spec: 'How the custom resource appears.',
      status: 'Observed state of the definition. Read-only.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionCondition': {
    type: 'One condition of a CustomResourceDefinition.',
    fields: {
      lastTransitionTime: 'Last time the condition changed.',
      message: 'Human-readable details.',
      reason: 'CamelCase reason.',
      status: 'True, False or Unknown.',
      type: 'Condition type.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionNames': {
    type: 'Names of a custom resource.',
    fields: {
      categories: 'Groups the resource belongs to, e.g. all.',
      kind: 'Kind, in CamelCase.',
      listKind: 'Kind of lists. Defaults to <kind>List.',
      plural: 'Plural resource name, lower case, used in URLs.',
      shortNames: 'Short names for kubectl.',
      singular: 'Singular name. Defaults to the lower-cased kind.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionSpec': {
    type: 'How a custom resource appears.',
    fields: {
      conversion: 'How versions are converted: strategy None or Webhook.',
      group: 'API group of the resource, e.g. stable.example.com.',
      names: 'Resource and kind names.',
      preserveUnknownFields: 'Deprecated: keep unknown fields (v1 requires false).',
      scope: 'Namespaced or Cluster.',
      versions: 'Served versions; exactly one is the storage version.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus': {
    type: 'Observed state of a CustomResourceDefinition.',
    fields: {
      acceptedNames: 'The names actually being served.',
      conditions: 'Conditions: Established, NamesAccepted, Terminating.',
      storedVersions: 'Versions objects were ever stored in.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionVersion': {
    type: 'One version of a custom resource.',
    fields: {
      additionalPrinterColumns: 'Extra Table columns.',
      deprecated: 'Marks the version deprecated.',
      deprecationWarning: 'Warning returned to clients using a deprecated version.',
      name: 'Version name, e.g. v1.',
      schema: 'Schema of the version.',
      selectableFields: 'Extra fields usable in field selectors.',
      served: 'Whether the version is served.',
      storage: 'Whether objects are stored in this version.',
      subresources: 'Status and scale subresources.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceSubresourceScale': {
    type: 'Paths of the scale subresource.',
    fields: {
      labelSelectorPath: 'JSON path of the serialized label selector in status.',
      specReplicasPath: 'JSON path of the desired replicas, e.g. .spec.replicas.',
      statusReplicasPath: 'JSON path of the observed replicas, e.g. .status.replicas.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceSubresourceStatus': {
    type: 'Enables the status subresource; it has no fields.',
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceSubresources': {
    type: 'Subresources of a custom resource.',
    fields: {
      scale: 'The scale subresource.',
      status: 'The status subresource (an empty object enables it).',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceValidation': {
    type: 'Validation of a version.',
    fields: {
      openAPIV3Schema: 'The structural OpenAPI v3 schema of the resource.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ExternalDocumentation': {
    type: 'A link to more documentation.',
    fields: {
      description: 'What the link is about.',
      url: 'The link.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': {
    type: 'Any JSON value.',
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps': {
    type: 'A JSON-Schema (OpenAPI v3) following the structural schema rules, with the x-kubernetes-* extensions.',
    fields: {
      additionalProperties: 'Schema of the values of a map, or false.',
      allOf: 'Schemas that must all match.',
      anyOf: 'Schemas of which at least one must match.',
      description: 'Description of the field, shown by kubectl explain.',
      exclusiveMaximum: 'Whether maximum is exclusive.',
      exclusiveMinimum: 'Whether minimum is exclusive.',
      format: 'Format of a string or number, e.g. int32, date-time, byte.',
      items: 'Schema of the items of a list.',
      maxItems: 'Most items a list may have.',
      maxLength: 'Longest string allowed.',
      maxProperties: 'Most properties a map may have.',
      maximum: 'Largest number allowed.',
      minItems: 'Fewest items a list may have.',
      minLength: 'Shortest string allowed.',
      minProperties: 'Fewest properties a map may have.',
      minimum: 'Smallest number allowed.',
      multipleOf: 'Numbers must be a multiple of this.',
      not: 'A schema that must not match.',
      nullable: 'Whether null is allowed (and kept).',
      oneOf: 'Schemas of which exactly one must match.',
      pattern: 'Regular expression strings must match.',
      patternProperties: 'Schemas of properties by name pattern (not allowed in CRDs).',
      properties: 'Schemas of the properties of an object.',
      required: 'Properties that must be present.',
      title: 'Title of the schema.',
      type: 'JSON type: object, array, string, integer, number or boolean.',
      uniqueItems: 'Whether list items must be unique (not allowed in CRDs).',
      'x-kubernetes-embedded-resource': 'The value is a Kubernetes object with apiVersion, kind and metadata.',
      'x-kubernetes-int-or-string': 'The value is an integer or a string.',
      'x-kubernetes-list-map-keys': 'Keys of the items of a list of type map.',
      'x-kubernetes-list-type': 'atomic, set or map.',
      'x-kubernetes-map-type': 'granular or atomic.',
      'x-kubernetes-preserve-unknown-fields': 'Keep fields the schema does not describe.',
      'x-kubernetes-validations': 'CEL rules the value must satisfy.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': {
    type: 'A schema, or a list of schemas.',
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': {
    type: 'A schema, or a boolean.',
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': {
    type: 'A schema, or a list of property names.',
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.SelectableField': {
    type: 'A field usable in field selectors.',
    fields: {
      jsonPath: 'JSON path of the field.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ServiceReference': {
    type: 'A service in the cluster.',
    fields: {
      name: 'Name of the service.',
      namespace: 'Namespace of the service.',
      path: 'URL path of requests to it.',
      port: 'Port of the service. Defaults to 443.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ValidationRule': {
    type: 'A CEL validation rule.',
    fields: {
      fieldPath: 'Path of the field errors are reported on, relative to the schema.',
      message: 'Message returned when the rule fails.',
      messageExpression: 'CEL expression computing the message.',
      optionalOldSelf: 'Run the transition rule also when there is no old value.',
      reason: 'Reason of the error: FieldValueInvalid, FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.',
      rule: 'The CEL expression.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.WebhookClientConfig': {
    type: 'How to call a webhook: by URL or through a service.',
    fields: {
      caBundle: 'PEM CA bundle to verify the webhook\'s certificate.',
      service: 'A service in the cluster.',
      url: 'An https URL.',
    },
  },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.WebhookConversion': {
    type: 'A conversion webhook.',
    fields: {
      clientConfig: 'How to call the webhook.',
      conversionReviewVersions: 'ConversionReview versions the webhook accepts, preferred first.',
    },
  },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': {
    type: 'An amount, written as a number with an optional suffix: "100m" CPU, "128Mi" memory, "1.5", "2e3".',
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Condition': {
    type: 'One aspect of the current state of an object.',
    fields: {
      lastTransitionTime: 'When the condition last changed status.',
      message: 'Human-readable details.',
      observedGeneration: 'The generation the condition was computed for.',
      reason: 'CamelCase reason for the last transition.',
      status: 'True, False or Unknown.',
      type: 'Condition type in CamelCase.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions': {
    type: 'Options of a delete request.',
    fields: {
      dryRun: '"All" to run every stage without persisting.',
      gracePeriodSeconds: 'Seconds before the object is deleted; 0 deletes immediately.',
      orphanDependents: 'Deprecated: use propagationPolicy.',
      preconditions: 'Must hold for the deletion to proceed, else 409 Conflict.',
      propagationPolicy: 'Orphan, Background or Foreground garbage collection of dependents.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': {
    type: 'A set of field paths in the FieldsV1 trie encoding.',
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector': {
    type: 'A label query. An empty selector matches everything; a null selector matches nothing. All requirements are ANDed.',
    fields: {
      matchExpressions: 'Requirements on label keys and values.',
      matchLabels: 'Exact key=value matches, each equivalent to an In requirement with one value.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement': {
    type: 'A requirement on one label key.',
    fields: {
      key: 'The label key.',
      operator: 'In, NotIn, Exists or DoesNotExist.',
      values: 'Values for In and NotIn; must be empty for Exists and DoesNotExist.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta': {
    type: 'Metadata of a list response.',
    fields: {
      continue: 'Token to fetch the next page when the list was limited.',
      remainingItemCount: 'How many items follow this page, when known.',
      resourceVersion: 'The resource version the list was read at; start a watch from here.',
      selfLink: 'Deprecated and unused.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry': {
    type: 'The fields one manager owns, for server-side apply.',
    fields: {
      apiVersion: 'Version of the resource the fields were written with.',
      fieldsType: 'Format of fieldsV1; only "FieldsV1".',
      fieldsV1: 'The owned fields, as a set.',
      manager: 'Name of the field manager.',
      operation: '"Apply" or "Update".',
      subresource: 'Subresource the fields were written through, if any.',
      time: 'When the fields were last changed.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': {
    type: 'A timestamp in RFC 3339 form, with microsecond precision.',
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': {
    type: 'Metadata every persisted object carries.',
    fields: {
      annotations: 'Unstructured key/value data kept with the object, for tools and controllers. Not queryable.',
      creationTimestamp: 'When the server created this object. Read-only.',
      deletionGracePeriodSeconds: 'Seconds the object has left to terminate gracefully once deletion started. Read-only.',
      deletionTimestamp: 'When the object will be (or was asked to be) deleted. Set by the server on a graceful delete. Read-only.',
      finalizers: 'Names of finalizers that must be removed before the object is deleted from storage.',
      generateName: 'A prefix the server uses to generate a unique name when name is empty.',
      generation: 'A sequence number of changes to the desired state. Set by the server. Read-only.',
      labels: 'Key/value pairs used to organize and select objects (label selectors).',
      managedFields: 'Which field manager owns which fields. Maintained by the server.',
      name: 'The name, unique within a namespace (or the cluster for cluster-scoped kinds). Cannot be updated.',
      namespace: 'The namespace of a namespaced object. Empty for cluster-scoped kinds. Cannot be updated.',
      ownerReferences: 'Objects this object depends on. When all owners are deleted, the garbage collector deletes it.',
      resourceVersion: 'An opaque version of this object, changed on every write; used for optimistic concurrency and watches.',
      selfLink: 'Deprecated and unused.',
      uid: 'The unique id of this object over time. Set by the server. Read-only.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference': {
    type: 'Identifies an owning object, which must be in the same namespace or cluster-scoped.',
    fields: {
      apiVersion: 'API version of the owner.',
      blockOwnerDeletion: 'When true, the owner cannot be deleted in the foreground until this reference is removed.',
      controller: 'When true, this owner is the managing controller. At most one owner may be the controller.',
      kind: 'Kind of the owner.',
      name: 'Name of the owner.',
      uid: 'UID of the owner.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Patch': {
    type: 'The body of a PATCH request: a JSON patch, merge patch, strategic merge patch or apply configuration.',
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions': {
    type: 'Conditions on the current object for a delete to proceed.',
    fields: {
      resourceVersion: 'The expected resourceVersion.',
      uid: 'The expected UID.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Status': {
    type: 'The result of an operation that does not return an object.',
    fields: {
      code: 'HTTP status code.',
      details: 'Extended data about the failure.',
      message: 'Human-readable description of the status.',
      metadata: 'Standard list metadata.',
      reason: 'Machine-readable reason, e.g. NotFound or AlreadyExists.',
      status: '"Success" or "Failure".',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause': {
    type: 'One cause of a failure.',
    fields: {
      field: 'The field concerned, e.g. "spec.containers[0].name".',
      message: 'Human-readable description.',
      reason: 'Machine-readable cause, e.g. FieldValueInvalid.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails': {
    type: 'Details of a failure.',
    fields: {
      causes: 'Individual causes, e.g. the invalid fields.',
      group: 'Group of the resource.',
      kind: 'Kind (or resource) concerned.',
      name: 'Name of the object concerned.',
      retryAfterSeconds: 'Seconds to wait before retrying.',
      uid: 'UID of the object concerned.',
    },
  },
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': {
    type: 'A timestamp in RFC 3339 form, with second precision.',
  },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': {
    type: 'Either an integer or a string, e.g. a port number or a port name, or a count or a percentage.',
  },
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService': {
    type: 'An API group/version the API server serves: locally, or through a service it proxies to. Named <version>.<group>.',
    fields: {
      spec: 'Which group/version, where it is served and how it is ordered in discovery.',
      status: 'Whether the group/version is available.',
    },
  },
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceCondition': {
    type: 'One observation of an APIService.',
    fields: {
      lastTransitionTime: 'When the status last changed.',
      message: 'Human-readable details.',
      reason: 'A one-word CamelCase reason for the status.',
      status: 'True, False or Unknown.',
      type: 'The condition (Available).',
    },
  },
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec': {
    type: 'Where and how an API group/version is served.',
    fields: {
      caBundle: 'PEM CA bundle that verifies the serving certificate of the service.',
      group: 'The API group (empty for the core group).',
      groupPriorityMinimum: 'The lowest priority of the group: higher groups come first in discovery.',
      insecureSkipTLSVerify: 'Skip verifying the serving certificate of the service (discouraged).',
      service: 'The service that serves the group/version; absent for groups served by the API server itself.',
      version: 'The API version.',
      versionPriority: 'Order of this version within its group: higher versions come first.',
    },
  },
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus': {
    type: 'The observed state of an APIService.',
    fields: {
      conditions: 'The current conditions (Available).',
    },
  },
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.ServiceReference': {
    type: 'A reference to a service by namespace, name and port.',
    fields: {
      name: 'Name of the service.',
      namespace: 'Namespace of the service.',
      port: 'Port of the service (default 443).',
    },
  },
  'io.k8s.api.core.v1.ResourceQuota': {
    type: 'Limits what the objects of one namespace may use in total: object counts and compute resources.',
    fields: {
      spec: 'The limits and which objects they apply to.',
      status: 'The limits in force and what the namespace uses, as the resource quota controller last counted it.',
    },
  },
  'io.k8s.api.core.v1.ResourceQuotaSpec': {
    type: 'The hard limits of a quota and the scopes of the objects it counts.',
    fields: {
      hard: 'The most of each named resource the namespace may use (pods, requests.cpu, count/jobs.batch, ...).',
      scopeSelector: 'Scope requirements (such as PriorityClass In [high]) an object must match to be counted.',
      scopes: 'Scopes an object must match to be counted: Terminating, NotTerminating, BestEffort, NotBestEffort.',
    },
  },
  'io.k8s.api.core.v1.ResourceQuotaStatus': {
    type: 'The limits in force and the usage counted against them.',
    fields: {
      hard: 'The limits in force (the spec\'s, once the controller has seen them).',
      used: 'What the namespace uses now, for each limited resource.',
    },
  },
  'io.k8s.api.core.v1.LimitRange': {
    type: 'Default, minimum and maximum resources of the containers, pods and claims of a namespace.',
    fields: {
      spec: 'The limits that apply in the namespace.',
    },
  },
  'io.k8s.api.core.v1.LimitRangeSpec': {
    type: 'The limits of a LimitRange.',
    fields: {
      limits: 'One entry per kind of object limited (Container, Pod, PersistentVolumeClaim).',
    },
  },
  'io.k8s.api.core.v1.LimitRangeItem': {
    type: 'The limits of one kind of object.',
    fields: {
      default: 'The limits a container gets when it states none.',
      defaultRequest: 'The requests a container gets when it states none.',
      max: 'The highest limit allowed.',
      maxLimitRequestRatio: 'The highest limit-to-request ratio allowed.',
      min: 'The lowest request allowed.',
      type: 'What is limited: Container, Pod or PersistentVolumeClaim.',
    },
  },
  'io.k8s.api.scheduling.v1.PriorityClass': {
    type: 'A named priority for pods: pods naming it in priorityClassName get its value as spec.priority.',
    fields: {
      description: 'What the class is for.',
      globalDefault: 'When true, pods that name no class get this one (only one class may be the default).',
      preemptionPolicy: 'Whether pods of this class may preempt lower-priority pods: PreemptLowerPriority (the default) or Never.',
      value: 'The priority of the pods of this class; higher runs first. User classes may go up to 1000000000.',
    },
  },
};
