/**
 * Resource quantities and quota usage, shared by the ResourceQuota admission step and the
 * resource quota controller: exact quantity arithmetic (nano units, kube's canonical formats),
 * the usage of pods, services and claims, quota scopes, and the checks of a quota's hard limits.
 */

/** A quantity's format, as resource.Format. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** An exact quantity: its value in nano units and the format it prints in. */
export interface Quantity {
  nano: bigint;
  format: QuantityFormat;
}

/** A resource list: resource names to quantity strings (corev1.ResourceList). */
export type ResourceList = Record<string, string>;

const NANO = 1_000_000_000n;
const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX: Record<number, string> = Object.fromEntries(Object.entries(DECIMAL).map(([k, v]) => [v, k]));
const BINARY_SUFFIX: Record<number, string> = Object.fromEntries(Object.entries(BINARY).map(([k, v]) => [v, k]));

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n === b > 0n ? q + 1n : q;
}

/** Parses a quantity string (or number); undefined when malformed. Values below a nano unit round up, as kube. */
export function parseQuantityExact(q: unknown): Quantity | undefined {
  if (typeof q === 'number') q = String(q);
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE]?)$/.exec(q.trim());
  if (!m || (m[2] === '' && !m[3])) return undefined;
  const frac = m[3] ?? '';
  let num = BigInt((m[2] || '0') + frac) * (m[1] === '-' ? -1n : 1n);
  let scale = 10n ** BigInt(frac.length);
  const suffix = m[4]!;
  let format: QuantityFormat = 'DecimalSI';
  if (suffix in BINARY) {
    format = 'BinarySI';
    num *= 1024n ** BigInt(BINARY[suffix]!) * NANO;
  } else {
    const exp = /^[eE]/.test(suffix) ? Number(suffix.slice(1)) : DECIMAL[suffix]!;
    if (/^[eE]/.test(suffix)) format = 'DecimalExponent';
    const e = exp + 9;
    if (e >= 0) num *= 10n ** BigInt(e);
    else scale *= 10n ** BigInt(-e);
  }
  return { nano: ceilDiv(num, scale), format };
}

/** Prints a quantity in kube's canonical form ("500m", "1536Mi", "2k", "0"). */
export function formatQuantity(q: Quantity): string {
  const { nano } = q;
  if (nano === 0n) return '0';
  const neg = nano < 0n;
  const abs = neg ? -nano : nano;
  const sign = neg ? '-' : '';
  if (q.format === 'BinarySI' && abs % NANO === 0n && abs >= 1024n * NANO) {
    const units = abs / NANO;
    for (let k = 6; k >= 1; k--) {
      const d = 1024n ** BigInt(k);
      if (units % d === 0n) return `${sign}${units / d}${BINARY_SUFFIX[k]}`;
    }
    return `${sign}${units}`;
  }
  for (let e = 18; e >= -9; e -= 3) {
    const d = 10n ** BigInt(e + 9);
    if (abs % d === 0n) {
      const suffix = q.format === 'DecimalExponent' ? (e === 0 ? '' : `e${e}`) : DECIMAL_SUFFIX[e];
      return `${sign}${abs / d}${suffix}`;
    }
  }
  return `${sign}${abs}n`;
}

function nanoOf(v: string | undefined): bigint {
  return v === undefined ? 0n : (parseQuantityExact(v)?.nano ?? 0n);
}

function combine(a: ResourceList, b: ResourceList, sign: 1n | -1n): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const qb = parseQuantityExact(v);
    if (!qb) continue;
    const qa = a[k] === undefined ? undefined : parseQuantityExact(a[k]);
    // Quantity.Add: a zero quantity takes the format of what is added to it.
    out[k] = formatQuantity({ nano: (qa?.nano ?? 0n) + sign * qb.nano, format: qa && qa.nano !== 0n ? qa.format : qb.format });
  }
  return out;
}

/** a + b, each sum in the format of a's quantity (b's where a's is absent or zero), as quota.Add. */
export function addResources(a: ResourceList, b: ResourceList): ResourceList {
  return combine(a, b, 1n);
}

/** a - b, as quota.Subtract. */
export function subtractResources(a: ResourceList, b: ResourceList): ResourceList {
  return combine(a, b, -1n);
}

