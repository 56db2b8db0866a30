/**
 * Empties a deleted namespace, then releases it: kube-controller-manager's namespaced resources
 * deleter (pkg/controller/namespace/deletion), built on the REST client only.
 */
import { ApiError, type KubeObject } from '@kplane/api';
import type { Client } from '@kplane/client';
import { Namespaces, Pods, formatTime, realClock, type Clock, type Namespace, type Pod } from '@kplane/runtime';
import { applyNamespaceConditions, namespaceConditions, type DeletionOutcome } from './conditions.js';
import { discoverDeletableNamespacedResources, type DiscoveryResult, type NamespacedResource } from './discovery.js';

/** The finalizer token the namespace controller owns in spec.finalizers. */
export const FINALIZER_KUBERNETES = 'kubernetes';

/** Seconds assumed for finalizers to run when remaining objects carry some (k8s: 15). */
export const FINALIZER_ESTIMATE_SECONDS = 15;

/** Options of createNamespaceDeleter. */
export interface NamespaceDeleterOptions {
  client: Client;
  /** Time source for condition timestamps and the pod grace estimate. */
  clock?: Clock;
  /** The token removed from spec.finalizers once the namespace is empty (default "kubernetes"). */
  finalizerToken?: string;
  /** Discovery (default: discoverDeletableNamespacedResources on `client`). */
  discover?: (signal?: AbortSignal) => Promise<DiscoveryResult>;
  /** Told about failures that do not stop the pass (e.g. a status write that lost a race). */
  log?: (message: string) => void;
}

/** Deletes the content of namespaces. */
export interface NamespaceDeleter {
  /**
   * One pass over a namespace: does nothing unless it is being deleted; otherwise deletes every
   * object in it, records the outcome in its conditions and, once it is empty, removes the
   * finalizer token through the finalize subresource.
   *
   * Returns 0 when there is nothing more to do, or an estimate in seconds of how long the
   * remaining content needs to go away (call again later). Throws when a step failed (discovery,
   * a deletion, a status write): the caller retries with backoff.
   */
  delete(name: string, signal?: AbortSignal): Promise<number>;
}

/** Result of emptying one resource. */
interface ResourceOutcome {
  estimate: number;
  remaining: number;
  finalizers: Map<string, number>;
  error?: string;
}

