/**
 * autoscaling horizontalpodautoscalers, served as v2 (the storage version) and v1 over the same
 * objects: defaults, validation, Table columns, and the v1 ↔ v2 conversion (v1's
 * targetCPUUtilizationPercentage is v2's cpu Utilization metric; what v1 cannot say is kept in
 * kube's `autoscaling.alpha.kubernetes.io/*` annotations).
 */
import { fieldInvalid, fieldNotSupported, fieldRequired, type KubeObject, type StatusCause } from '@kplane/api';
import { convertingBackend } from '../crd/conversion.js';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, child, num, objs, setDefault, str, type Obj } from './util.js';

/** v2 metrics other than the cpu Utilization one, in a v1 object. */
export const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
/** v2 status.currentMetrics, in a v1 object. */
export const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
/** v2 status.conditions, in a v1 object. */
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
/** v2 spec.behavior, in a v1 object. */
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
/** autoscaling.DefaultCPUUtilization. */
export const DEFAULT_CPU_UTILIZATION = 80;

const isCpuUtilization = (m: Obj): boolean => {
  const r = asObj(m.resource);
  const t = asObj(r?.target);
  return m.type === 'Resource' && r?.name === 'cpu' && t?.type === 'Utilization' && typeof t.averageUtilization === 'number';
};

function parseJsonArray(v: string | undefined): Obj[] | undefined {
  if (v === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? objs(parsed) : undefined;
  } catch {
    return undefined;
  }
}

/** An autoscaling/v2 HorizontalPodAutoscaler as autoscaling/v1 shows it. */
export function hpaV2ToV1(obj: KubeObject): KubeObject {
  const spec = (asObj(obj.spec) ?? {}) as Obj;
  const status = (asObj(obj.status) ?? {}) as Obj;
  const annotations: Record<string, string> = { ...(obj.metadata?.annotations ?? {}) };
  const metrics = objs(spec.metrics);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  if (others.length) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (spec.behavior) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(spec.behavior);
  const current = objs(status.currentMetrics);
  if (current.length) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(current);
  const conditions = objs(status.conditions);
  if (conditions.length) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions);
  const v1Spec: Obj = { scaleTargetRef: spec.scaleTargetRef };
  if (spec.minReplicas !== undefined) v1Spec.minReplicas = spec.minReplicas;
  v1Spec.maxReplicas = spec.maxReplicas;
  if (cpu) v1Spec.targetCPUUtilizationPercentage = (asObj(asObj(cpu.resource)?.target) ?? {}).averageUtilization;
  const v1Status: Obj = {};
  if (status.observedGeneration !== undefined) v1Status.observedGeneration = status.observedGeneration;
  if (status.lastScaleTime !== undefined) v1Status.lastScaleTime = status.lastScaleTime;
  v1Status.currentReplicas = num(status.currentReplicas);
  v1Status.desiredReplicas = num(status.desiredReplicas);
  const cpuCurrent = current.find((m) => m.type === 'Resource' && asObj(m.resource)?.name === 'cpu');
  const utilization = asObj(asObj(cpuCurrent?.resource)?.current)?.averageUtilization;
  if (typeof utilization === 'number') v1Status.currentCPUUtilizationPercentage = utilization;
  const metadata = { ...(obj.metadata ?? {}) };
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata, spec: v1Spec, status: v1Status };
}

/** An autoscaling/v1 HorizontalPodAutoscaler in the autoscaling/v2 shape (the annotations taken back into fields). */
export function hpaV1ToV2(obj: KubeObject): KubeObject {
  const spec = (asObj(obj.spec) ?? {}) as Obj;
  const status = (asObj(obj.status) ?? {}) as Obj;
  const annotations: Record<string, string> = { ...(obj.metadata?.annotations ?? {}) };
  const take = (key: string): string | undefined => {
    const v = annotations[key];
    delete annotations[key];
    return v;
  };
  const others = parseJsonArray(take(METRICS_ANNOTATION)) ?? [];
  const behaviorRaw = take(BEHAVIOR_ANNOTATION);
  const current = parseJsonArray(take(CURRENT_METRICS_ANNOTATION));
  const conditions = parseJsonArray(take(CONDITIONS_ANNOTATION));
  const metrics: Obj[] = [];
  if (typeof spec.targetCPUUtilizationPercentage === 'number') {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  metrics.push(...others);
  const v2Spec: Obj = { scaleTargetRef: spec.scaleTargetRef };
  if (spec.minReplicas !== undefined) v2Spec.minReplicas = spec.minReplicas;
  v2Spec.maxReplicas = spec.maxReplicas;
  if (metrics.length) v2Spec.metrics = metrics;
  if (behaviorRaw !== undefined) {
    try {
      const b = asObj(JSON.parse(behaviorRaw));
      if (b) v2Spec.behavior = b;
    } catch {
      // An unreadable annotation is dropped, as kube's conversion fails on it.
    }
  }
  const v2Status: Obj = {};
  if (status.observedGeneration !== undefined) v2Status.observedGeneration = status.observedGeneration;
  if (status.lastScaleTime !== undefined) v2Status.lastScaleTime = status.lastScaleTime;
  if (status.currentReplicas !== undefined) v2Status.currentReplicas = status.currentReplicas;
  v2Status.desiredReplicas = num(status.desiredReplicas);
  if (current) v2Status.currentMetrics = current;
  else if (typeof status.currentCPUUtilizationPercentage === 'number') {
    v2Status.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
  }
  if (conditions) v2Status.conditions = conditions;
  const metadata = { ...(obj.metadata ?? {}) };
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata, spec: v2Spec, status: v2Status };
}