/** Compares two quantity strings: -1, 0 or 1. */
export function compareQuantities(a: string | undefined, b: string | undefined): number {
  const d = nanoOf(a) - nanoOf(b);
  return d === 0n ? 0 : d < 0n ? -1 : 1;
}

/** The keys of `list` named in `names`, with their values (quota.Mask). */
export function maskResources(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = {};
  for (const n of names) if (list[n] !== undefined) out[n] = list[n]!;
  return out;
}

/** Prints a resource list as kube's messages do: sorted `name=quantity` joined by ','. */
export function prettyPrintResources(list: ResourceList): string {
  return Object.keys(list).sort().map((k) => `${k}=${list[k]}`).join(',');
}

// ---- pods ----

interface Container {
  name?: string;
  resources?: { requests?: ResourceList; limits?: ResourceList };
}

interface PodLike {
  metadata?: { deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
  spec?: {
    containers?: Container[];
    initContainers?: Container[];
    overhead?: ResourceList;
    activeDeadlineSeconds?: number;
    priorityClassName?: string;
  };
  status?: { phase?: string };
}

/** The compute resources a quota may track, as kube's pod evaluator. */
const COMPUTE = ['cpu', 'memory', 'ephemeral-storage'];
/** The resources for which every container must state a value when a quota tracks them. */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const r of COMPUTE) {
    if (requests[r] !== undefined) {
      out[r] = requests[r]!;
      out[`requests.${r}`] = requests[r]!;
    }
    if (limits[r] !== undefined) out[`limits.${r}`] = limits[r]!;
  }
  for (const [r, v] of Object.entries(requests)) {
    if (!COMPUTE.includes(r) && r.includes('/') && !r.startsWith('requests.')) out[`requests.${r}`] = v;
  }
  return out;
}

function maxResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) if (out[k] === undefined || compareQuantities(v, out[k]) > 0) out[k] = v;
  return out;
}

/** A pod's effective requests and limits: sum of containers, at least each init container, plus overhead. */
export function podRequestsAndLimits(pod: PodLike): { requests: ResourceList; limits: ResourceList } {
  let requests: ResourceList = {};
  let limits: ResourceList = {};
  for (const c of pod.spec?.containers ?? []) {
    requests = addResources(requests, c.resources?.requests ?? {});
    limits = addResources(limits, c.resources?.limits ?? {});
  }
  for (const c of pod.spec?.initContainers ?? []) {
    requests = maxResources(requests, c.resources?.requests ?? {});
    limits = maxResources(limits, c.resources?.limits ?? {});
  }
  const overhead = pod.spec?.overhead ?? {};
  requests = addResources(requests, overhead);
  limits = addResources(limits, maskResources(overhead, Object.keys(limits)));
  return { requests, limits };
}

/** Does a pod no longer count against quota (Succeeded or Failed)? */
export function isTerminalPod(pod: PodLike): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** A pod's usage as kube's pod evaluator computes it (nothing for a terminal pod). */
export function podUsage(pod: PodLike): ResourceList {
  if (isTerminalPod(pod)) return {};
  const { requests, limits } = podRequestsAndLimits(pod);
  return { pods: '1', 'count/pods': '1', ...computeUsage(requests, limits) };
}

/** Is the pod BestEffort (no request or limit of cpu or memory in any container)? */
export function isBestEffortPod(pod: PodLike): boolean {
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  return all.every((c) => ['cpu', 'memory'].every((r) => c.resources?.requests?.[r] === undefined && c.resources?.limits?.[r] === undefined));
}

/**
 * The quota constraint of kube's pod evaluator: when a quota tracks cpu or memory (requests or
 * limits), each container must state them. Returns kube's "must specify ..." text, or undefined.
 */
export function podConstraintError(pod: PodLike, tracked: Iterable<string>): string | undefined {
  const required = [...tracked].filter((r) => VALIDATION_SET.has(r));
  if (!required.length) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const has = computeUsage(c.resources?.requests ?? {}, c.resources?.limits ?? {});
    for (const r of required) {
      if (has[r] === undefined) {
        if (!missing.has(r)) missing.set(r, new Set());
        missing.get(r)!.add(c.name ?? '');
      }
    }
  }
  if (!missing.size) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

// ---- scopes ----

/** A scoped resource selector requirement (corev1.ScopedResourceSelectorRequirement). */
export interface ScopeRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[];
}

