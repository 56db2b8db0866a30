/**
 * The ClusterRole aggregation controller (kube-controller-manager's clusterrole-aggregation):
 * the rules of a ClusterRole with an aggregationRule are the union of the rules of the
 * ClusterRoles its selectors match, in name order, each rule once.
 */
import { isDeepStrictEqual } from 'node:util';
import { labelSelectorFromObject, type KubeObject } from '@kplane/api';
import { ClusterRoles, type Controller, type Manager } from '@kplane/runtime';

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

/**
 * Creates the ClusterRole aggregation controller and registers it with the manager.
 *
 * Guarantees: every change to a ClusterRole without an aggregationRule reconciles every
 * aggregated ClusterRole, a change to an aggregated one reconciles it; an
 * aggregated role whose rules differ from the union is updated (retried on conflicts by the
 * workqueue); one whose rules already match is not written.
 */
export function createClusterRoleAggregationController(options: ClusterRoleAggregationOptions): Controller {
  const { manager } = options;
  const roles = manager.factory.informerFor<AggregatedClusterRole>(ClusterRoles);
  const api = manager.client.resource(ClusterRoles);
  const aggregated = () => roles.store.list().filter((r) => r.aggregationRule);
  return manager
    .controller()
    .named(CLUSTERROLE_AGGREGATION_QUEUE_NAME)
    .for(ClusterRoles)
    .complete(async (request, { signal }) => {
      // A change to an aggregated role reconciles it; any other change may alter what every
      // aggregated role gathers, so it reconciles them all (kube enqueues them all).
      const changed = roles.store.get(request.name);
      const targets = changed?.aggregationRule ? [changed] : aggregated();
      const all = roles.store.list();
      for (const role of targets) {
        const want = aggregatedRules(role, all);
        if (want === undefined || isDeepStrictEqual(role.rules ?? [], want)) continue;
        const next = structuredClone(role) as AggregatedClusterRole;
        next.rules = want;
        await api.update(next as never, { signal });
      }
    });
}
