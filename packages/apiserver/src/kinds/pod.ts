/** core/v1 pods: defaults, admission-time additions, validation, Table columns and field selectors. */
import type { KubeObject, StatusCause } from '@kplane/api';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { admitNewPod, admitPodUpdate, defaultPod, initialPodStatus } from './pod-defaults.js';
import { validatePodSpec, validatePodSpecUpdate } from './pod-validation.js';
import { STANDARD_VERBS, asObj, objs, str, type Obj } from './util.js';

const NAME_DESC = 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DESC = 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The Name column every table starts with. */
export const NAME_COLUMN = { name: 'Name', type: 'string', format: 'name', description: NAME_DESC, priority: 0 };
/** The Age column (already formatted as a human duration). */
export const AGE_COLUMN = { name: 'Age', type: 'string', description: AGE_DESC, priority: 0 };

interface ContainerStatus {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  started?: boolean;
  state?: { waiting?: { reason?: string }; running?: object; terminated?: { reason?: string; exitCode?: number; signal?: number } };
  lastState?: { terminated?: { finishedAt?: string } };
}

function laterOf(a: string, b: string | undefined): string {
  if (!b) return a;
  return !a || Date.parse(b) > Date.parse(a) ? b : a;
}

/** The STATUS, READY and RESTARTS cells of a pod, as printers.go's printPod computes them. */
export function podStatusCells(pod: KubeObject, now: Date): { ready: string; reason: string; restarts: string } {
  const spec = (asObj(pod.spec) ?? {}) as Obj;
  const status = (asObj(pod.status) ?? {}) as Obj;
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  for (const c of objs(status.conditions)) if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  const initContainers = new Map(objs(spec.initContainers).map((c) => [str(c.name), c]));
  const restartable = (name: string | undefined) => initContainers.get(name ?? '')?.restartPolicy === 'Always';
  const total = objs(spec.containers).length + [...initContainers.values()].filter((c) => c.restartPolicy === 'Always').length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart = '';
  let lastSidecarRestart = '';
  let initializing = false;
  const initStatuses = objs(status.initContainerStatuses) as ContainerStatus[];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i]!;
    restarts += c.restartCount ?? 0;
    lastRestart = laterOf(lastRestart, c.lastState?.terminated?.finishedAt);
    if (restartable(c.name)) {
      sidecarRestarts += c.restartCount ?? 0;
      lastSidecarRestart = laterOf(lastSidecarRestart, c.lastState?.terminated?.finishedAt);
    }
    const term = c.state?.terminated;
    const waiting = c.state?.waiting;
    if (term && (term.exitCode ?? 0) === 0) continue;
    if (restartable(c.name) && c.started) {
      if (c.ready) ready++;
      continue;
    }
    if (term) {
      reason = term.reason ? `Init:${term.reason}` : term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode ?? 0}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initContainers.size}`;
    }
    initializing = true;
    break;
  }
  const initialized = objs(status.conditions).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = objs(status.containerStatuses) as ContainerStatus[];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      restarts += c.restartCount ?? 0;
      lastRestart = laterOf(lastRestart, c.lastState?.terminated?.finishedAt);
      const term = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (term?.reason) reason = term.reason;
      else if (term) reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode ?? 0}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = objs(status.conditions).some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  const restartsCell = restarts !== 0 && lastRestart ? `${restarts} (${translateTimestampSince(lastRestart, now)} ago)` : String(restarts);
  return { ready: `${ready}/${total}`, reason, restarts: restartsCell };
}

const podTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.', priority: 0 },
    { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', priority: 0 },
    { name: 'Restarts', type: 'string', description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.', priority: 0 },
    AGE_COLUMN,
    { name: 'IP', type: 'string', description: 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', priority: 1 },
    { name: 'Node', type: 'string', description: 'NodeName indicates in which node this pod is scheduled.', priority: 1 },
    { name: 'Nominated Node', type: 'string', description: 'nominatedNodeName is set when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.', priority: 1 },
    { name: 'Readiness Gates', type: 'string', description: 'If specified, all readiness gates will be evaluated for pod readiness.', priority: 1 },
  ],
  rowConditions(pod) {
    const phase = str((asObj(pod.status) ?? {}).phase);
    if (phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    return undefined;
  },
  row(pod, now) {
    const spec = (asObj(pod.spec) ?? {}) as Obj;
    const status = (asObj(pod.status) ?? {}) as Obj;
    const cells = podStatusCells(pod, now);
    const podIP = str(objs(status.podIPs)[0]?.ip) || '<none>';
    const gates = objs(spec.readinessGates);
    let readinessGates = '<none>';
    if (gates.length > 0) {
      const conds = objs(status.conditions);
      const trueCount = gates.filter((g) => conds.find((c) => c.type === g.conditionType)?.status === 'True').length;
      readinessGates = `${trueCount}/${gates.length}`;
    }
    return [
      pod.metadata?.name ?? '',
      cells.ready,
      cells.reason,
      cells.restarts,
      translateTimestampSince(pod.metadata?.creationTimestamp, now),
      podIP,
      str(spec.nodeName) || '<none>',
      str(status.nominatedNodeName) || '<none>',
      readinessGates,
    ];
  },
};

function podSpec(obj: KubeObject): Obj {
  return (asObj(obj.spec) ?? {}) as Obj;
}

function podStatus(obj: KubeObject): Obj {
  return (asObj(obj.status) ?? {}) as Obj;
}

/** The pods resource. */
export function podResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    listKind: 'PodList',
    singular: 'pod',
    shortNames: ['po'],
    categories: ['all'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/pods',
    schemaName: 'io.k8s.api.core.v1.Pod',
    strategy: {
      generation: false,
      returnDeletedObject: true,
      defaults(obj) {
        defaultPod(obj as Obj);
        if (obj.status === undefined) obj.status = initialPodStatus(obj as Obj);
      },
      prepareForCreate(obj) {
        admitNewPod(obj as Obj);
      },
      admitUpdate(obj, old, req) {
        if (!req.subresource) admitPodUpdate(obj as Obj, old as Obj);
      },
      validate(obj, old): StatusCause[] {
        const out = validatePodSpec(podSpec(obj), 'spec');
        if (old) out.push(...validatePodSpecUpdate(podSpec(obj), podSpec(old)));
        return out;
      },
      deletionGracePeriod(obj, requested) {
        const spec = podSpec(obj);
        const phase = str(podStatus(obj).phase);
        let period = requested ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30);
        if (!str(spec.nodeName) || phase === 'Succeeded' || phase === 'Failed') period = 0;
        return period < 0 ? 1 : period;
      },
      table: podTable,
      fieldSelectors: {
        'spec.nodeName': (o) => str(podSpec(o).nodeName),
        'spec.restartPolicy': (o) => str(podSpec(o).restartPolicy),
        'spec.schedulerName': (o) => str(podSpec(o).schedulerName),
        'spec.serviceAccountName': (o) => str(podSpec(o).serviceAccountName),
        'spec.hostNetwork': (o) => String(podSpec(o).hostNetwork === true),
        'status.phase': (o) => str(podStatus(o).phase),
        'status.podIP': (o) => str(objs(podStatus(o).podIPs)[0]?.ip) || str(podStatus(o).podIP),
        'status.nominatedNodeName': (o) => str(podStatus(o).nominatedNodeName),
      },
    },
  };
}