/** The parts of a ResourceQuota's spec that decide what it matches and limits. */
export interface QuotaSpecLike {
  hard?: ResourceList;
  scopes?: string[];
  scopeSelector?: { matchExpressions?: ScopeRequirement[] };
}

/** The scope requirements of a quota: its scopes (operator Exists) and its scope selector. */
export function quotaScopes(spec: QuotaSpecLike | undefined): ScopeRequirement[] {
  return [...(spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' })), ...(spec?.scopeSelector?.matchExpressions ?? [])];
}

function podMatchesScope(pod: PodLike, req: ScopeRequirement): boolean {
  switch (req.scopeName) {
    case 'Terminating':
      return typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0;
    case 'NotTerminating':
      return !(typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0);
    case 'BestEffort':
      return isBestEffortPod(pod);
    case 'NotBestEffort':
      return !isBestEffortPod(pod);
    case 'PriorityClass': {
      const name = pod.spec?.priorityClassName ?? '';
      switch (req.operator) {
        case 'Exists':
          return name !== '';
        case 'DoesNotExist':
          return name === '';
        case 'In':
          return (req.values ?? []).includes(name);
        case 'NotIn':
          return !(req.values ?? []).includes(name);
        default:
          return false;
      }
    }
    default:
      return false;
  }
}

/**
 * Does the quota apply to this object of `resource` (core group unless `group` is set)? A quota
 * with scopes only applies to pods that match every scope.
 */
export function quotaMatches(spec: QuotaSpecLike | undefined, resource: string, group: string, obj: unknown): boolean {
  const scopes = quotaScopes(spec);
  if (!scopes.length) return true;
  if (group !== '' || resource !== 'pods') return false;
  return scopes.every((s) => podMatchesScope(obj as PodLike, s));
}

// ---- usage of other kinds ----

interface ServiceLike {
  spec?: { type?: string; ports?: { nodePort?: number }[] };
}

/** The quota names a write of `resource` in `group` is counted under (legacy names included). */
export function objectCountNames(resource: string, group: string): string[] {
  const names = [group ? `count/${resource}.${group}` : `count/${resource}`];
  const legacy = ['pods', 'services', 'secrets', 'configmaps', 'persistentvolumeclaims', 'replicationcontrollers', 'resourcequotas'];
  if (group === '' && legacy.includes(resource)) names.push(resource);
  return names;
}

/** The usage one object of `resource` in `group` adds to a quota (kube's evaluators). */
export function objectUsage(resource: string, group: string, obj: unknown): ResourceList {
  if (group === '' && resource === 'pods') return podUsage(obj as PodLike);
  const out: ResourceList = {};
  for (const n of objectCountNames(resource, group)) out[n] = '1';
  if (group === '' && resource === 'services') {
    const s = obj as ServiceLike;
    const type = s.spec?.type ?? 'ClusterIP';
    if (type === 'LoadBalancer') out['services.loadbalancers'] = '1';
    if (type === 'NodePort' || type === 'LoadBalancer') out['services.nodeports'] = String(s.spec?.ports?.length ?? 0);
    else out['services.nodeports'] = '0';
    out['services.loadbalancers'] ??= '0';
  }
  if (group === '' && resource === 'persistentvolumeclaims') {
    const storage = (obj as { spec?: { resources?: { requests?: ResourceList }; storageClassName?: string } }).spec;
    const req = storage?.resources?.requests?.storage;
    if (req !== undefined) {
      out['requests.storage'] = req;
      if (storage?.storageClassName) out[`${storage.storageClassName}.storageclass.storage.k8s.io/requests.storage`] = req;
    }
    if (storage?.storageClassName) out[`${storage.storageClassName}.storageclass.storage.k8s.io/persistentvolumeclaims`] = '1';
  }
  return out;
}

/** The resources of a usage the quota's hard list tracks. */
export function trackedUsage(hard: ResourceList, usage: ResourceList): ResourceList {
  return maskResources(usage, Object.keys(hard));
}

/** The resources of `used + requested` above `hard` (quota.LessThanOrEqual's failures). */
export function exceededResources(hard: ResourceList, used: ResourceList, requested: ResourceList): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(requested)) {
    if (hard[k] === undefined) continue;
    const total = addResources(maskResources(used, [k]), { [k]: v })[k];
    if (compareQuantities(total, hard[k]) > 0) out.push(k);
  }
  return out.sort();
}
