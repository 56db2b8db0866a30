/**
 * One simulated container over time, as a pure function: it starts, runs for a while (or for
 * ever), exits with an exit code and, when its restart policy says so, is restarted after the
 * kubelet's crash-loop backoff. Given the time, the state it is in and when that changes next.
 */
import { createHash } from 'node:crypto';
import { rfc3339 } from '@kplane/api';
import type { kinds } from '@kplane/runtime';

/** The kubelet's crash-loop backoff: the first wait, doubled after each restart up to the cap. */
export interface CrashBackoff {
  /** Wait before the second restart (kubelet: 10 s; at least 1 ms); the first restart comes at once (within a second). */
  baseMs: number;
  /** Cap of the wait (kubelet: 5 min; at least baseMs); a container that ran longer than twice this starts afresh. */
  maxMs: number;
}

/** Kubelet's crash-loop backoff: 10 s doubling to 5 min. */
export const DEFAULT_BACKOFF: CrashBackoff = { baseMs: 10_000, maxMs: 300_000 };

/** How long an exited container shows as terminated before it restarts or waits in CrashLoopBackOff. */
const SHOW_EXIT_MS = 1000;


/** Deterministic hex digest (64 chars) of a string: fake container and image ids. */
export function fakeDigest(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

/** The containerd id of instance `restart` of a container. */
export function containerId(uid: string, name: string, restart: number): string {
  return `containerd://${fakeDigest(`${uid}/${name}/${restart}`)}`;
}

/** A duration as Go's time.Duration prints it: "500ms", "10s", "1m20s", "5m0s", "1h0m0s". */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  let s = ms / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const sec = `${Number(s.toFixed(3))}s`;
  if (h) return `${h}h${m}m${sec}`;
  if (m) return `${m}m${sec}`;
  return sec;
}

/**
 * The wait before the restart that follows exit number k (from 0) of a container that runs
 * `runMs` each time: the first restart at once (the kubelet's next sync, about 1 s), then
 * `baseMs` doubling up to `maxMs`; a container that ran longer than 2 × maxMs has its backoff
 * reset, as the kubelet forgets a backoff entry that old.
 */
export function restartBackoffMs(k: number, runMs = 0, backoff: CrashBackoff = DEFAULT_BACKOFF): number {
  const { baseMs: base, maxMs: max } = usable(backoff);
  const first = Math.min(SHOW_EXIT_MS, base);
  if (k === 0 || runMs > 2 * max) return first;
  return Math.min(base * 2 ** Math.min(k - 1, 60), max);
}

/** The backoff with its base at least 1 ms and its cap at least the base. */
function usable(b: CrashBackoff): CrashBackoff {
  const baseMs = Math.max(1, b.baseMs);
  return { baseMs, maxMs: Math.max(baseMs, b.maxMs) };
}

/** How one container behaves. Times in clock ms. */
export interface CycleSpec {
  name: string;
  /** When its first instance starts. */
  startAt: number;
  /** How long each instance runs before it exits; undefined: until it is stopped. */
  runMs?: number;
  exitCode: number;
  /** Whether an exited instance is restarted: always, on a non-zero exit, or never. */
  restart: 'Always' | 'OnFailure' | 'Never';
  /** Ready this long after each start (Infinity: never). */
  readyAfterMs: number;
  backoff: CrashBackoff;
}

/** Where the pod's identity goes in messages: `name_namespace(uid)`, as the kubelet's format.Pod. */
export interface PodIdentity {
  uid: string;
  name: string;
  namespace: string;
}

/** A container's state at one instant. */
export interface ContainerNow {
  /** Names the state; changes whenever the status does. */
  stage: string;
  state: kinds.ContainerState;
  lastState?: kinds.ContainerState;
  ready: boolean;
  started: boolean;
  restartCount: number;
  /** Exited for good (not to be restarted): when, and with what code. */
  done?: { at: number; exitCode: number };
  /** Waiting in CrashLoopBackOff. */
  backoff?: boolean;
  /** Clock ms of the next change, if any. */
  nextAt?: number;
}

