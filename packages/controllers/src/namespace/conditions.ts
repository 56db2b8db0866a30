/**
 * The namespace conditions the namespace controller maintains while it empties a deleted
 * namespace: their types, reasons and messages, worded as kube-controller-manager words them
 * (pkg/controller/namespace/deletion/status_condition_utils.go).
 */
import type { NamespaceCondition, NamespaceStatus } from '@kplane/runtime';

/** Condition types owned by the namespace controller, in the order they are written. */
export const NAMESPACE_CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

/** One of NAMESPACE_CONDITION_TYPES. */
export type NamespaceConditionType = (typeof NAMESPACE_CONDITION_TYPES)[number];

const OK: Record<NamespaceConditionType, { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGroupVersionParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: { reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
};

/** A group/resource and how many of its objects remain in the namespace. */
export interface RemainingContent {
  /** "" for the core group. */
  group: string;
  resource: string;
  count: number;
}

/** What one pass over a namespace's content found (input of namespaceConditions). */
export interface DeletionOutcome {
  /** Discovery failed, completely or for some groups. */
  discoveryError?: DiscoveryError | Error;
  /** A group/version string could not be parsed. */
  groupVersionError?: Error;
  /** One message per resource whose content could not be deleted or verified. */
  contentErrors: string[];
  /** Resources with objects left. */
  remaining: RemainingContent[];
  /** Finalizer name → number of remaining objects that carry it. */
  finalizers: Map<string, number>;
}

/** Discovery failed for some groups (client-go's ErrGroupDiscoveryFailed). */
export class DiscoveryError extends Error {
  /** "group/version" (or "v1") → what went wrong. */
  readonly groups: Map<string, string>;
  constructor(groups: Map<string, string>) {
    const parts = [...groups].map(([gv, msg]) => `${gv}: ${msg}`).sort();
    super(`unable to retrieve the complete list of server APIs: ${parts.join(', ')}`);
    this.name = 'DiscoveryError';
    this.groups = groups;
  }
}

/**
 * The failing conditions an outcome calls for (status True); condition types not returned are
 * healthy and get their "ok" variant from applyNamespaceConditions.
 */
export function namespaceConditions(outcome: DeletionOutcome): Map<NamespaceConditionType, { reason: string; message: string }> {
  const out = new Map<NamespaceConditionType, { reason: string; message: string }>();
  const d = outcome.discoveryError;
  if (d) {
    const message = d instanceof DiscoveryError ? `Discovery failed for some groups, ${d.groups.size} failing: ${d.message}` : d.message;
    out.set('NamespaceDeletionDiscoveryFailure', { reason: 'DiscoveryFailed', message });
  }
  if (outcome.groupVersionError) {
    out.set('NamespaceDeletionGroupVersionParsingFailure', { reason: 'GroupVersionParsingFailed', message: outcome.groupVersionError.message });
  }
  if (outcome.contentErrors.length > 0) {
    const msgs = [...outcome.contentErrors].sort();
    out.set('NamespaceDeletionContentFailure', {
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`,
    });
  }
  const remaining = outcome.remaining.filter((r) => r.count > 0).map((r) => `${r.resource}.${r.group} has ${r.count} resource instances`).sort();
  if (remaining.length > 0) {
    out.set('NamespaceContentRemaining', { reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${remaining.join(', ')}` });
  }
  const byFinalizer = [...outcome.finalizers].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`).sort();
  if (byFinalizer.length > 0) {
    out.set('NamespaceFinalizersRemaining', {
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${byFinalizer.join(', ')}`,
    });
  }
  return out;
}

/**
 * Writes every controller-owned condition into `status` (mutated in place): the failing ones
 * from `failing` with status True, the others with their "ok" reason and status False.
 * lastTransitionTime changes only when a condition's status flips. Returns whether anything
 * changed, so the caller writes the status only then.
 */
export function applyNamespaceConditions(
  status: NamespaceStatus,
  failing: Map<NamespaceConditionType, { reason: string; message: string }>,
  now: string,
): boolean {
  let changed = false;
  const conditions: NamespaceCondition[] = (status.conditions ??= []);
  for (const type of NAMESPACE_CONDITION_TYPES) {
    const bad = failing.get(type);
    const want = { type, status: bad ? ('True' as const) : ('False' as const), ...(bad ?? OK[type]) };
    const old = conditions.find((c) => c.type === type);
    if (!old) {
      conditions.push({ type, status: want.status, lastTransitionTime: now, reason: want.reason, message: want.message });
      changed = true;
    } else if (old.status !== want.status || old.reason !== want.reason || old.message !== want.message) {
      if (old.status !== want.status) old.lastTransitionTime = now;
      old.status = want.status;
      old.reason = want.reason;
      old.message = want.message;
      changed = true;
    }
  }
  return changed;
}
