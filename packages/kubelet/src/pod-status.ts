/**
 * The simulated container runtime as a pure function: given a pod, what the kubelet knows about
 * it (when it first saw it, its plan, its IPs) and the time, the status the pod has now and
 * when that will next change. No I/O and no timers, so every transition is testable.
 *
 * Init containers run one after the other from the pod's start (a sidecar, restartPolicy
 * Always, starts and the next one follows at once); the regular containers start when the last
 * one has completed, each running for its run time and exiting with its exit code, restarted
 * as the pod's restartPolicy says, with the kubelet's crash-loop backoff.
 */
import { rfc3339 } from '@kplane/api';
import type { kinds } from '@kplane/runtime';
import { containerAt, containerId, DEFAULT_BACKOFF, fakeDigest, terminatedState, type ContainerNow, type CrashBackoff, type CycleSpec, type PodIdentity } from './container-cycle.js';
import type { PodPlan } from './profile.js';

export { fakeDigest, restartBackoffMs } from './container-cycle.js';

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
  /** Containers waiting in CrashLoopBackOff, as `name:restartCount` (one BackOff event each). */
  backoff: string[];
}

type Phase = NonNullable<kinds.PodStatus['phase']>;

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

/** How long ErrImagePull shows before ImagePullBackOff. */
const SHOW_PULL_ERROR_MS = 1000;

const waiting = (reason: string, message?: string): ContainerNow => ({
  stage: reason,
  state: { waiting: message ? { reason, message } : { reason } },
  ready: false,
  started: false,
  restartCount: 0,
});

/** The state of every container of a live pod at one instant, and the phase it implies. */
interface PodNow {
  phase: Phase;
  /** The sandbox exists (the pod has its IP). */
  sandbox: boolean;
  inits: ContainerNow[];
  mains: ContainerNow[];
  /** Every regular init container has completed (the regular containers have started). */
  initialized: boolean;
}

/** The run time, exit code and restart rule of one container, from the plan. */
function cycleSpec(pod: kinds.Pod, plan: PodPlan, c: kinds.Container, startAt: number, init: boolean): CycleSpec {
  const own = plan.containers?.[c.name];
  const policy = pod.spec?.restartPolicy ?? 'Always';
  const backoff: CrashBackoff = { baseMs: plan.backoffMs ?? DEFAULT_BACKOFF.baseMs, maxMs: plan.maxBackoffMs ?? DEFAULT_BACKOFF.maxMs };
  if (init) {
    const sidecar = c.restartPolicy === 'Always';
    return {
      name: c.name,
      startAt,
      runMs: own?.runMs ?? (sidecar ? undefined : 0),
      exitCode: own?.exitCode ?? 0,
      restart: sidecar ? 'Always' : policy === 'Never' ? 'Never' : 'OnFailure',
      readyAfterMs: sidecar ? 0 : Infinity,
      backoff,
    };
  }
  const failing = plan.fail === 'CrashLoopBackOff' || plan.fail === 'Error';
  return {
    name: c.name,
    startAt,
    runMs: failing ? plan.failAfterMs : (own?.runMs ?? plan.runMs),
    exitCode: failing ? 1 : (own?.exitCode ?? plan.exitCode ?? 0),
    restart: policy,
    readyAfterMs: plan.fail === 'NotReady' ? Infinity : plan.readyAfterMs - plan.startAfterMs,
    backoff,
  };
}

/** The phase the kubelet's getPhase gives the regular containers' states (sidecars do not count). */
function phaseOf(pod: kinds.Pod, mains: ContainerNow[]): Phase {
  let running = 0;
  let stopped = 0;
  let succeeded = 0;
  let waitingFirst = 0;
  for (const m of mains) {
    if (m.state.running) running++;
    else if (m.done) {
      stopped++;
      if (m.done.exitCode === 0) succeeded++;
    } else if (m.state.terminated || m.state.waiting?.reason === 'CrashLoopBackOff') stopped++;
    else waitingFirst++;
  }
  if (waitingFirst > 0) return 'Pending';
  if (running > 0) return 'Running';
  const policy = pod.spec?.restartPolicy ?? 'Always';
  if (policy === 'Always') return 'Running';
  const allDone = mains.every((m) => m.done);
  if (allDone && stopped === succeeded) return 'Succeeded';
  if (allDone && policy === 'Never') return 'Failed';
  return 'Running';
}

