/**
 * The horizontal-pod-autoscaler controller (kube-controller-manager's pkg/controller/podautoscaler):
 * every sync period it reads each HPA's target through the scale subresource (any kind serving
 * one, custom resources included), the target's pods by the scale's selector and their usage
 * from metrics.k8s.io, computes the replica count its Resource metrics ask for, normalises it
 * (bounds, stabilisation, rate limits) and writes the scale and the HPA's status.
 */
import { parseLabelSelector, type KubeObject, type LabelSelector } from '@kplane/api';
import type { Client } from '@kplane/client';
import {
  Action,
  HorizontalPodAutoscalers,
  NAMESPACE_INDEX,
  Pods,
  createEventRecorder,
  formatTime,
  type Clock,
  type Controller,
  type EventRecorder,
  type HorizontalPodAutoscaler,
  type HorizontalPodAutoscalerCondition,
  type Manager,
  type MetricSpec,
  type MetricStatus,
  type Pod,
  type Request,
} from '@kplane/runtime';
import { createRestMapper, discoverResources, parseApiVersion, type RestMapper } from '../garbagecollector/discovery.js';
import { DEFAULT_TOLERANCE, formatMilli, milliValue, resourceReplicas, type PodSample, type ResourceTarget } from './replica-calculator.js';
import { newHistory, normalizeReplicas, recordScale, type ScalingHistory } from './scaling.js';

/** Kube's --horizontal-pod-autoscaler-sync-period default: 15 s. */
export const DEFAULT_SYNC_PERIOD_MS = 15_000;

/** Options of createHorizontalPodAutoscalerController. */
export interface HorizontalPodAutoscalerControllerOptions {
  /** How often each HPA is reconciled (default 15 s, --horizontal-pod-autoscaler-sync-period). */
  syncPeriodMs?: number;
  /** The band around a usage ratio of 1 in which nothing changes (default 0.1). */
  tolerance?: number;
  /** Time source (default: the manager's clock). */
  clock?: Clock;
  /** Where events go (default: a recorder for "horizontal-pod-autoscaler"); false records none. */
  recorder?: EventRecorder | false;
  /** HPAs reconciled in parallel (default 5, --concurrent-horizontal-pod-autoscaler-syncs). */
  workers?: number;
}