/** The scale-up rules kube applies when behavior.scaleUp is absent or partly set (GenerateHPAScaleUpRules). */
function defaultScaleUp(rules: Obj): void {
  setDefault(rules, 'stabilizationWindowSeconds', 0);
  setDefault(rules, 'selectPolicy', 'Max');
  setDefault(rules, 'policies', [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ]);
}

/** The scale-down rules kube applies when behavior.scaleDown is absent or partly set (GenerateHPAScaleDownRules). */
function defaultScaleDown(rules: Obj): void {
  setDefault(rules, 'stabilizationWindowSeconds', 300);
  setDefault(rules, 'selectPolicy', 'Max');
  setDefault(rules, 'policies', [{ type: 'Percent', value: 100, periodSeconds: 15 }]);
}

/** SetDefaults_HorizontalPodAutoscaler (v2): minReplicas 1, the cpu 80 % metric when none, a given behavior completed. */
export function defaultHpaV2(obj: KubeObject): void {
  const spec = child(obj as Obj, 'spec');
  setDefault(spec, 'minReplicas', 1);
  if (objs(spec.metrics).length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  const behavior = asObj(spec.behavior);
  if (behavior) {
    defaultScaleUp(child(behavior, 'scaleUp'));
    defaultScaleDown(child(behavior, 'scaleDown'));
  }
}

/** The defaults of a v1 object: minReplicas 1; targetCPUUtilizationPercentage 80 when no other metric is given. */
export function defaultHpaV1(obj: KubeObject): void {
  const spec = child(obj as Obj, 'spec');
  setDefault(spec, 'minReplicas', 1);
  if (spec.targetCPUUtilizationPercentage === undefined && obj.metadata?.annotations?.[METRICS_ANNOTATION] === undefined) {
    spec.targetCPUUtilizationPercentage = DEFAULT_CPU_UTILIZATION;
  }
}

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];

