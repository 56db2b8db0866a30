/**
 * The simulated container runtime as a pure function: given a pod, what the kubelet knows about
 * it (when it first saw it, its plan, its IPs) and the time, the status the pod has now and
 * when that will next change. No I/O and no timers, so every transition is testable.
 */
import { createHash } from 'node:crypto';
import type { kinds } from '@kplane/runtime';
import type { PodPlan } from './profile.js';

/** What the kubelet remembers about one pod (times in clock ms). */
export interface PodRecord {
  uid: string;
  /** When the kubelet first saw the pod: the origin of its plan's delays. */
  seenAt: number;
  plan: PodPlan;
  hostIP: string;
  podIP?: string;
}

/** The status a pod should have at some instant. */
export interface SimulatedStatus {
  /** Names the state; the kubelet writes the status only when this changes. */
  stage: string;
  status: kinds.PodStatus;
  /** Clock ms of the next change, if any. */
  nextAt?: number;
}

/** A container's state at one instant, before it is dressed as a ContainerStatus. */
interface ContainerNow {
  state: kinds.ContainerState;
  lastState?: kinds.ContainerState;
  ready: boolean;
  started: boolean;
  restartCount: number;
}

type Phase = NonNullable<kinds.PodStatus['phase']>;

/** RFC 3339 with seconds precision, as metav1.Time is serialised. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Deterministic hex digest (64 chars) of a string: fake container and image ids. */
export function fakeDigest(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

/** The image reference as containerd reports it: "nginx" → "docker.io/library/nginx:latest". */
export function normalizeImage(image: string | undefined): string {
  if (!image) return '';
  let ref = image;
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  if (slash < 0) ref = `docker.io/library/${ref}`;
  else if (!first.includes('.') && !first.includes(':') && first !== 'localhost') ref = `docker.io/${ref}`;
  const lastSlash = ref.lastIndexOf('/');
  if (!ref.includes('@') && !ref.slice(lastSlash + 1).includes(':')) ref += ':latest';
  return ref;
}

const imageIds = new Map<string, string>();

function imageId(image: string | undefined): string {
  const cached = imageIds.get(image ?? '');
  if (cached !== undefined) return cached;
  const id = computeImageId(image);
  if (imageIds.size > 10_000) imageIds.clear();
  imageIds.set(image ?? '', id);
  return id;
}

function computeImageId(image: string | undefined): string {
  const ref = normalizeImage(image);
  const at = ref.indexOf('@');
  if (at >= 0) return ref;
  const lastSlash = ref.lastIndexOf('/');
  const colon = ref.indexOf(':', lastSlash);
  return `${colon >= 0 ? ref.slice(0, colon) : ref}@sha256:${fakeDigest(`image/${ref}`)}`;
}

function containerId(uid: string, name: string, restart: number): string {
  return `containerd://${fakeDigest(`${uid}/${name}/${restart}`)}`;
}

/** Backoff before restart number k+1 after the k-th exit (k from 0): 1 s, then 10 s doubling to 5 min. */
export function restartBackoffMs(k: number): number {
  return k === 0 ? 1000 : Math.min(10_000 * 2 ** (k - 1), 300_000);
}

/** How long an exited container shows as terminated before CrashLoopBackOff. */
const SHOW_EXIT_MS = 1000;
/** How long ErrImagePull shows before ImagePullBackOff. */
const SHOW_PULL_ERROR_MS = 1000;

interface Timeline {
  stage: string;
  phase: Phase;
  main: (c: kinds.Container) => ContainerNow;
  /** Containers have started at least once (the sandbox exists, the pod has its IP). */
  sandbox: boolean;
  nextAt?: number;
}

const waiting = (reason: string, message?: string): kinds.ContainerState => ({ waiting: message ? { reason, message } : { reason } });

/** Computes the state of the pod's main containers at `now`. */
function timeline(pod: kinds.Pod, rec: PodRecord, now: number): Timeline {
  const plan = rec.plan;
  const t0 = rec.seenAt;
  const start = t0 + plan.startAfterMs;
  const hasInit = (pod.spec?.initContainers ?? []).length > 0;
  if (now < start) {
    const reason = hasInit ? 'PodInitializing' : 'ContainerCreating';
    return { stage: 'creating', phase: 'Pending', sandbox: false, nextAt: start, main: () => ({ state: waiting(reason), ready: false, started: false, restartCount: 0 }) };
  }
  if (plan.fail === 'ImagePullBackOff' || plan.fail === 'ErrImagePull') {
    const err = now < start + SHOW_PULL_ERROR_MS;
    return {
      stage: err ? 'pull-error' : 'pull-backoff',
      phase: 'Pending',
      sandbox: true,
      nextAt: err ? start + SHOW_PULL_ERROR_MS : undefined,
      main: (c) => ({
        state: err
          ? waiting('ErrImagePull', `failed to pull image "${c.image ?? ''}": simulated by kplane (kplane.io/fail)`)
          : waiting('ImagePullBackOff', `Back-off pulling image "${c.image ?? ''}"`),
        ready: false,
        started: false,
        restartCount: 0,
      }),
    };
  }
  const readyAfter = plan.fail === 'NotReady' ? Infinity : plan.readyAfterMs - plan.startAfterMs;
  const runFor = plan.fail === 'CrashLoopBackOff' || plan.fail === 'Error' ? plan.failAfterMs : plan.completeAfterMs;
  const startedAt = (s: number) => rfc3339(s);
  if (runFor === undefined) {
    const ready = now >= start + readyAfter;
    return {
      stage: ready ? 'ready' : 'running',
      phase: 'Running',
      sandbox: true,
      nextAt: ready || readyAfter === Infinity ? undefined : start + readyAfter,
      main: () => ({ state: { running: { startedAt: startedAt(start) } }, ready, started: true, restartCount: 0 }),
    };
  }
  const failing = plan.fail === 'CrashLoopBackOff' || plan.fail === 'Error';
  const exitCode = failing ? 1 : 0;
  const exitReason = failing ? 'Error' : 'Completed';
  const policy = pod.spec?.restartPolicy ?? 'Always';
  const restarts = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
  const terminated = (s: number, c: kinds.Container, k: number): kinds.ContainerState => ({
    terminated: { exitCode, reason: exitReason, startedAt: rfc3339(s), finishedAt: rfc3339(s + runFor), containerID: containerId(rec.uid, c.name, k) },
  });
  // Walk the restart cycles up to now: cycle k runs from s, exits at s + runFor.
  let s = start;
  let k = 0;
  for (;;) {
    const exit = s + runFor;
    if (now < exit) {
      const ready = now >= s + readyAfter;
      const prev = k > 0 ? s - restartBackoffMs(k - 1) - runFor : 0;
      return {
        stage: `${k}:${ready ? 'ready' : 'running'}`,
        phase: 'Running',
        sandbox: true,
        nextAt: ready || s + readyAfter >= exit ? exit : s + readyAfter,
        main: (c) => ({
          state: { running: { startedAt: startedAt(s) } },
          lastState: k > 0 ? terminated(prev, c, k - 1) : undefined,
          ready,
          started: true,
          restartCount: k,
        }),
      };
    }
    if (!restarts) {
      const runAt = s;
      const kk = k;
      return {
        stage: `${k}:done`,
        phase: exitCode === 0 ? 'Succeeded' : 'Failed',
        sandbox: true,
        main: (c) => ({ state: terminated(runAt, c, kk), ready: false, started: false, restartCount: kk }),
      };
    }
    const backoff = restartBackoffMs(k);
    if (now < exit + backoff) {
      const showExit = now < exit + Math.min(SHOW_EXIT_MS, backoff);
      const runAt = s;
      const kk = k;
      return {
        stage: `${k}:${showExit ? 'exited' : 'backoff'}`,
        phase: 'Running',
        sandbox: true,
        nextAt: showExit ? exit + Math.min(SHOW_EXIT_MS, backoff) : exit + backoff,
        main: (c) =>
          showExit
            ? { state: terminated(runAt, c, kk), ready: false, started: false, restartCount: kk }
            : {
                state: waiting('CrashLoopBackOff', `back-off ${backoff / 1000}s restarting failed container=${c.name} pod=${pod.metadata?.name}_${pod.metadata?.namespace}(${rec.uid})`),
                lastState: terminated(runAt, c, kk),
                ready: false,
                started: false,
                restartCount: kk,
              },
      };
    }
    s = exit + backoff;
    k++;
  }
}

function toContainerStatus(rec: PodRecord, c: kinds.Container, now: ContainerNow): kinds.ContainerStatus {
  const cs: kinds.ContainerStatus = {
    name: c.name,
    state: now.state,
    lastState: now.lastState ?? {},
    ready: now.ready,
    restartCount: now.restartCount,
    image: normalizeImage(c.image),
    imageID: now.state.waiting ? '' : imageId(c.image),
    started: now.started,
  };
  if (!now.state.waiting || now.restartCount > 0) cs.containerID = now.state.terminated?.containerID ?? containerId(rec.uid, c.name, now.restartCount);
  return cs;
}

function condition(type: string, ok: boolean, reason?: string, message?: string): kinds.PodCondition {
  const c: kinds.PodCondition = { type, status: ok ? 'True' : 'False' };
  if (!ok && reason) c.reason = reason;
  if (!ok && message) c.message = message;
  return c;
}

/** Fills lastTransitionTime (kept from `current` when the status did not change) and lastProbeTime. */
function stamp(conditions: kinds.PodCondition[], current: kinds.PodCondition[], now: string): kinds.PodCondition[] {
  return conditions.map((c) => {
    const old = current.find((o) => o.type === c.type);
    return { ...c, lastProbeTime: null as unknown as string, lastTransitionTime: old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now };
  });
}

const OWNED = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);