interface Scale extends KubeObject {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The name of a metric in events and conditions ("cpu resource utilization (percentage of request)"). */
export function metricName(spec: MetricSpec): string {
  const r = spec.resource;
  if (spec.type === 'Resource' && r) return r.target.type === 'Utilization' ? `${r.name} resource utilization (percentage of request)` : `${r.name} resource`;
  return `${spec.type} metric`;
}

function windowMs(window: unknown): number {
  const m = typeof window === 'string' ? /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(window) : null;
  if (!m) return 0;
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
}

/** Sets a condition as kube's setCondition: the transition time moves only when the status changes. */
function setCondition(hpa: HorizontalPodAutoscaler, type: string, status: string, reason: string, msg: string, nowMs: number): void {
  const st = (hpa.status ??= { desiredReplicas: 0 });
  const conditions = (st.conditions ??= []);
  const existing = conditions.find((c) => c.type === type);
  const next: HorizontalPodAutoscalerCondition = { type, status, reason, message: msg, lastTransitionTime: formatTime(nowMs) };
  if (!existing) conditions.push(next);
  else {
    if (existing.status !== status) existing.lastTransitionTime = next.lastTransitionTime;
    existing.status = status;
    existing.reason = reason;
    existing.message = msg;
  }
}

class MetricError extends Error {
  constructor(
    msg: string,
    readonly reason: string,
    readonly conditionMessage: string,
  ) {
    super(msg);
  }
}

/**
 * Registers the horizontal-pod-autoscaler controller on `manager` (named "horizontalpodautoscaler").
 *
 * Guarantees, as kube-controller-manager's: Resource metrics (Utilization of the pods' requests
 * and AverageValue) with a 10 % tolerance and kube's handling of missing and not-ready pods;
 * bounds minReplicas/maxReplicas; without behavior, a 5-minute downscale stabilisation and a
 * scale-up of at most max(2×current, 4) per sync; with behavior, its stabilisation windows and
 * policies; conditions AbleToScale, ScalingActive and ScalingLimited with kube's reasons and
 * messages; events SuccessfulRescale, FailedGetScale, FailedRescale, FailedGetResourceMetric,
 * FailedComputeMetricsReplicas, SelectorRequired. Each HPA is synced every `syncPeriodMs` on
 * the injected clock. Other metric types are reported as invalid metrics.
 */
export function createHorizontalPodAutoscalerController(manager: Manager, options: HorizontalPodAutoscalerControllerOptions = {}): Controller {
  const clock = options.clock ?? manager.clock;
  const syncPeriodMs = options.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS;
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  const recorder = options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'horizontal-pod-autoscaler', clock }));
  const client: Client = manager.client;
  const hpaInformer = manager.factory.informerFor<HorizontalPodAutoscaler>(HorizontalPodAutoscalers);
  const podInformer = manager.factory.informerFor<Pod>(Pods);
  const hpaApi = client.resource<HorizontalPodAutoscaler>(HorizontalPodAutoscalers);
  const podMetricsApi = client.resource({ group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods', namespaced: true });
  const histories = new Map<string, ScalingHistory>();
  let mapper: RestMapper | undefined;

  const event = (hpa: HorizontalPodAutoscaler, type: 'Normal' | 'Warning', reason: string, msg: string): void => {
    if (recorder) void recorder.event({ ...hpa, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' }, type, reason, msg);
  };

  /** The scale subresource client of a target reference (discovery is read again on a miss). */
  const scaleClient = async (apiVersion: string, kind: string) => {
    let info = mapper?.resolve(apiVersion, kind);
    if (!info) {
      mapper = createRestMapper((await discoverResources(client)).all);
      info = mapper.resolve(apiVersion, kind);
    }
    const { group } = parseApiVersion(apiVersion);
    if (!info) throw new Error(`unable to determine resource for scale target reference: no matches for kind "${kind}" in group "${group}"`);
    return client.resource<Scale>({ group: info.group, version: info.version, resource: info.resource, namespaced: info.namespaced });
  };

  /** The usage samples of the pods of a namespace matching a selector. */
  const samplesFor = async (namespace: string, selector: string, resource: string): Promise<Map<string, PodSample>> => {
    let list;
    try {
      list = await podMetricsApi.list({ namespace, labelSelector: selector });
    } catch (err) {
      throw new Error(`unable to get metrics for resource ${resource}: unable to fetch metrics from resource metrics API: ${message(err)}`);
    }
    if (list.items.length === 0) throw new Error(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
    const out = new Map<string, PodSample>();
    for (const item of list.items as Array<KubeObject & { timestamp?: string; window?: string; containers?: { usage?: Record<string, string> }[] }>) {
      let milli = 0;
      let complete = true;
      for (const c of item.containers ?? []) {
        const v = milliValue(c.usage?.[resource]);
        if (v === undefined) complete = false;
        else milli += v;
      }
      if (!complete) continue;
      out.set(item.metadata?.name ?? '', { milli, timestamp: item.timestamp ? Date.parse(item.timestamp) : clock.now(), windowMs: windowMs(item.window) });
    }
    return out;
  };

  /** The replicas one Resource metric asks for, and its status. */
  const resourceMetric = async (hpa: HorizontalPodAutoscaler, spec: MetricSpec, current: number, selector: LabelSelector, selectorText: string): Promise<{ replicas: number; status: MetricStatus }> => {
    const r = spec.resource!;
    const namespace = hpa.metadata?.namespace ?? '';
    const target: ResourceTarget | undefined =
      r.target.type === 'Utilization' && typeof r.target.averageUtilization === 'number'
        ? { utilization: r.target.averageUtilization }
        : r.target.averageValue !== undefined
          ? { averageMilli: milliValue(r.target.averageValue) ?? 0 }
          : undefined;
    const what = r.target.type === 'Utilization' ? 'utilization' : 'usage';
    try {
      if (!target) throw new Error('invalid resource metric source: neither a utilization target nor a value target was set');
      const pods = podInformer.store.byIndex(NAMESPACE_INDEX, namespace).filter((p) => selector.matches(p.metadata?.labels));
      const samples = await samplesFor(namespace, selectorText, r.name);
      const proposal = resourceReplicas(current, pods, samples, r.name, target, clock.now(), tolerance);
      const currentValue: Record<string, unknown> = { averageValue: formatMilli(proposal.rawAverage) };
      if (proposal.utilization !== undefined) currentValue.averageUtilization = proposal.utilization;
      return { replicas: proposal.replicas, status: { type: 'Resource', resource: { name: r.name, current: currentValue } } };
    } catch (err) {
      const msg = `failed to get ${r.name} ${what}: ${message(err)}`;
      event(hpa, 'Warning', 'FailedGetResourceMetric', msg);
      throw new MetricError(msg, 'FailedGetResourceMetric', `the HPA was unable to compute the replica count: ${msg}`);
    }
  };

  /** computeReplicasForMetrics: the largest proposal over the valid metrics. */
  const replicasForMetrics = async (hpa: HorizontalPodAutoscaler, scale: Scale, specs: MetricSpec[], nowMs: number): Promise<{ replicas: number; name: string; statuses: MetricStatus[] }> => {
    const selectorText = scale.status?.selector ?? '';
    if (!selectorText) {
      event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      setCondition(hpa, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector", nowMs);
      throw new Error('selector is required');
    }
    let selector: LabelSelector;
    try {
      selector = parseLabelSelector(selectorText);
    } catch (err) {
      const msg = `couldn't convert selector into a corresponding internal selector object: ${message(err)}`;
      event(hpa, 'Warning', 'InvalidSelector', msg);
      setCondition(hpa, 'ScalingActive', 'False', 'InvalidSelector', msg, nowMs);
      throw new Error(msg);
    }
    const current = scale.spec?.replicas ?? 0;
    const statuses: MetricStatus[] = [];
    let replicas = 0;
    let name = '';
    let invalid = 0;
    let firstError: MetricError | undefined;
    for (const spec of specs) {
      try {
        if (spec.type !== 'Resource' || !spec.resource) {
          throw new MetricError(`unable to get metric ${spec.type}: not supported by kplane's autoscaler`, `FailedGet${spec.type}Metric`, `the HPA was unable to compute the replica count: unable to get metric ${spec.type}`);
        }
        const out = await resourceMetric(hpa, spec, current, selector, selectorText);
        statuses.push(out.status);
        if (replicas === 0 || out.replicas > replicas) {
          replicas = out.replicas;
          name = metricName(spec);
        }
      } catch (err) {
        invalid++;
        firstError ??= err instanceof MetricError ? err : new MetricError(message(err), 'FailedGetResourceMetric', message(err));
        statuses.push({ type: '' });
      }
    }
    if (firstError && (invalid >= specs.length || replicas < current)) {
      setCondition(hpa, 'ScalingActive', 'False', firstError.reason, firstError.conditionMessage, nowMs);
      throw new Error(`invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstError.message}`);
    }
    setCondition(hpa, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${name}`, nowMs);
    return { replicas, name, statuses };
  };

  /** Writes the status when it changed (kube's updateStatusIfNeeded). */
  const writeStatus = async (before: string, hpa: HorizontalPodAutoscaler): Promise<void> => {
    if (JSON.stringify(hpa.status ?? {}) === before) return;
    await hpaApi.updateStatus(hpa, { namespace: hpa.metadata?.namespace });
  };

  const reconcileAutoscaler = async (shared: HorizontalPodAutoscaler, key: string): Promise<void> => {
    const hpa = structuredClone(shared);
    const before = JSON.stringify(hpa.status ?? {});
    const nowMs = clock.now();
    const ref = hpa.spec?.scaleTargetRef ?? { kind: '', name: '' };
    const namespace = hpa.metadata?.namespace ?? '';
    let scaleApi;
    let scale: Scale;
    try {
      scaleApi = await scaleClient(ref.apiVersion ?? '', ref.kind);
      scale = await scaleApi.getSubresource<Scale>(ref.name, 'scale', { namespace });
    } catch (err) {
      setCondition(hpa, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${message(err)}`, nowMs);
      event(hpa, 'Warning', 'FailedGetScale', message(err));
      await writeStatus(before, hpa);
      throw err;
    }
    setCondition(hpa, 'AbleToScale', 'True', 'SucceededGetScale', 'the HPA controller was able to get the target\'s current scale', nowMs);
    const current = scale.spec?.replicas ?? 0;
    const min = hpa.spec?.minReplicas ?? 1;
    const max = hpa.spec?.maxReplicas ?? 0;
    let desired = 0;
    let reason = '';
    // Metric statuses are reported only when the metrics were read (not at the bounds, as kube).
    let statuses: MetricStatus[] | undefined;
    if (current === 0 && min !== 0) {
      setCondition(hpa, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero', nowMs);
    } else if (current > max) {
      reason = 'Current number of replicas above Spec.MaxReplicas';
      desired = max;
    } else if (current < min) {
      reason = 'Current number of replicas below Spec.MinReplicas';
      desired = min;
    } else {
      let proposal;
      try {
        proposal = await replicasForMetrics(hpa, scale, hpa.spec?.metrics ?? [], nowMs);
      } catch (err) {
        // As kube's setCurrentReplicasAndMetricsInStatus: the current count, the last desired count and metrics kept.
        hpa.status = { ...hpa.status!, currentReplicas: current, desiredReplicas: hpa.status?.desiredReplicas ?? 0 };
        event(hpa, 'Warning', 'FailedComputeMetricsReplicas', message(err));
        await writeStatus(before, hpa);
        throw err;
      }
      statuses = proposal.statuses;
      desired = current;
      if (proposal.replicas > desired) {
        desired = proposal.replicas;
        reason = `${proposal.name} above target`;
      } else desired = proposal.replicas;
      if (!reason && desired < current) reason = 'All metrics below target';
      let history = histories.get(key);
      if (!history) histories.set(key, (history = newHistory()));
      const normalized = normalizeReplicas(history, { current, desired, min, max, nowMs, behavior: hpa.spec?.behavior });
      desired = normalized.replicas;
      for (const c of normalized.conditions) setCondition(hpa, c.type, c.status, c.reason, c.message, nowMs);
    }
    const rescale = desired !== current && !(current === 0 && min !== 0);
    if (rescale) {
      try {
        await scaleApi.updateSubresource<Scale>(ref.name, 'scale', { ...scale, spec: { ...scale.spec, replicas: desired } }, { namespace });
      } catch (err) {
        setCondition(hpa, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${message(err)}`, nowMs);
        event(hpa, 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${message(err)}`);
        await writeStatus(before, hpa);
        throw err;
      }
      setCondition(hpa, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`, nowMs);
      event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
      let history = histories.get(key);
      if (!history) histories.set(key, (history = newHistory()));
      recordScale(history, hpa.spec?.behavior, current, desired, nowMs);
    }
    const status = hpa.status ?? { desiredReplicas: 0 };
    hpa.status = {
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
      ...(rescale ? { lastScaleTime: formatTime(nowMs) } : status.lastScaleTime ? { lastScaleTime: status.lastScaleTime } : {}),
      currentReplicas: current,
      desiredReplicas: desired,
      ...(statuses?.length ? { currentMetrics: statuses } : {}),
      ...(status.conditions?.length ? { conditions: status.conditions } : {}),
    };
    if (current === 0 && min !== 0) hpa.status.desiredReplicas = 0;
    await writeStatus(before, hpa);
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    const hpa = hpaInformer.store.get(req.key);
    if (!hpa) {
      histories.delete(req.key);
      return;
    }
    try {
      await reconcileAutoscaler(hpa, req.key);
    } catch {
      // Reported in the HPA's conditions and events; tried again at the next sync.
    }
    return Action.requeue(syncPeriodMs);
  };

  return manager
    .controller()
    .named('horizontalpodautoscaler')
    // Only spec changes (and new HPAs) wake an HPA before its next sync: its own status writes do not.
    .for<HorizontalPodAutoscaler>(HorizontalPodAutoscalers, { predicates: [(c) => c.type !== 'update' || c.old?.metadata?.generation !== c.object.metadata?.generation] })
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
}