const isCode = (err: unknown, ...codes: number[]): boolean => err instanceof ApiError && codes.includes(err.code);

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The aggregate of several errors, printed as apimachinery's utilerrors.NewAggregate prints it. */
export class AggregateDeletionError extends Error {
  constructor(readonly errors: string[]) {
    super(errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`);
    this.name = 'AggregateDeletionError';
  }
}

/** Creates a namespace deleter. */
export function createNamespaceDeleter(options: NamespaceDeleterOptions): NamespaceDeleter {
  const { client } = options;
  const clock = options.clock ?? realClock;
  const token = options.finalizerToken ?? FINALIZER_KUBERNETES;
  const discover = options.discover ?? ((signal?: AbortSignal) => discoverDeletableNamespacedResources(client, signal));
  const log = options.log ?? (() => {});
  const namespaces = client.resource(Namespaces);
  // Operations a resource turned out not to support (405 or 404), remembered across passes.
  const unsupported = new Set<string>();
  const opKey = (op: string, r: NamespacedResource) => `${op} ${r.group}/${r.version}/${r.resource}`;
  const supports = (op: 'list' | 'deletecollection', r: NamespacedResource) => r.verbs.has(op) && !unsupported.has(opKey(op, r));
  const api = (r: NamespacedResource) => client.resource({ group: r.group, version: r.version, resource: r.resource, namespaced: true, kind: r.kind });

  /** Runs `fn` on the namespace, re-reading it after a conflict; fails if its uid changed. */
  async function retryOnConflict(ns: Namespace, fn: (ns: Namespace) => Promise<Namespace>, signal?: AbortSignal): Promise<Namespace> {
    let latest = ns;
    for (;;) {
      try {
        return await fn(latest);
      } catch (err) {
        if (!isCode(err, 409)) throw err;
        const prev = latest;
        latest = await namespaces.get(prev.metadata!.name!, { signal });
        if (prev.metadata?.uid !== latest.metadata?.uid) throw new Error('namespace uid has changed across retries');
      }
    }
  }

  async function list(r: NamespacedResource, ns: string, signal?: AbortSignal): Promise<KubeObject[] | undefined> {
    if (!supports('list', r)) return undefined;
    try {
      return (await api(r).listAll({ namespace: ns, signal })).items;
    } catch (err) {
      if (isCode(err, 404, 405)) {
        unsupported.add(opKey('list', r));
        return undefined;
      }
      throw err;
    }
  }

  /** The longest grace period of the namespace's running pods, if it has not elapsed yet. */
  async function podEstimate(ns: string, deletedAt: number, signal?: AbortSignal): Promise<number> {
    const pods = await client.resource(Pods).listAll({ namespace: ns, signal });
    let estimate = 0;
    for (const pod of pods.items as Pod[]) {
      const phase = pod.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      const grace = pod.spec?.terminationGracePeriodSeconds;
      if (typeof grace === 'number' && grace > estimate) estimate = grace;
    }
    return clock.now() - deletedAt >= estimate * 1000 ? 0 : estimate;
  }

  async function emptyResource(r: NamespacedResource, ns: string, deletedAt: number, signal?: AbortSignal): Promise<ResourceOutcome> {
    const none = new Map<string, number>();
    let estimate = 0;
    try {
      if (r.group === '' && r.resource === 'pods') estimate = await podEstimate(ns, deletedAt, signal);
    } catch (err) {
      return { estimate: 0, remaining: 0, finalizers: none, error: message(err) };
    }
    try {
      let collectionDeleted = false;
      if (supports('deletecollection', r)) {
        try {
          await api(r).deleteCollection({ namespace: ns, propagationPolicy: 'Background', signal });
          collectionDeleted = true;
        } catch (err) {
          if (!isCode(err, 404, 405)) throw err;
          unsupported.add(opKey('deletecollection', r));
        }
      }
      if (!collectionDeleted) {
        for (const item of (await list(r, ns, signal)) ?? []) {
          try {
            await api(r).delete(item.metadata!.name!, { namespace: ns, propagationPolicy: 'Background', signal });
          } catch (err) {
            if (!isCode(err, 404, 405)) throw err;
          }
        }
      }
      const left = await list(r, ns, signal);
      if (!left || left.length === 0) return { estimate: left ? 0 : estimate, remaining: 0, finalizers: none };
      const finalizers = new Map<string, number>();
      for (const item of left) for (const f of item.metadata?.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
      if (estimate !== 0) return { estimate, remaining: left.length, finalizers };
      if (finalizers.size > 0) return { estimate: FINALIZER_ESTIMATE_SECONDS, remaining: left.length, finalizers };
      return {
        estimate,
        remaining: left.length,
        finalizers,
        error: `unexpected items still remain in namespace: ${ns} for gvr: ${r.group}/${r.version}, Resource=${r.resource}`,
      };
    } catch (err) {
      return { estimate, remaining: 0, finalizers: none, error: message(err) };
    }
  }

  /** Deletes everything in the namespace and records the outcome in its conditions. */
  async function deleteAllContent(ns: Namespace, signal?: AbortSignal): Promise<{ estimate: number; ns: Namespace }> {
    const name = ns.metadata!.name!;
    const deletedAt = Date.parse(ns.metadata!.deletionTimestamp!);
    const found = await discover(signal);
    const outcome: DeletionOutcome = {
      discoveryError: found.error,
      groupVersionError: found.groupVersionError,
      contentErrors: [],
      remaining: [],
      finalizers: new Map(),
    };
    const results = await Promise.all(found.resources.map(async (r) => ({ r, out: await emptyResource(r, name, deletedAt, signal) })));
    let estimate = 0;
    for (const { r, out } of results) {
      if (out.error !== undefined) outcome.contentErrors.push(out.error);
      estimate = Math.max(estimate, out.estimate);
      if (out.remaining > 0) {
        outcome.remaining.push({ group: r.group, resource: r.resource, count: out.remaining });
        for (const [f, n] of out.finalizers) outcome.finalizers.set(f, (outcome.finalizers.get(f) ?? 0) + n);
      }
    }
    // Always reconcile the conditions: a failure that went away must be shown as gone.
    const next = structuredClone(ns) as Namespace;
    next.status ??= {};
    let current = ns;
    if (applyNamespaceConditions(next.status, namespaceConditions(outcome), formatTime(clock.now()))) {
      try {
        current = await namespaces.updateStatus(next, { signal });
      } catch (err) {
        log(`couldn't update status condition for namespace "${name}": ${message(err)}`);
      }
    }
    const errors = [
      ...(found.error ? [found.error.message] : []),
      ...(found.groupVersionError ? [found.groupVersionError.message] : []),
      ...outcome.contentErrors,
    ];
    if (errors.length > 0) throw new AggregateDeletionError(errors);
    return { estimate, ns: current };
  }

  return {
    async delete(name, signal) {
      let ns: Namespace;
      try {
        ns = await namespaces.get(name, { signal });
      } catch (err) {
        if (isCode(err, 404)) return 0;
        throw err;
      }
      if (!ns.metadata?.deletionTimestamp) return 0;
      try {
        ns = await retryOnConflict(ns, async (cur) => {
          if (!cur.metadata?.deletionTimestamp || cur.status?.phase === 'Terminating') return cur;
          const next = structuredClone(cur) as Namespace;
          next.status = { ...next.status, phase: 'Terminating' };
          return namespaces.updateStatus(next, { signal });
        }, signal);
      } catch (err) {
        if (isCode(err, 404)) return 0;
        throw err;
      }
      if (!ns.metadata?.deletionTimestamp) return 0;
      if ((ns.spec?.finalizers ?? []).length === 0) return 0;
      const { estimate, ns: latest } = await deleteAllContent(ns, signal);
      if (estimate > 0) return estimate;
      try {
        await retryOnConflict(latest, async (cur) => {
          const next = structuredClone(cur) as Namespace;
          next.spec = { ...next.spec, finalizers: [...new Set((cur.spec?.finalizers ?? []).filter((f) => f !== token))].sort() };
          try {
            return await namespaces.updateSubresource<Namespace>(name, 'finalize', next, { signal });
          } catch (err) {
            if (isCode(err, 404)) return cur;
            throw err;
          }
        }, signal);
      } catch (err) {
        if (isCode(err, 404)) return 0;
        throw err;
      }
      return 0;
    },
  };
}
