/** Schemas of apps/v1 Deployment and ReplicaSet. */
import type { SchemaDefinitions } from '@kplane/api';
import { APPS, CORE, LABEL_SELECTOR, TIME, addKind, bool, enumStr, int32, int64, intOrString, mapList, obj, ref, refObj, str } from './schema-dsl.js';

function condition(kind: string): ReturnType<typeof obj> {
  return obj(
    `One condition of a ${kind}.`,
    {
      lastTransitionTime: ref(TIME, 'Last time the condition changed status.'),
      ...(kind === 'Deployment' ? { lastUpdateTime: ref(TIME, 'Last time the condition was updated.') } : {}),
      message: str('Human-readable details.'),
      reason: str('CamelCase reason for the last transition.'),
      status: str('True, False or Unknown.', { default: '' }),
      type: str('Condition type.', { default: '' }),
    },
    { required: ['type', 'status'] },
  );
}

/** apps/v1 schemas. */
export function appsDefinitions(): SchemaDefinitions {
  const defs: SchemaDefinitions = {
    [`${APPS}DeploymentSpec`]: obj(
      'Desired state of a deployment.',
      {
        minReadySeconds: int32('Seconds a new pod must be ready, without crashing, to count as available. Defaults to 0.'),
        paused: bool('Pauses the rollout.'),
        progressDeadlineSeconds: int32('Seconds the rollout may make no progress before it is reported as failed. Defaults to 600.'),
        replicas: int32('Desired number of pods. Defaults to 1.'),
        revisionHistoryLimit: int32('How many old ReplicaSets to keep for rollback. Defaults to 10.'),
        selector: ref(LABEL_SELECTOR, 'Label selector of the pods; must match the template\'s labels. Immutable in apps/v1.'),
        strategy: refObj(`${APPS}DeploymentStrategy`, 'How pods are replaced by new ones.', { 'x-kubernetes-patch-strategy': 'retainKeys' }),
        template: refObj(`${CORE}PodTemplateSpec`, 'The pods to create. Its restartPolicy must be Always.'),
      },
      { required: ['selector', 'template'] },
    ),
    [`${APPS}DeploymentStrategy`]: obj('How a deployment replaces pods.', {
      rollingUpdate: ref(`${APPS}RollingUpdateDeployment`, 'Parameters of a RollingUpdate.'),
      type: enumStr('Recreate or RollingUpdate (default).', ['Recreate', 'RollingUpdate']),
    }),
    [`${APPS}RollingUpdateDeployment`]: obj('Parameters of a rolling update.', {
      maxSurge: intOrString('How many pods may be created above the desired count, as a number or a percentage. Defaults to 25%.'),
      maxUnavailable: intOrString('How many pods may be unavailable during the update, as a number or a percentage. Defaults to 25%.'),
    }),
    [`${APPS}DeploymentStatus`]: obj('Observed state of a deployment.', {
      availableReplicas: int32('Pods ready for at least minReadySeconds.'),
      collisionCount: int32('Count of hash collisions, used to name new ReplicaSets.'),
      conditions: mapList(`${APPS}DeploymentCondition`, 'Latest observations: Available, Progressing, ReplicaFailure.', ['type']),
      observedGeneration: int64('The generation the controller last observed.'),
      readyReplicas: int32('Pods with a Ready condition.'),
      replicas: int32('Pods targeted by the deployment (their labels match the selector).'),
      terminatingReplicas: int32('Pods being terminated.'),
      unavailableReplicas: int32('Pods still needed for the deployment to have 100% available capacity.'),
      updatedReplicas: int32('Pods running the desired template.'),
    }),
    [`${APPS}DeploymentCondition`]: condition('Deployment'),
    [`${APPS}ReplicaSetSpec`]: obj(
      'Desired state of a ReplicaSet.',
      {
        minReadySeconds: int32('Seconds a new pod must be ready, without crashing, to count as available. Defaults to 0.'),
        replicas: int32('Desired number of pods. Defaults to 1.'),
        selector: refObj(LABEL_SELECTOR, 'Label selector of the pods; must match the template\'s labels.'),
        template: refObj(`${CORE}PodTemplateSpec`, 'The pods to create when too few exist.'),
      },
      { required: ['selector'] },
    ),
    [`${APPS}ReplicaSetStatus`]: obj(
      'Observed state of a ReplicaSet.',
      {
        availableReplicas: int32('Pods ready for at least minReadySeconds.'),
        conditions: mapList(`${APPS}ReplicaSetCondition`, 'Latest observations of the ReplicaSet\'s state.', ['type']),
        fullyLabeledReplicas: int32('Pods whose labels match the template\'s labels.'),
        observedGeneration: int64('The generation the controller last observed.'),
        readyReplicas: int32('Pods with a Ready condition.'),
        replicas: int32('The most recently observed number of pods.', { default: 0 }),
        terminatingReplicas: int32('Pods being terminated.'),
      },
      { required: ['replicas'] },
    ),
    [`${APPS}ReplicaSetCondition`]: condition('ReplicaSet'),
  };
  addKind(defs, APPS, 'apps', 'v1', 'Deployment', 'Declarative updates for pods, through ReplicaSets.', {
    spec: refObj(`${APPS}DeploymentSpec`, 'Desired behavior of the deployment.'),
    status: refObj(`${APPS}DeploymentStatus`, 'Most recently observed status of the deployment. Read-only.'),
  });
  addKind(defs, APPS, 'apps', 'v1', 'ReplicaSet', 'Keeps a number of identical pods running.', {
    spec: refObj(`${APPS}ReplicaSetSpec`, 'Desired behavior of the ReplicaSet.'),
    status: refObj(`${APPS}ReplicaSetStatus`, 'Most recently observed status of the ReplicaSet. Read-only.'),
  });
  return defs;
}
