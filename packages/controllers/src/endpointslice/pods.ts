/**
 * What the endpoint controllers read from a Service and its pods (kube's endpoint utilities):
 * which pods count, their readiness, addresses and ports resolved from targetPort, the hostname
 * rule, and the time of the last change an update stems from.
 */

import type { Pod, Service } from '@kplane/runtime';

/** The label naming a slice's Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** The label naming the controller that manages a slice. */
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** The endpointslice controller's value of MANAGED_BY_LABEL. */
export const MANAGED_BY = 'endpointslice-controller.k8s.io';
/** Set (empty) on the endpoints of headless Services. */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** When the change the endpoints reflect happened. */
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

/** A resolved port of a Service for one pod. */
export interface ResolvedPort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

/** The Service's pod selector, or undefined when it has none (its endpoints are not managed). */
export function serviceSelector(svc: Service): Record<string, string> | undefined {
  const sel = svc.spec?.selector;
  return sel && Object.keys(sel).length > 0 ? sel : undefined;
}

/** Does the Service select this pod (same namespace, labels match)? */
export function selects(svc: Service, pod: Pod): boolean {
  const sel = serviceSelector(svc);
  if (!sel || pod.metadata?.namespace !== svc.metadata?.namespace) return false;
  const labels = pod.metadata?.labels ?? {};
  return Object.entries(sel).every(([k, v]) => labels[k] === v);
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The pod's IPs (status.podIPs, else status.podIP). */
export function podIPs(pod: Pod): string[] {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => !!ip);
  if (ips.length > 0) return ips;
  return pod.status?.podIP ? [pod.status.podIP] : [];
}

/**
 * ShouldPodBeInEndpoints: a pod with an IP that has not finished for good (a Never pod that
 * ended, an OnFailure pod that succeeded), and, unless `includeTerminating`, not deleting.
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  const phase = pod.status?.phase;
  const restart = pod.spec?.restartPolicy ?? 'Always';
  if (restart === 'Never' && (phase === 'Failed' || phase === 'Succeeded')) return false;
  if (restart === 'OnFailure' && phase === 'Succeeded') return false;
  if (podIPs(pod).length === 0) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp) return false;
  return true;
}

/** ShouldSetHostname: the pod names this Service as its subdomain and has a hostname. */
export function hostnameFor(pod: Pod, svc: Service): string | undefined {
  const hostname = pod.spec?.hostname;
  return hostname && pod.spec?.subdomain === svc.metadata?.name && pod.metadata?.namespace === svc.metadata?.namespace ? hostname : undefined;
}

/**
 * FindPort: a numeric targetPort as is; a named one is the container port of that name and
 * protocol (undefined when the pod has none).
 */
export function findPort(pod: Pod, targetPort: number | string | undefined, port: number, protocol: string): number | undefined {
  if (targetPort === undefined || targetPort === '' || targetPort === 0) return port;
  if (typeof targetPort === 'number') return targetPort;
  if (/^\d+$/.test(targetPort)) return Number(targetPort);
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === targetPort && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
  }
  return undefined;
}

/**
 * The Service's ports as this pod serves them, in the Service's order; a port whose named
 * targetPort the pod does not declare is left out (as kube's controllers do).
 */
export function resolvePorts(svc: Service, pod: Pod): ResolvedPort[] {
  const out: ResolvedPort[] = [];
  for (const sp of svc.spec?.ports ?? []) {
    const protocol = sp.protocol ?? 'TCP';
    const port = findPort(pod, sp.targetPort as number | string | undefined, sp.port, protocol);
    if (port === undefined) continue;
    const r: ResolvedPort = { name: sp.name ?? '', port, protocol };
    if (sp.appProtocol) r.appProtocol = sp.appProtocol;
    out.push(r);
  }
  return out;
}

/** The time a pod's change counts from: its Ready condition's last transition. */
export function podTriggerTime(pod: Pod): string | undefined {
  return (pod.status?.conditions ?? []).find((c) => c.type === 'Ready')?.lastTransitionTime ?? undefined;
}

/**
 * kube's TriggerTimeTracker: the endpoints.kubernetes.io/last-change-trigger-time of a sync is
 * the earliest change not yet reflected — a pod whose Ready transition (or that is new) since
 * the last sync of its Service, or the Service itself when it was never synced.
 */
export class TriggerTimeTracker {
  private readonly seen = new Map<string, Map<string, { pod: Pod; t: string | undefined }>>();

  /** The trigger time of this sync (undefined when no known change), recording the state seen. */
  compute(svc: Service, pods: readonly Pod[]): string | undefined {
    const key = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
    const before = this.seen.get(key);
    const now = new Map<string, { pod: Pod; t: string | undefined }>();
    let min: string | undefined = before ? undefined : (svc.metadata?.creationTimestamp ?? undefined);
    for (const p of pods) {
      const uid = p.metadata?.uid ?? '';
      const prev = before?.get(uid);
      // The same cached object: the pod has not changed since the last sync.
      if (prev && prev.pod === p) {
        now.set(uid, prev);
        continue;
      }
      const t = podTriggerTime(p);
      now.set(uid, { pod: p, t });
      if (prev && prev.t === t) continue;
      if (t && (!min || Date.parse(t) < Date.parse(min))) min = t;
    }
    this.seen.set(key, now);
    return min;
  }

  /** Forgets a Service. */
  forget(namespace: string | undefined, name: string): void {
    this.seen.delete(`${namespace}/${name}`);
  }
}

/** Labels the endpoints of a Service carry: the Service's own, plus the headless marker. */
export function serviceLabels(svc: Service): Record<string, string> {
  const labels: Record<string, string> = { ...(svc.metadata?.labels ?? {}) };
  if (svc.spec?.clusterIP === 'None') labels[HEADLESS_LABEL] = '';
  else delete labels[HEADLESS_LABEL];
  return labels;
}
