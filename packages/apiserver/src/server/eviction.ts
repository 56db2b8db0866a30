/**
 * POST /api/v1/namespaces/<ns>/pods/<name>/eviction: deletes a pod only when the
 * PodDisruptionBudget covering it allows, as kube-apiserver's EvictionREST.
 *
 * A pod already terminal, Pending or being deleted is deleted without a budget check. Otherwise
 * the budgets of the namespace whose selector matches the pod are read: more than one is a 500,
 * none lets the pod go; with one, a ready pod needs `status.disruptionsAllowed` > 0, which is
 * decremented with a conditional update of the budget (retried on conflicts) that also records
 * the pod in `status.disruptedPods`; a pod that is not ready is let go without a decrement when
 * the budget says `unhealthyPodEvictionPolicy: AlwaysAllow`, or when it is healthy enough
 * (IfHealthyBudget, the default). Refusals are 429 TooManyRequests with a DisruptionBudget cause.
 * The pod is then given the DisruptionTarget condition and deleted with the Eviction's options.
 */
import { ApiError, badRequest, conflict, labelSelectorFromObject, rfc3339, type KubeObject, type LabelSelectorObject, type Status } from '@kplane/api';
import type { Registry } from '../registry/registry.js';
import type { DeleteOptions, Store } from '../registry/store.js';
import { setPodCondition } from './binding.js';

type Obj = Record<string, unknown>;

const asObj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const int = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The message of every refused eviction. */
export const EVICTION_REFUSED_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget.";
/** Longest status.disruptedPods an eviction still adds to (kube's MaxDisruptedPodSize). */
export const MAX_DISRUPTED_POD_SIZE = 2000;
/** How many times a conflicting write of a budget is retried (kube's EvictionsRetry steps). */
const EVICTION_RETRIES = 20;

const SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as Status;

/** What an eviction needs besides the pod's name. */
export interface EvictionContext {
  registry: Registry;
  now(): Date;
  /** The request's dryRun (CreateOptions). */
  dryRun: boolean;
}

/** 429 TooManyRequests with the DisruptionBudget cause (retryAfterSeconds 0: none). */
function tooManyRequests(cause: string, retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'TooManyRequests', EVICTION_REFUSED_MESSAGE, {
    causes: [{ reason: 'DisruptionBudget', message: cause }],
    ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
  });
}

/** The refusal while the budget's controller has not seen its latest spec. */
function stillProcessing(name: string): ApiError {
  return tooManyRequests(`The disruption budget ${name} is still being processed by the server.`, 10);
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  const conditions = asObj(pod.status)?.conditions;
  return Array.isArray(conditions) && conditions.some((c) => asObj(c)?.type === 'Ready' && asObj(c)?.status === 'True');
}

/** canIgnorePDB: a terminal or Pending pod, or one being deleted, is evicted without a budget. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = asObj(pod.status)?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata?.deletionTimestamp;
}

/** shouldEnforceResourceVersion: a running pod is deleted at the version the decision was made on. */
function enforcesResourceVersion(pod: KubeObject): boolean {
  const phase = asObj(pod.status)?.phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata?.deletionTimestamp);
}

/** The budgets of the pod's namespace whose (valid, non-empty) selector matches its labels. */
async function budgetsOf(pdbs: Store, pod: KubeObject): Promise<KubeObject[]> {
  const list = await pdbs.list(pod.metadata?.namespace);
  const labels = pod.metadata?.labels ?? {};
  return list.items.filter((pdb) => {
    const sel = asObj(asObj(pdb.spec)?.selector) as LabelSelectorObject | undefined;
    if (!sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0)) return false;
    try {
      return labelSelectorFromObject(sel).matches(labels);
    } catch {
      return false;
    }
  });
}

/** pdbhelper.UpdateDisruptionAllowedCondition once disruptionsAllowed reached 0. */
function setInsufficientPods(status: Obj, now: Date): void {
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
  const next: Obj = { type: 'DisruptionAllowed', status: 'False', observedGeneration: int(status.observedGeneration), lastTransitionTime: rfc3339(now), reason: 'InsufficientPods', message: '' };
  const i = conditions.findIndex((c) => c?.type === 'DisruptionAllowed');
  if (i >= 0) {
    if (conditions[i]!.status === 'False') next.lastTransitionTime = conditions[i]!.lastTransitionTime;
    conditions[i] = { ...conditions[i], ...next };
  } else {
    conditions.push(next);
  }
  status.conditions = conditions;
}

/** checkAndDecrement: refuses, or takes one disruption from the budget with a conditional write. */
async function checkAndDecrement(pdbs: Store, pdb: KubeObject, podName: string, ctx: EvictionContext): Promise<void> {
  const name = pdb.metadata!.name!;
  const status = (asObj(pdb.status) ?? {}) as Obj;
  if (int(status.observedGeneration) < int(pdb.metadata?.generation)) throw stillProcessing(name);
  const allowed = int(status.disruptionsAllowed);
  if (allowed < 0) throw new ApiError(403, 'Forbidden', `poddisruptionbudget.policy "${name}" is forbidden: pdb disruptions allowed is negative`, { name, group: 'policy', kind: 'poddisruptionbudget' });
  const disrupted = (asObj(status.disruptedPods) ?? {}) as Obj;
  if (Object.keys(disrupted).length > MAX_DISRUPTED_POD_SIZE) {
    throw new ApiError(403, 'Forbidden', `poddisruptionbudget.policy "${name}" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller`, { name, group: 'policy', kind: 'poddisruptionbudget' });
  }
  if (allowed === 0) throw tooManyRequests(`The disruption budget ${name} needs ${int(status.desiredHealthy)} healthy pods and has ${int(status.currentHealthy)} currently`, 0);
  if (ctx.dryRun) return;
  const next = structuredClone(pdb);
  const nextStatus = (asObj(next.status) ?? {}) as Obj;
  nextStatus.disruptionsAllowed = allowed - 1;
  if (allowed - 1 === 0) setInsufficientPods(nextStatus, ctx.now());
  nextStatus.disruptedPods = { ...disrupted, [podName]: rfc3339(ctx.now()) };
  next.status = nextStatus;
  // The budget's resourceVersion stays: a budget changed since it was read is a conflict.
  await pdbs.update(pdb.metadata?.namespace, name, next, { subresource: 'status' });
}