function validateTarget(target: Obj | undefined, path: string): StatusCause[] {
  if (!target) return [fieldRequired(path)];
  const out: StatusCause[] = [];
  const type = target.type;
  if (!type) out.push(fieldRequired(`${path}.type`, 'must specify a metric target type'));
  else if (!['Utilization', 'Value', 'AverageValue'].includes(String(type))) out.push(fieldInvalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  if (typeof target.averageUtilization === 'number' && target.averageUtilization < 1) {
    out.push(fieldInvalid(`${path}.averageUtilization`, target.averageUtilization, 'must be greater than 0'));
  }
  if (type === 'Utilization' && target.averageUtilization === undefined) out.push(fieldRequired(`${path}.averageUtilization`, 'must set either a target raw value or a target utilization'));
  if (type === 'AverageValue' && target.averageValue === undefined) out.push(fieldRequired(`${path}.averageValue`, 'must set either a target raw value or a target utilization'));
  if (type === 'Value' && target.value === undefined) out.push(fieldRequired(`${path}.value`, 'must set either a target raw value or a target utilization'));
  return out;
}

function validateRules(rules: Obj | undefined, path: string): StatusCause[] {
  if (!rules) return [];
  const out: StatusCause[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number' && (window < 0 || window > 3600)) out.push(fieldInvalid(`${path}.stabilizationWindowSeconds`, window, 'must be less than or equal to 3600'));
  if (rules.selectPolicy !== undefined && !['Max', 'Min', 'Disabled'].includes(String(rules.selectPolicy))) {
    out.push(fieldNotSupported(`${path}.selectPolicy`, rules.selectPolicy, ['Disabled', 'Max', 'Min']));
  }
  const policies = objs(rules.policies);
  if (Array.isArray(rules.policies) && policies.length === 0 && rules.selectPolicy !== 'Disabled') out.push(fieldRequired(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const at = `${path}.policies[${i}]`;
    if (p.type !== 'Pods' && p.type !== 'Percent') out.push(fieldNotSupported(`${at}.type`, p.type ?? '', ['Percent', 'Pods']));
    if (typeof p.value !== 'number' || p.value <= 0) out.push(fieldInvalid(`${at}.value`, p.value ?? 0, 'must be greater than zero'));
    if (typeof p.periodSeconds !== 'number' || p.periodSeconds <= 0) out.push(fieldInvalid(`${at}.periodSeconds`, p.periodSeconds ?? 0, 'must be greater than zero'));
    else if (p.periodSeconds > 1800) out.push(fieldInvalid(`${at}.periodSeconds`, p.periodSeconds, 'must be less than or equal to 1800'));
  });
  return out;
}

/** ValidateHorizontalPodAutoscaler (v2 shape): the target reference, replica bounds, metrics and behavior. */
export function validateHpaV2(obj: KubeObject): StatusCause[] {
  const spec = (asObj(obj.spec) ?? {}) as Obj;
  const out: StatusCause[] = [];
  const ref = (asObj(spec.scaleTargetRef) ?? {}) as Obj;
  if (!str(ref.kind)) out.push(fieldRequired('spec.scaleTargetRef.kind'));
  if (!str(ref.name)) out.push(fieldRequired('spec.scaleTargetRef.name'));
  else if (/[/%]/.test(str(ref.name)) || ref.name === '.' || ref.name === '..') out.push(fieldInvalid('spec.scaleTargetRef.name', ref.name, `may not contain '/'`));
  const min = spec.minReplicas;
  const max = num(spec.maxReplicas);
  if (typeof min === 'number' && min < 1) out.push(fieldInvalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (max < 1) out.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than 0'));
  else if (typeof min === 'number' && max < min) out.push(fieldInvalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  objs(spec.metrics).forEach((m, i) => {
    const at = `spec.metrics[${i}]`;
    if (!METRIC_TYPES.includes(str(m.type))) {
      out.push(fieldNotSupported(`${at}.type`, m.type ?? '', METRIC_TYPES));
      return;
    }
    if (m.type === 'Resource' || m.type === 'ContainerResource') {
      const key = m.type === 'Resource' ? 'resource' : 'containerResource';
      const r = asObj(m[key]);
      if (!r) {
        out.push(fieldRequired(`${at}.${key}`, 'must populate information for the given metric source'));
        return;
      }
      if (!str(r.name)) out.push(fieldRequired(`${at}.${key}.name`, 'must specify a resource name'));
      if (m.type === 'ContainerResource' && !str(r.container)) out.push(fieldRequired(`${at}.${key}.container`, 'must specify a container'));
      const target = asObj(r.target);
      out.push(...validateTarget(target, `${at}.${key}.target`));
      if (target?.type === 'Value') out.push(fieldNotSupported(`${at}.${key}.target.type`, 'Value', ['Utilization', 'AverageValue']));
    }
  });
  const behavior = asObj(spec.behavior);
  if (behavior) out.push(...validateRules(asObj(behavior.scaleUp), 'spec.behavior.scaleUp'), ...validateRules(asObj(behavior.scaleDown), 'spec.behavior.scaleDown'));
  return out;
}

/** The TARGETS cell as kubectl 1.32 prints it ("cpu: 40%/80%", "<unknown>" for a metric not read yet). */
export function formatHpaMetrics(specs: Obj[], statuses: Obj[]): string {
  if (specs.length === 0) return '<none>';
  const list: string[] = [];
  specs.forEach((spec, i) => {
    const status = statuses[i];
    const value = (q: unknown) => (q === undefined || q === null ? '<unknown>' : String(q));
    switch (spec.type) {
      case 'Resource':
      case 'ContainerResource': {
        const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const r = (asObj(spec[key]) ?? {}) as Obj;
        const target = (asObj(r.target) ?? {}) as Obj;
        const cur = asObj(asObj(status?.[key])?.current);
        if (target.averageValue !== undefined) list.push(`${str(r.name)}: ${value(asObj(status?.[key]) ? cur?.averageValue : undefined)}/${String(target.averageValue)}`);
        else {
          const current = typeof cur?.averageUtilization === 'number' ? `${cur.averageUtilization}%` : '<unknown>';
          const want = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
          list.push(`${str(r.name)}: ${current}/${want}`);
        }
        break;
      }
      case 'Pods': {
        const cur = asObj(asObj(status?.pods)?.current)?.averageValue;
        list.push(`${value(cur)}/${String(asObj(asObj(spec.pods)?.target)?.averageValue ?? '')}`);
        break;
      }
      case 'Object':
      case 'External': {
        const key = spec.type === 'Object' ? 'object' : 'external';
        const target = (asObj(asObj(spec[key])?.target) ?? {}) as Obj;
        const cur = asObj(asObj(status?.[key])?.current);
        if (target.averageValue !== undefined) list.push(`${value(cur?.averageValue)}/${String(target.averageValue)} (avg)`);
        else list.push(`${value(asObj(status?.[key]) ? (cur?.value ?? '0') : undefined)}/${String(target.value ?? '')}`);
        break;
      }
      default:
        list.push('<unknown type>');
    }
  });
  const max = 2;
  if (list.length > max) return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
  return list.join(', ');
}

const hpaTable = (toV2: (o: KubeObject) => KubeObject): TableSpec => ({
  columns: [
    NAME_COLUMN,
    { name: 'Reference', type: 'string', description: 'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.', priority: 0 },
    { name: 'Targets', type: 'string', description: 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).', priority: 0 },
    { name: 'MinPods', type: 'string', description: 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.', priority: 0 },
    { name: 'MaxPods', type: 'integer', description: 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.', priority: 0 },
    { name: 'Replicas', type: 'integer', description: 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.', priority: 0 },
    AGE_COLUMN,
  ],
  row(input, now) {
    const obj = toV2(input);
    const spec = (asObj(obj.spec) ?? {}) as Obj;
    const status = (asObj(obj.status) ?? {}) as Obj;
    const ref = (asObj(spec.scaleTargetRef) ?? {}) as Obj;
    return [
      obj.metadata?.name ?? '',
      `${str(ref.kind)}/${str(ref.name)}`,
      formatHpaMetrics(objs(spec.metrics), objs(status.currentMetrics)),
      typeof spec.minReplicas === 'number' ? String(spec.minReplicas) : '<unset>',
      num(spec.maxReplicas),
      num(status.currentReplicas),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
    ];
  },
});

const base = {
  group: 'autoscaling',
  resource: 'horizontalpodautoscalers',
  kind: 'HorizontalPodAutoscaler',
  listKind: 'HorizontalPodAutoscalerList',
  singular: 'horizontalpodautoscaler',
  shortNames: ['hpa'],
  categories: ['all'],
  namespaced: true,
  verbs: STANDARD_VERBS,
  subresources: { status: true },
  storagePrefix: '/registry/horizontalpodautoscalers',
} as const;

/** autoscaling/v2 horizontalpodautoscalers (the storage version). */
export function hpaV2Resource(): ResourceType {
  return {
    ...base,
    shortNames: [...base.shortNames],
    categories: [...base.categories],
    verbs: [...base.verbs],
    subresources: { status: true },
    version: 'v2',
    schemaName: 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler',
    strategy: { generation: true, defaults: defaultHpaV2, validate: validateHpaV2, table: hpaTable((o) => o) },
  };
}

/** autoscaling/v1 horizontalpodautoscalers: the same objects, converted to and from v2 on the way. */
export function hpaV1Resource(): ResourceType {
  return {
    ...base,
    shortNames: [...base.shortNames],
    categories: [...base.categories],
    verbs: [...base.verbs],
    subresources: { status: true },
    version: 'v1',
    schemaName: 'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler',
    storageVersion: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
    storage: (backend) =>
      convertingBackend(backend, { convert: async (objects, to) => objects.map((o) => (to === 'autoscaling/v2' ? hpaV1ToV2(o) : hpaV2ToV1(o))) }, 'autoscaling/v1', 'autoscaling/v2'),
    strategy: {
      generation: true,
      defaults: defaultHpaV1,
      validate(obj) {
        const spec = (asObj(obj.spec) ?? {}) as Obj;
        const pct = spec.targetCPUUtilizationPercentage;
        if (typeof pct === 'number' && pct < 1) return [fieldInvalid('spec.targetCPUUtilizationPercentage', pct, 'must be greater than 0')];
        return validateHpaV2(hpaV1ToV2(obj)).filter((c) => !c.field?.startsWith('spec.metrics'));
      },
      table: hpaTable(hpaV1ToV2),
    },
  };
}