/** Ready from ContainersReady and the pod's readiness gates (kubelet's GeneratePodReadyCondition). */
function readyCondition(pod: kinds.Pod, containersReady: kinds.PodCondition, current: kinds.PodCondition[]): kinds.PodCondition {
  if (containersReady.status !== 'True') return { ...containersReady, type: 'Ready' };
  const missing: string[] = [];
  const unready: string[] = [];
  for (const g of pod.spec?.readinessGates ?? []) {
    const c = current.find((x) => x.type === g.conditionType);
    if (!c) missing.push(`corresponding condition of pod readiness gate "${g.conditionType}" does not exist.`);
    else if (c.status !== 'True') unready.push(`the status of pod readiness gate "${g.conditionType}" is not "True", but ${c.status}`);
  }
  const msgs = [...missing, ...unready];
  return msgs.length ? condition('Ready', false, 'ReadinessGatesNotReady', msgs.join(', ')) : condition('Ready', true);
}

/**
 * The status of a live (not deleting) pod at `now`: phase, conditions, IPs, start time and
 * container statuses. Fields the kubelet does not own (qosClass, other conditions) are kept
 * from the pod's current status.
 */
export function simulatePod(pod: kinds.Pod, rec: PodRecord, now: number): SimulatedStatus {
  const tl = timeline(pod, rec, now);
  const containers = pod.spec?.containers ?? [];
  const inits = pod.spec?.initContainers ?? [];
  const mains = containers.map((c) => ({ c, now: tl.main(c) }));
  const startAt = rec.seenAt + rec.plan.startAfterMs;
  const initStatuses = inits.map((c): kinds.ContainerStatus => {
    const sidecar = c.restartPolicy === 'Always';
    if (!tl.sandbox) {
      return toContainerStatus(rec, c, { state: waiting('PodInitializing'), ready: false, started: false, restartCount: 0 });
    }
    const state: kinds.ContainerState = sidecar
      ? { running: { startedAt: rfc3339(startAt) } }
      : { terminated: { exitCode: 0, reason: 'Completed', startedAt: rfc3339(startAt), finishedAt: rfc3339(startAt), containerID: containerId(rec.uid, c.name, 0) } };
    return toContainerStatus(rec, c, { state, ready: sidecar && tl.phase === 'Running', started: sidecar, restartCount: 0 });
  });
  const current = pod.status?.conditions ?? [];
  const terminal = tl.phase === 'Succeeded' || tl.phase === 'Failed';
  const unready = mains.filter((m) => !m.now.ready).map((m) => m.c.name);
  const initDone = tl.sandbox;
  const containersReady = terminal && tl.phase === 'Succeeded'
    ? condition('ContainersReady', false, 'PodCompleted')
    : condition('ContainersReady', unready.length === 0, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`);
  const ready = terminal && tl.phase === 'Succeeded' ? condition('Ready', false, 'PodCompleted') : readyCondition(pod, containersReady, current);
  const ours = [
    condition('PodReadyToStartContainers', tl.sandbox && !terminal),
    inits.length && !initDone
      ? condition('Initialized', false, 'ContainersNotInitialized', `containers with incomplete status: [${inits.filter((c) => c.restartPolicy !== 'Always').map((c) => c.name).join(' ')}]`)
      : condition('Initialized', true),
    ready,
    containersReady,
    condition('PodScheduled', true),
  ];
  const time = rfc3339(now);
  const stamped = stamp(ours, current, time);
  // PodScheduled comes from the binding: keep its timestamps as they are.
  const scheduled = current.find((c) => c.type === 'PodScheduled' && c.status === 'True');
  if (scheduled) stamped[4] = scheduled;
  const status: kinds.PodStatus = {
    ...pod.status,
    phase: tl.phase,
    conditions: [...stamped, ...current.filter((c) => !OWNED.has(c.type))],
    hostIP: rec.hostIP,
    hostIPs: [{ ip: rec.hostIP }],
    startTime: rfc3339(rec.seenAt),
    containerStatuses: mains.map((m) => toContainerStatus(rec, m.c, m.now)),
  };
  if (tl.sandbox && rec.podIP) {
    status.podIP = rec.podIP;
    status.podIPs = [{ ip: rec.podIP }];
  } else {
    delete status.podIP;
    delete status.podIPs;
  }
  if (inits.length) status.initContainerStatuses = initStatuses;
  else delete status.initContainerStatuses;
  return { stage: tl.stage, status, nextAt: tl.nextAt };
}

/**
 * The last status of a pod whose containers were stopped for its deletion: every container
 * terminated (exit 0, or 137 when the grace period ran out), not ready, and the terminal phase
 * the kubelet sets before the pod is removed.
 */
export function stoppedPodStatus(pod: kinds.Pod, rec: PodRecord, now: number, killed: boolean): kinds.PodStatus {
  const live = simulatePod(pod, rec, now).status;
  const exitCode = killed ? 137 : 0;
  const finishedAt = rfc3339(now);
  const stop = (cs: kinds.ContainerStatus): kinds.ContainerStatus => {
    const running = cs.state?.running;
    if (!running) return { ...cs, ready: false, started: false };
    return {
      ...cs,
      ready: false,
      started: false,
      state: { terminated: { exitCode, reason: killed ? 'Error' : 'Completed', startedAt: running.startedAt, finishedAt, containerID: cs.containerID } },
    };
  };
  const phase: Phase = killed ? 'Failed' : 'Succeeded';
  const notReady = (type: string): kinds.PodCondition =>
    killed ? condition(type, false, 'ContainersNotReady', `containers with unready status: [${(pod.spec?.containers ?? []).map((c) => c.name).join(' ')}]`) : condition(type, false, 'PodCompleted');
  const current = live.conditions ?? [];
  const replaced = stamp([condition('PodReadyToStartContainers', false), notReady('Ready'), notReady('ContainersReady')], current, finishedAt);
  return {
    ...live,
    phase,
    conditions: current.map((c) => replaced.find((r) => r.type === c.type) ?? c),
    containerStatuses: (live.containerStatuses ?? []).map(stop),
    ...(live.initContainerStatuses ? { initContainerStatuses: live.initContainerStatuses.map(stop) } : {}),
  };
}