/**
 * Gives the pod the DisruptionTarget condition (unless dry-run), then deletes it with `opts`.
 * A resourceVersion precondition is checked against the pod before the condition is written,
 * and moved to the version that write made.
 */
async function addConditionAndDelete(pods: Store, namespace: string, name: string, opts: DeleteOptions, now: Date): Promise<void> {
  let options = opts;
  if (!opts.dryRun) {
    const updated = await pods.guaranteedUpdate(
      namespace,
      name,
      (pod) => {
        const m = pod.metadata!;
        const pre = opts.preconditions;
        if (pre?.uid && pre.uid !== m.uid) throw conflict('', 'pods', name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${m.uid}`);
        if (pre?.resourceVersion && pre.resourceVersion !== m.resourceVersion) {
          throw conflict('', 'pods', name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion}`);
        }
        const status = (asObj(pod.status) ?? {}) as Obj;
        setPodCondition(status, { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(now), reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' });
        pod.status = status;
        delete m.resourceVersion;
        return pod;
      },
      { subresource: 'status' },
    );
    if (opts.preconditions?.resourceVersion) options = { ...opts, preconditions: { ...opts.preconditions, resourceVersion: updated.metadata?.resourceVersion } };
  }
  await pods.delete(namespace, name, options);
}

/** Retries `fn` on 409 Conflict (EvictionsRetry), unless `retry` is false. */
async function onConflict<T>(retry: boolean, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!retry || !(err instanceof ApiError) || err.code !== 409 || attempt >= EVICTION_RETRIES) throw err;
    }
  }
}

/**
 * Evicts pod `name` of `namespace` (the Eviction `eviction`, its deleteOptions already parsed
 * into `opts`). Resolves with the Status to answer: Success (201) when the pod was deleted (or
 * would be, on dry-run), a 500 Failure when more than one budget covers it; throws ApiError
 * otherwise (429 when a budget refuses).
 */
export async function evictPod(namespace: string, name: string, eviction: KubeObject, opts: DeleteOptions, ctx: EvictionContext): Promise<Status> {
  if (eviction.metadata?.name !== name) throw badRequest('name in URL does not match name in Eviction object');
  const pods = ctx.registry.get('', 'v1', 'pods')!;
  const pdbs = ctx.registry.get('policy', 'v1', 'poddisruptionbudgets');
  const original: DeleteOptions = { ...opts, dryRun: opts.dryRun || ctx.dryRun };
  const rvUnset = !original.preconditions?.resourceVersion;

  let pod!: KubeObject;
  const deleted = await onConflict(rvUnset, async () => {
    pod = await pods.get(namespace, name);
    if (!canIgnoreBudget(pod)) return false;
    let options = original;
    if (enforcesResourceVersion(pod) && rvUnset) options = { ...original, preconditions: { ...original.preconditions, resourceVersion: pod.metadata?.resourceVersion } };
    await addConditionAndDelete(pods, namespace, name, options, ctx.now());
    return true;
  });
  if (deleted) return SUCCESS;

  let budgetName = '';
  let withPodVersion = false;
  const budgets = pdbs ? await budgetsOf(pdbs, pod) : [];
  if (budgets.length > 1) {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 } as Status;
  }
  if (budgets.length === 1) {
    let pdb = budgets[0]!;
    budgetName = pdb.metadata!.name!;
    const spec = (asObj(pdb.spec) ?? {}) as Obj;
    const status = (asObj(pdb.status) ?? {}) as Obj;
    const ready = isPodReady(pod);
    if (!ready && spec.unhealthyPodEvictionPolicy === 'AlwaysAllow') withPodVersion = true;
    else if (!ready && int(status.currentHealthy) >= int(status.desiredHealthy) && int(status.desiredHealthy) > 0) withPodVersion = true;
    else {
      let refresh = false;
      try {
        await onConflict(true, async () => {
          if (refresh) pdb = await pdbs!.get(namespace, budgetName);
          refresh = true;
          await checkAndDecrement(pdbs!, pdb, name, ctx);
        });
      } catch (err) {
        if (err instanceof ApiError && err.code === 409) {
          throw new ApiError(504, 'Timeout', `Timeout: couldn't update PodDisruptionBudget "${budgetName}" due to conflicts`, { retryAfterSeconds: 10 });
        }
        throw err;
      }
    }
  }

  let options = original;
  if (withPodVersion) options = { ...original, preconditions: { ...original.preconditions, resourceVersion: pod.metadata?.resourceVersion } };
  try {
    await addConditionAndDelete(pods, namespace, name, options, ctx.now());
  } catch (err) {
    // The pod changed (became ready?) since it was let go unchecked: the client retries.
    if (err instanceof ApiError && err.code === 409 && withPodVersion && rvUnset) throw stillProcessing(budgetName);
    throw err;
  }
  return SUCCESS;
}
