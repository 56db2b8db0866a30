import { addResources, forbidden, formatQuantity, parseQuantityExact, podRequestsAndLimits, type KubeObject, type ResourceList } from '@kplane/api';
import type { AdmissionObjects } from './objects.js';
import type { AdmissionAttributes, MutatingStep, ValidatingStep } from './types.js';

/** The annotation that records what LimitRanger set on a pod. */
export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

interface LimitItem {
  type?: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

interface Container {
  name?: string;
  resources?: { requests?: ResourceList; limits?: ResourceList };
}

function items(ranges: KubeObject[]): LimitItem[] {
  return ranges.flatMap((r) => ((r.spec as { limits?: LimitItem[] } | undefined)?.limits ?? []));
}

function merge(c: Container, req: ResourceList, lim: ResourceList, prefix: string, notes: string[]): void {
  const res = (c.resources ??= {});
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const [k, v] of Object.entries(lim)) {
    if ((res.limits ??= {})[k] === undefined) {
      res.limits[k] = v;
      setLimits.push(k);
    }
  }
  for (const [k, v] of Object.entries(req)) {
    if ((res.requests ??= {})[k] === undefined) {
      res.requests[k] = v;
      setRequests.push(k);
    }
  }
  if (setRequests.length) notes.push(`${setRequests.sort().join(', ')} request for ${prefix} ${c.name ?? ''}`);
  if (setLimits.length) notes.push(`${setLimits.sort().join(', ')} limit for ${prefix} ${c.name ?? ''}`);
}

/** The nano value of a quantity string (0 when absent or malformed). */
function nano(q: string | undefined): bigint {
  return q === undefined ? 0n : (parseQuantityExact(q)?.nano ?? 0n);
}

function show(q: string): string {
  const p = parseQuantityExact(q);
  return p ? formatQuantity(p) : q;
}

/** minConstraint, maxConstraint and limitRequestRatioConstraint of kube's LimitRanger, for one item and one subject. */
function checkItem(item: LimitItem, type: string, requests: ResourceList, limits: ResourceList, errs: string[]): void {
  for (const r of Object.keys(item.min ?? {}).sort()) {
    const min = item.min![r]!;
    if (requests[r] === undefined) errs.push(`minimum ${r} usage per ${type} is ${show(min)}.  No request is specified`);
    else if (nano(requests[r]) < nano(min)) errs.push(`minimum ${r} usage per ${type} is ${show(min)}, but request is ${show(requests[r]!)}`);
    else if (limits[r] !== undefined && nano(limits[r]) < nano(min)) errs.push(`minimum ${r} usage per ${type} is ${show(min)}, but limit is ${show(limits[r]!)}`);
  }
  for (const r of Object.keys(item.max ?? {}).sort()) {
    const max = item.max![r]!;
    if (limits[r] === undefined) errs.push(`maximum ${r} usage per ${type} is ${show(max)}.  No limit is specified`);
    else if (nano(limits[r]) > nano(max)) errs.push(`maximum ${r} usage per ${type} is ${show(max)}, but limit is ${show(limits[r]!)}`);
    else if (requests[r] !== undefined && nano(requests[r]) > nano(max)) errs.push(`maximum ${r} usage per ${type} is ${show(max)}, but request is ${show(requests[r]!)}`);
  }
  for (const r of Object.keys(item.maxLimitRequestRatio ?? {}).sort()) {
    const ratio = item.maxLimitRequestRatio![r]!;
    const req = nano(requests[r]);
    const lim = nano(limits[r]);
    if (req === 0n) errs.push(`${r} max limit to request ratio per ${type} is ${show(ratio)}, but no request is specified or request is 0`);
    else if (lim === 0n) errs.push(`${r} max limit to request ratio per ${type} is ${show(ratio)}, but no limit is specified or limit is 0`);
    else {
      const observed = Number(lim) / Number(req);
      if (observed * 1e9 > Number(nano(ratio)) * (1 + 1e-12)) errs.push(`${r} max limit to request ratio per ${type} is ${show(ratio)}, but provided ratio is ${observed.toFixed(6)}`);
    }
  }
}

function refuse(attrs: AdmissionAttributes, errs: string[]): void {
  if (!errs.length) return;
  // utilerrors.NewAggregate: one error prints as itself, several as "[a, b]".
  const message = errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
  throw forbidden(attrs.resource.group, attrs.resource.resource, attrs.name, message);
}

/**
 * The LimitRanger admission plugin. Mutating: a new pod's containers (and init containers) get
 * the Container limits' default limits and default requests they lack, recorded in the
 * `kubernetes.io/limit-ranger` annotation. Validating: min, max and maxLimitRequestRatio of the
 * Container, Pod and PersistentVolumeClaim limits, refused with kube's 403 messages.
 */
export function limitRanger(objects: AdmissionObjects): MutatingStep & ValidatingStep {
  const applies = (attrs: AdmissionAttributes) =>
    attrs.resource.group === '' && (attrs.resource.resource === 'pods' || attrs.resource.resource === 'persistentvolumeclaims') && attrs.subresource === '' && !!attrs.namespace;
  const rangesOf = (ns: string) => objects.list('', 'v1', 'limitranges', ns);
  return {
    name: 'LimitRanger',
    operations: ['CREATE', 'UPDATE'],
    async admit(attrs) {
      if (attrs.operation !== 'CREATE' || !applies(attrs) || attrs.resource.resource !== 'pods') return;
      const pod = attrs.object;
      const spec = pod?.spec as { containers?: Container[]; initContainers?: Container[] } | undefined;
      if (!pod || !spec) return;
      const list = items(await rangesOf(attrs.namespace)).filter((i) => i.type === 'Container');
      if (!list.length) return;
      let req: ResourceList = {};
      let lim: ResourceList = {};
      for (const i of list) {
        req = { ...req, ...(i.defaultRequest ?? {}) };
        lim = { ...lim, ...(i.default ?? {}) };
      }
      const notes: string[] = [];
      for (const c of spec.containers ?? []) merge(c, req, lim, 'container', notes);
      for (const c of spec.initContainers ?? []) merge(c, req, lim, 'init container', notes);
      if (notes.length) {
        const meta = (pod.metadata ??= {});
        meta.annotations = { ...(meta.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
      }
    },
    async validate(attrs) {
      if (!applies(attrs)) return;
      // Pods are checked once, at create; claims at create and on update.
      if (attrs.resource.resource === 'pods' && attrs.operation !== 'CREATE') return;
      const ranges = items(await rangesOf(attrs.namespace));
      if (!ranges.length) return;
      const errs: string[] = [];
      const obj = attrs.object;
      if (attrs.resource.resource === 'persistentvolumeclaims') {
        const res = (obj?.spec as { resources?: { requests?: ResourceList; limits?: ResourceList } } | undefined)?.resources ?? {};
        for (const i of ranges) if (i.type === 'PersistentVolumeClaim') checkItem(i, 'PersistentVolumeClaim', res.requests ?? {}, res.limits ?? {}, errs);
        return refuse(attrs, errs);
      }
      const spec = obj?.spec as { containers?: Container[]; initContainers?: Container[] } | undefined;
      for (const i of ranges) {
        if (i.type === 'Container') {
          for (const c of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
            checkItem(i, 'Container', c.resources?.requests ?? {}, c.resources?.limits ?? {}, errs);
          }
        } else if (i.type === 'Pod') {
          const { requests, limits } = podRequestsAndLimits(obj as never);
          checkItem(i, 'Pod', addResources({}, requests), addResources({}, limits), errs);
        }
      }
      refuse(attrs, errs);
    },
  };
}