/** The terminated state of instance k of a container that started at `s`. */
export function terminatedState(id: PodIdentity, spec: CycleSpec, s: number, k: number, exitCode = spec.exitCode, finishedAt = s + (spec.runMs ?? 0)): kinds.ContainerState {
  return {
    terminated: {
      exitCode,
      reason: exitCode === 0 ? 'Completed' : 'Error',
      startedAt: rfc3339(s),
      finishedAt: rfc3339(finishedAt),
      containerID: containerId(id.uid, spec.name, k),
    },
  };
}

/**
 * The state of a container at `now` (at or after `spec.startAt`): running, just exited,
 * waiting in CrashLoopBackOff, or exited for good; restartCount counts the instances before
 * the current one, lastState is the previous instance's end.
 */
export function containerAt(id: PodIdentity, spec: CycleSpec, now: number): ContainerNow {
  const run = spec.runMs;
  const s0 = spec.startAt;
  if (run === undefined) {
    const readyAt = s0 + spec.readyAfterMs;
    const ready = now >= readyAt;
    return {
      stage: ready ? 'ready' : 'running',
      state: { running: { startedAt: rfc3339(s0) } },
      ready,
      started: true,
      restartCount: 0,
      nextAt: ready || !Number.isFinite(readyAt) ? undefined : readyAt,
    };
  }
  const restarts = spec.restart === 'Always' || (spec.restart === 'OnFailure' && spec.exitCode !== 0);
  const term = (s: number, k: number) => terminatedState(id, spec, s, k);
  const { maxMs } = usable(spec.backoff);
  // Walk the instances up to now: instance k runs from s and exits at s + run.
  let s = s0;
  let prevStart = 0;
  for (let k = 0; ; k++) {
    const exit = s + run;
    const lastState = k > 0 ? term(prevStart, k - 1) : undefined;
    if (now < exit) {
      const readyAt = s + spec.readyAfterMs;
      const ready = now >= readyAt;
      return {
        stage: `${k}:${ready ? 'ready' : 'running'}`,
        state: { running: { startedAt: rfc3339(s) } },
        lastState,
        ready,
        started: true,
        restartCount: k,
        nextAt: ready || readyAt >= exit ? exit : readyAt,
      };
    }
    if (!restarts) {
      return { stage: `${k}:done`, state: term(s, k), lastState, ready: false, started: false, restartCount: k, done: { at: exit, exitCode: spec.exitCode } };
    }
    const wait = restartBackoffMs(k, run, spec.backoff);
    if (now < exit + wait) {
      const showUntil = exit + Math.min(SHOW_EXIT_MS, wait / 2);
      if (now < showUntil || k === 0) {
        return { stage: `${k}:exited`, state: term(s, k), lastState, ready: false, started: false, restartCount: k, nextAt: k === 0 ? exit + wait : showUntil };
      }
      const message = `back-off ${goDuration(wait)} restarting failed container=${spec.name} pod=${id.name}_${id.namespace}(${id.uid})`;
      return {
        stage: `${k}:backoff`,
        state: { waiting: { reason: 'CrashLoopBackOff', message } },
        lastState: term(s, k),
        ready: false,
        started: false,
        restartCount: k,
        backoff: true,
        nextAt: exit + wait,
      };
    }
    prevStart = s;
    s = exit + wait;
    // Once the wait no longer grows (capped, or reset after each long run), every cycle has the
    // same length: skip the whole ones before `now` instead of walking them.
    if (k >= 1 && (wait >= maxMs || run > 2 * maxMs)) {
      const period = run + wait;
      const skip = Math.floor((now - s) / period) - 1;
      if (skip > 0) {
        s += skip * period;
        prevStart = s - period;
        k += skip;
      }
    }
  }
}