/** Computes the state of the pod's containers at `now`. */
function podAt(pod: kinds.Pod, rec: PodRecord, now: number): PodNow & { nextAt?: number } {
  const plan = rec.plan;
  const id: PodIdentity = { uid: rec.uid, name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '' };
  const initSpecs = pod.spec?.initContainers ?? [];
  const mainSpecs = pod.spec?.containers ?? [];
  const start = rec.seenAt + plan.startAfterMs;
  if (now < start) {
    const reason = initSpecs.length ? 'PodInitializing' : 'ContainerCreating';
    return { phase: 'Pending', sandbox: false, initialized: false, inits: initSpecs.map(() => waiting('PodInitializing')), mains: mainSpecs.map(() => waiting(reason)), nextAt: start };
  }
  let nextAt: number | undefined;
  const next = (t: number | undefined) => {
    if (t !== undefined && (nextAt === undefined || t < nextAt)) nextAt = t;
  };
  // Init containers, in order: each starts when the one before has completed (a sidecar: started).
  let t = start;
  let blocked = false;
  let initFailed = false;
  const inits = initSpecs.map((c): ContainerNow => {
    if (blocked) return waiting('PodInitializing');
    const cs = containerAt(id, cycleSpec(pod, plan, c, t, true), now);
    next(cs.nextAt);
    if (c.restartPolicy === 'Always') return cs;
    if (cs.done?.exitCode === 0) {
      t = cs.done.at;
      return { ...cs, ready: true };
    }
    blocked = true;
    if (cs.done) initFailed = true;
    return cs;
  });
  if (blocked) {
    const mains = mainSpecs.map(() => waiting('PodInitializing'));
    return { phase: initFailed ? 'Failed' : 'Pending', sandbox: true, initialized: false, inits, mains, nextAt };
  }
  if (plan.fail === 'ImagePullBackOff' || plan.fail === 'ErrImagePull') {
    const err = now < t + SHOW_PULL_ERROR_MS;
    if (err) next(t + SHOW_PULL_ERROR_MS);
    const mains = mainSpecs.map((c) =>
      err
        ? waiting('ErrImagePull', `failed to pull image "${c.image ?? ''}": simulated by kplane (kplane.io/fail)`)
        : waiting('ImagePullBackOff', `Back-off pulling image "${c.image ?? ''}"`),
    );
    return { phase: 'Pending', sandbox: true, initialized: true, inits, mains, nextAt };
  }
  const mains = mainSpecs.map((c) => {
    const cs = containerAt(id, cycleSpec(pod, plan, c, t, false), now);
    next(cs.nextAt);
    return cs;
  });
  const phase = phaseOf(pod, mains);
  if (phase === 'Succeeded' || phase === 'Failed') {
    // The pod is done: its sidecars are stopped when the last regular container exits.
    const end = Math.max(...mains.map((m) => m.done?.at ?? 0));
    initSpecs.forEach((c, i) => {
      const cs = inits[i]!;
      if (c.restartPolicy !== 'Always' || !cs.state.running) return;
      const spec = cycleSpec(pod, plan, c, start, true);
      const s = Date.parse(cs.state.running.startedAt ?? '') || start;
      inits[i] = { ...cs, stage: 'stopped', state: terminatedState(id, spec, s, cs.restartCount, 0, end), ready: false, started: false, done: { at: end, exitCode: 0 }, nextAt: undefined };
    });
    nextAt = undefined;
  }
  return { phase, sandbox: true, initialized: true, inits, mains, nextAt };
}

const terminalPhase = (phase: Phase) => phase === 'Succeeded' || phase === 'Failed';

/**
 * The pod at `now` under its spec.activeDeadlineSeconds (counted from its startTime, as the
 * kubelet's active deadline handler does): a pod still live at the deadline is failed then,
 * reason DeadlineExceeded, its running containers stopped by SIGTERM (exit 143, Error).
 */
function withDeadline(pod: kinds.Pod, rec: PodRecord, now: number): PodNow & { nextAt?: number; deadlineExceeded?: boolean } {
  const seconds = pod.spec?.activeDeadlineSeconds;
  const p = podAt(pod, rec, now);
  if (seconds === undefined || seconds === null) return p;
  const deadline = rec.seenAt + seconds * 1000;
  if (now < deadline) return { ...p, nextAt: p.nextAt === undefined ? deadline : Math.min(p.nextAt, deadline) };
  const at = podAt(pod, rec, deadline);
  if (terminalPhase(at.phase)) return p;
  const stop = (c: kinds.Container, cs: ContainerNow): ContainerNow => {
    const running = cs.state.running;
    if (!running) return cs;
    const state: kinds.ContainerState = {
      terminated: { exitCode: 143, reason: 'Error', startedAt: running.startedAt, finishedAt: rfc3339(deadline), containerID: containerId(rec.uid, c.name, cs.restartCount) },
    };
    return { ...cs, stage: 'deadline', state, ready: false, started: false, done: { at: deadline, exitCode: 143 }, backoff: false, nextAt: undefined };
  };
  return {
    ...at,
    phase: 'Failed',
    inits: (pod.spec?.initContainers ?? []).map((c, i) => stop(c, at.inits[i]!)),
    mains: (pod.spec?.containers ?? []).map((c, i) => stop(c, at.mains[i]!)),
    nextAt: undefined,
    deadlineExceeded: true,
  };
}

