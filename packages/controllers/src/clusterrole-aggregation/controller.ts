/**
 * The ClusterRole aggregation controller (kube-controller-manager's clusterrole-aggregation):
 * the rules of a ClusterRole with an aggregationRule are the union of the rules of the
 * ClusterRoles its selectors match, in name order, each rule once.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError, labelSelectorFromObject, type KubeObject } from '@kplane/api';
import { Action, ClusterRoles, createController, createWorkqueue, type Controller, type Manager } from '@kplane/runtime';

/** The name of the controller and of its workqueue, as in kube-controller-manager. */
export const CLUSTERROLE_AGGREGATION_QUEUE_NAME = 'ClusterRoleAggregator';

/** A ClusterRole as the controller reads it. */
export interface AggregatedClusterRole extends KubeObject {
  rules?: unknown[];
  aggregationRule?: { clusterRoleSelectors?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] }[] } | null;
}

/** Options of createClusterRoleAggregationController. */
export interface ClusterRoleAggregationOptions {
  /** The manager that runs the controller. */
  manager: Manager;
}

/**
 * The rules an aggregated ClusterRole should have: for each selector in order, the rules of
 * the matching ClusterRoles (itself excluded) sorted by name, each distinct rule once.
 * undefined when the role has no aggregationRule.
 */
export function aggregatedRules(role: AggregatedClusterRole, all: readonly AggregatedClusterRole[]): unknown[] | undefined {
  const selectors = role.aggregationRule?.clusterRoleSelectors;
  if (!role.aggregationRule) return undefined;
  const rules: unknown[] = [];
  for (const sel of selectors ?? []) {
    let selector;
    try {
      selector = labelSelectorFromObject(sel as never);
    } catch {
      continue;
    }
    const matched = all
      .filter((r) => r.metadata?.name !== role.metadata?.name && selector.matches(r.metadata?.labels ?? {}))
      .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    for (const r of matched) for (const rule of r.rules ?? []) if (!rules.some((x) => isDeepStrictEqual(x, rule))) rules.push(rule);
  }
  return rules;
}

/** The field manager of the rules the controller applies, as kube-controller-manager's. */
export const CLUSTERROLE_AGGREGATION_FIELD_MANAGER = 'clusterrole-aggregation-controller';

/** A rule as Go encodes a PolicyRule: empty lists are left out (omitempty). */
function ruleForApply(rule: unknown): unknown {
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) return rule;
  return Object.fromEntries(Object.entries(rule).filter(([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)));
}

/**
 * Creates the ClusterRole aggregation controller and registers it with the manager.
 *
 * Guarantees (as kube-controller-manager's): every change to any ClusterRole enqueues each
 * ClusterRole that has an aggregationRule, one key per aggregated role, so one role is never
 * written by two workers at once; a role whose rules differ from the union gets them by
 * server-side apply with the field manager `clusterrole-aggregation-controller` and force
 * (falling back on an update when the server answers 415); one whose rules already match is
 * not written. Failed writes are retried with the workqueue's backoff.
 */
export function createClusterRoleAggregationController(options: ClusterRoleAggregationOptions): Controller {
  const { manager } = options;
  const roles = manager.factory.informerFor<AggregatedClusterRole>(ClusterRoles);
  const api = manager.client.resource(ClusterRoles);
  const queue = createWorkqueue({ name: CLUSTERROLE_AGGREGATION_QUEUE_NAME, clock: manager.clock, metrics: manager.metrics });
  // The set of ClusterRoles is small and which role feeds which is not known: any change
  // enqueues every aggregated role.
  const enqueueAll = (): void => {
    for (const r of roles.store.list()) if (r.aggregationRule) queue.add(r.metadata!.name!);
  };
  const controller = createController({
    name: CLUSTERROLE_AGGREGATION_QUEUE_NAME,
    queue,
    clock: manager.clock,
    metrics: manager.metrics,
    informers: [roles],
    maxConcurrentReconciles: 5,
    sources: [() => roles.addEventHandler({ onAdd: enqueueAll, onUpdate: enqueueAll, onDelete: enqueueAll })],
    async reconcile(request, { signal }) {
      const role = roles.store.get(request.name);
      if (!role?.aggregationRule) return Action.awaitChange();
      const want = aggregatedRules(role, roles.store.list());
      if (want === undefined || isDeepStrictEqual(role.rules ?? [], want)) return Action.awaitChange();
      const rules = want.map(ruleForApply);
      try {
        await api.apply(
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: request.name }, ...(rules.length ? { rules } : {}) } as never,
          { fieldManager: CLUSTERROLE_AGGREGATION_FIELD_MANAGER, force: true, signal },
        );
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 415)) throw err;
        // A server without server-side apply: write the rules with an update.
        await api.update({ ...structuredClone(role), rules: want } as never, { signal });
      }
      return Action.awaitChange();
    },
  });
  manager.add(controller);
  return controller;
}
