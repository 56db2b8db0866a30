/**
 * What the simulated containers "print": the lines the kubelet writes to a container's log as it
 * starts, becomes ready, is probed and stops, plus the lines a pod asks for by annotation.
 */
import type { kinds } from '@kplane/runtime';
import type { ContainerLogs } from './container-log.js';

/** Lines every container of the pod writes when it starts (one per line of the value). */
export const LOG_ANNOTATION = 'kplane.io/log';
/** `kplane.io/log.<container>`: lines that container writes when it starts (instead of `kplane.io/log`). */
export const LOG_ANNOTATION_PREFIX = 'kplane.io/log.';

/** What has been logged of one container. */
interface Logged {
  instance: number;
  started: boolean;
  ready: boolean;
  exited: boolean;
}

/** The logging state of one pod: per container, what has been written already. */
export type PodLogState = Map<string, Logged>;

/** The lines a container writes when it starts, from the pod's annotations. */
export function annotatedLines(pod: kinds.Pod, container: string): string[] {
  const a = pod.metadata?.annotations ?? {};
  const v = a[LOG_ANNOTATION_PREFIX + container] ?? a[LOG_ANNOTATION];
  if (v === undefined || v === '') return [];
  return v.replace(/\r?\n$/, '').split(/\r?\n/);
}

function probeText(p: kinds.Probe): string {
  if (p.httpGet) return `http-get ${p.httpGet.scheme === 'HTTPS' ? 'https' : 'http'}://:${p.httpGet.port}${p.httpGet.path ?? '/'}`;
  if (p.tcpSocket) return `tcp-socket :${p.tcpSocket.port}`;
  if (p.grpc) return `grpc :${p.grpc.port}`;
  if (p.exec) return `exec ${JSON.stringify(p.exec.command ?? [])}`;
  return 'probe';
}

/**
 * Writes the log lines the change from what was logged to `status` implies, at `now`:
 * a new instance (restart) rotates the log and starts with the start lines; readiness and
 * exits add a line each. Idempotent: calling it again with the same status writes nothing.
 */
export function logTransitions(logs: ContainerLogs, state: PodLogState, pod: kinds.Pod, uid: string, status: kinds.PodStatus, now: number): void {
  const pairs = [
    ...(pod.spec?.initContainers ?? []).map((c) => [c, status.initContainerStatuses] as const),
    ...(pod.spec?.containers ?? []).map((c) => [c, status.containerStatuses] as const),
  ];
  for (const [c, statuses] of pairs) {
    const cs = statuses?.find((s) => s.name === c.name);
    if (!cs) continue;
    const running = cs.state?.running !== undefined;
    const exited = cs.state?.terminated ?? (cs.restartCount && !running ? cs.lastState?.terminated : undefined);
    const instance = cs.restartCount ?? 0;
    let l = state.get(c.name);
    if (!running && !exited && !l) continue;
    if (l && instance > l.instance) {
      if (l.started && !l.exited) logs.write(uid, c.name, now, `kplane: container ${c.name} exited`);
      logs.restart(uid, c.name);
      l = undefined;
    }
    if (!l) {
      l = { instance, started: false, ready: false, exited: false };
      state.set(c.name, l);
    }
    if (!l.started && (running || exited)) {
      l.started = true;
      logs.write(uid, c.name, now, `kplane: started container ${c.name} (image ${c.image ?? ''}); simulated, no process runs`, ...annotatedLines(pod, c.name));
    }
    if (!l.ready && cs.ready && running) {
      l.ready = true;
      const probe = c.readinessProbe;
      logs.write(uid, c.name, now, probe ? `kplane: readiness probe ${probeText(probe)} succeeded; container ${c.name} is ready` : `kplane: container ${c.name} is ready`);
    }
    if (!l.exited && exited) {
      l.exited = true;
      logs.write(uid, c.name, now, `kplane: container ${c.name} exited with code ${exited.exitCode} (${exited.reason ?? 'Completed'})`);
      logs.stop(uid, c.name);
    }
  }
}

/** Writes the line of a container told to stop (the pod is being deleted). */
export function logStopping(logs: ContainerLogs, state: PodLogState, pod: kinds.Pod, uid: string, graceSeconds: number, now: number): void {
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const l = state.get(c.name);
    if (!l?.started || l.exited) continue;
    const preStop = c.lifecycle?.preStop?.sleep?.seconds;
    logs.write(uid, c.name, now, `kplane: container ${c.name} received SIGTERM (grace period ${graceSeconds}s)${preStop ? `, after its preStop sleep of ${preStop}s` : ''}`);
  }
}