function toContainerStatus(rec: PodRecord, c: kinds.Container, now: ContainerNow): kinds.ContainerStatus {
  const cs: kinds.ContainerStatus = {
    name: c.name,
    state: now.state,
    lastState: now.lastState ?? {},
    ready: now.ready,
    restartCount: now.restartCount,
    image: normalizeImage(c.image),
    imageID: now.state.waiting && now.restartCount === 0 ? '' : imageId(c.image),
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
  const p = withDeadline(pod, rec, now);
  const initSpecs = pod.spec?.initContainers ?? [];
  const mainSpecs = pod.spec?.containers ?? [];
  const sidecar = (c: kinds.Container) => c.restartPolicy === 'Always';
  const current = pod.status?.conditions ?? [];
  const terminal = terminalPhase(p.phase);
  const terminalReason = p.phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed';
  const unready = [...initSpecs.filter((c, i) => sidecar(c) && !p.inits[i]!.ready), ...mainSpecs.filter((_c, i) => !p.mains[i]!.ready)].map((c) => c.name);
  const containersReady = terminal
    ? condition('ContainersReady', false, terminalReason)
    : condition('ContainersReady', unready.length === 0, 'ContainersNotReady', `containers with unready status: [${unready.join(' ')}]`);
  const ready = terminal ? condition('Ready', false, terminalReason) : readyCondition(pod, containersReady, current);
  const incomplete = initSpecs.filter((c, i) => (sidecar(c) ? !p.inits[i]!.started : !p.inits[i]!.ready)).map((c) => c.name);
  let initialized: kinds.PodCondition;
  if (!initSpecs.length) initialized = condition('Initialized', true);
  else if (p.phase === 'Succeeded') initialized = { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  else if (p.initialized || incomplete.length === 0) initialized = condition('Initialized', true);
  else initialized = condition('Initialized', false, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`);
  const ours = [condition('PodReadyToStartContainers', p.sandbox && !terminal), initialized, ready, containersReady, condition('PodScheduled', true)];
  const time = rfc3339(now);
  const stamped = stamp(ours, current, time);
  // PodScheduled comes from the binding: keep its timestamps as they are.
  const scheduled = current.find((c) => c.type === 'PodScheduled' && c.status === 'True');
  if (scheduled) stamped[4] = scheduled;
  const status: kinds.PodStatus = {
    ...pod.status,
    phase: p.phase,
    conditions: [...stamped, ...current.filter((c) => !OWNED.has(c.type))],
    hostIP: rec.hostIP,
    hostIPs: [{ ip: rec.hostIP }],
    startTime: rfc3339(rec.seenAt),
    containerStatuses: mainSpecs.map((c, i) => toContainerStatus(rec, c, p.mains[i]!)),
  };
  if (p.deadlineExceeded) {
    status.reason = 'DeadlineExceeded';
    status.message = 'Pod was active on the node longer than the specified deadline';
  }
  if (p.sandbox && rec.podIP) {
    status.podIP = rec.podIP;
    status.podIPs = [{ ip: rec.podIP }];
  } else {
    delete status.podIP;
    delete status.podIPs;
  }
  if (initSpecs.length) status.initContainerStatuses = initSpecs.map((c, i) => toContainerStatus(rec, c, p.inits[i]!));
  else delete status.initContainerStatuses;
  const all = [...initSpecs.map((c, i) => [c, p.inits[i]!] as const), ...mainSpecs.map((c, i) => [c, p.mains[i]!] as const)];
  const stage = `${p.deadlineExceeded ? 'deadline|' : ''}${p.sandbox ? all.map(([, n]) => n.stage).join('|') : 'creating'}`;
  const backoff = all.filter(([, n]) => n.backoff).map(([c, n]) => `${c.name}:${n.restartCount}`);
  return { stage, status, nextAt: p.nextAt, backoff };
}

/**
 * The last status of a pod whose containers were stopped for its deletion: every running
 * container terminated (137 when the grace period ran out; otherwise 0 for restartPolicy
 * Always, the way a server shuts down on SIGTERM, and 143, SIGTERM's, for a Never/OnFailure
 * pod's unfinished work), not ready, and the terminal phase the kubelet sets before the pod is
 * removed: Succeeded when every regular container ended with exit 0, else Failed.
 */
export function stoppedPodStatus(pod: kinds.Pod, rec: PodRecord, now: number, killed: boolean): kinds.PodStatus {
  const live = simulatePod(pod, rec, now).status;
  const exitCode = killed ? 137 : (pod.spec?.restartPolicy ?? 'Always') === 'Always' ? 0 : 143;
  const finishedAt = rfc3339(now);
  const stop = (cs: kinds.ContainerStatus): kinds.ContainerStatus => {
    const running = cs.state?.running;
    if (!running) return { ...cs, ready: false, started: false };
    return {
      ...cs,
      ready: false,
      started: false,
      state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: running.startedAt, finishedAt, containerID: cs.containerID } },
    };
  };
  const containerStatuses = (live.containerStatuses ?? []).map(stop);
  const phase: Phase = containerStatuses.every((cs) => cs.state?.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
  const reason = phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed';
  const current = live.conditions ?? [];
  const replaced = stamp([condition('PodReadyToStartContainers', false), condition('Ready', false, reason), condition('ContainersReady', false, reason)], current, finishedAt);
  return {
    ...live,
    phase,
    conditions: current.map((c) => replaced.find((r) => r.type === c.type) ?? c),
    containerStatuses,
    ...(live.initContainerStatuses ? { initContainerStatuses: live.initContainerStatuses.map(stop) } : {}),
  };
}
