/**
 * The ValidatingAdmissionPolicy status loop (kube-controller-manager's
 * validatingadmissionpolicy-status-controller, run here in the API server, which holds the
 * schemas): follows the policies by a watch and, for each whose status.observedGeneration is
 * behind its generation, type-checks its expressions and writes status.observedGeneration and
 * status.typeChecking. A write that loses a race (409) is retried by the event the other write makes.
 */
import { ApiError, type KubeObject } from '@kplane/api';
import type { Followable } from '../webhook/cache.js';
import { loadCel } from '../../crd/cel/load.js';
import { typeCheckPolicy, type TypeCheckSource } from './typecheck.js';

/** What the loop reads and writes. */
export interface PolicyStatusOptions {
  /** The validatingadmissionpolicies store: a list, then a watch. */
  store: Followable;
  /** The served kinds and schemas the expressions are checked against. */
  types: TypeCheckSource;
  /** A conditional write of a policy's status. */
  updateStatus(obj: KubeObject): Promise<KubeObject>;
  onError?(err: unknown): void;
}

/** A running status loop. */
export interface PolicyStatusLoop {
  stop(): void;
  /** Resolves once every policy seen so far is reconciled (tests). */
  idle(): Promise<void>;
}

/** The status a policy should have: its generation observed and its type checking's warnings (the CEL library loaded: see loadCel). */
export function policyStatus(policy: KubeObject, types: TypeCheckSource): Record<string, unknown> {
  const warnings = typeCheckPolicy(policy, types);
  return {
    ...((policy.status as Record<string, unknown> | undefined) ?? {}),
    observedGeneration: policy.metadata?.generation ?? 0,
    typeChecking: warnings.length ? { expressionWarnings: warnings } : {},
  };
}

/** Starts the loop (resolves after the first list is queued). */
export async function startPolicyStatus(options: PolicyStatusOptions): Promise<PolicyStatusLoop> {
  const stop = new AbortController();
  const onError = options.onError ?? (() => {});
  let queue: Promise<void> = Promise.resolve();
  const reconcile = (policy: KubeObject) => {
    const status = policy.status as { observedGeneration?: number } | undefined;
    if (status?.observedGeneration === (policy.metadata?.generation ?? 0)) return;
    queue = queue.then(async () => {
      if (stop.signal.aborted) return;
      try {
        await loadCel();
        await options.updateStatus({ ...policy, status: policyStatus(policy, options.types) });
      } catch (err) {
        if (err instanceof ApiError && (err.code === 409 || err.code === 404)) return;
        onError(err);
      }
    });
  };
  const relist = async (): Promise<number> => {
    const list = await options.store.list(undefined);
    for (const p of list.items) reconcile(p);
    return Number(list.metadata.resourceVersion);
  };
  let rv = await relist();
  void (async () => {
    while (!stop.signal.aborted) {
      try {
        for await (const e of options.store.cache.watch(rv, stop.signal)) {
          if (e.type === 'ADDED' || e.type === 'MODIFIED') reconcile(e.object);
          rv = e.revision ?? Number(e.object.metadata?.resourceVersion ?? rv);
        }
      } catch (err) {
        if (stop.signal.aborted) return;
        onError(err);
      }
      if (stop.signal.aborted) return;
      try {
        rv = await relist();
      } catch (err) {
        onError(err);
        return;
      }
    }
  })();
  return {
    stop: () => stop.abort(),
    idle: () => queue,
  };
}
