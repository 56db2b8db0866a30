/**
 * A DaemonSet's ControllerRevisions (pkg/controller/daemon/update.go: constructHistory,
 * snapshot, dedupCurHistories, cleanupHistory): one revision per template, named
 * `<daemonset>-<hash>` with the `controller-revision-hash` label, its data the strategic merge
 * patch that restores the template (what `kubectl rollout undo` applies), its revision number
 * raised to the top when the DaemonSet goes back to it. Built on the shared controller-history
 * library for the API operations.
 */
import { ApiError, type KubeObject, type LabelSelector } from '@kplane/api';
import type { ResourceClient } from '@kplane/client';
import type { ControllerRevision, DaemonSet, Pod } from '@kplane/runtime';
import { computeHash } from '../deployment/hash.js';
import { goJsonMarshal, sortControllerRevisions, type ControllerHistory } from '../history/index.js';
import { claimObjects, controllerRefTo, recheckOwnerWith } from '../replicaset/controller-ref.js';
import { goJsonValue } from './go-json.js';
import { DAEMONSET_HASH_LABEL } from './util.js';

const API_VERSION = 'apps/v1';
const KIND = 'DaemonSet';

/**
 * The revision data of a DaemonSet: `{spec: {template: {..., $patch: replace}}}` (getPatch), laid
 * out as a Go client writes it (goJsonValue: empty omitempty fields dropped, zero structs such as
 * `creationTimestamp: null` written; keys sorted), so that kubectl, which compares the bytes with
 * its own rendering of the DaemonSet, recognises the current template ("skipped rollback").
 */
export function revisionData(ds: DaemonSet): Record<string, unknown> {
  const template = goJsonValue(ds.spec?.template ?? {}, 'io.k8s.api.core.v1.PodTemplateSpec') as Record<string, unknown>;
  return JSON.parse(goJsonMarshal({ spec: { template: { ...template, $patch: 'replace' } } })) as Record<string, unknown>;
}

/** Does a revision hold the DaemonSet's current template (Match)? */
export function matchesRevision(ds: DaemonSet, rev: ControllerRevision): boolean {
  return goJsonMarshal(revisionData(ds)) === goJsonMarshal(rev.data ?? null);
}

/** What history operations need. */
export interface DaemonSetHistoryDeps {
  history: ControllerHistory;
  revApi: ResourceClient<ControllerRevision>;
  dsApi: ResourceClient<DaemonSet>;
  podApi: ResourceClient<Pod>;
}

/** The current revision and the old ones. */
export interface ConstructedHistory {
  cur: ControllerRevision;
  old: ControllerRevision[];
}

const isCode = (err: unknown, code: number) => err instanceof ApiError && err.code === code;

/**
 * constructHistory: claims the namespace's revisions by the DaemonSet's selector, labels those
 * without a hash label with their name, finds the revision of the current template (creating it,
 * or keeping the highest of several and moving pods onto it) and gives it the next revision
 * number when an older template was current.
 */
export async function constructHistory(
  deps: DaemonSetHistoryDeps,
  ds: DaemonSet,
  selector: LabelSelector,
  revisions: ControllerRevision[],
  daemonPods: () => Pod[],
): Promise<ConstructedHistory> {
  const claimed = await claimObjects<ControllerRevision>({
    owner: ds,
    ownerApiVersion: API_VERSION,
    ownerKind: KIND,
    objects: revisions,
    match: (r) => selector.matches(r.metadata?.labels),
    api: deps.revApi,
    recheckOwner: recheckOwnerWith(deps.dsApi, ds, KIND),
  });
  const current: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (let rev of claimed) {
    if (rev.metadata?.labels?.[DAEMONSET_HASH_LABEL] === undefined) {
      const next = structuredClone(rev);
      next.metadata = { ...next.metadata, labels: { ...(next.metadata?.labels ?? {}), [DAEMONSET_HASH_LABEL]: next.metadata?.name ?? '' } };
      rev = await deps.revApi.update(next, { namespace: ds.metadata?.namespace });
    }
    (matchesRevision(ds, rev) ? current : old).push(rev);
  }
  const currRevision = old.reduce((m, r) => Math.max(m, r.revision ?? 0), 0) + 1;
  let cur: ControllerRevision;
  if (current.length === 0) {
    cur = await snapshot(deps, ds, currRevision);
  } else {
    cur = await dedupCurrent(deps, ds, current, daemonPods);
    if ((cur.revision ?? 0) < currRevision) cur = await deps.history.update(cur, currRevision);
  }
  return { cur, old };
}

/** snapshot: creates the revision of the current template; a name taken by another template bumps status.collisionCount. */
async function snapshot(deps: DaemonSetHistoryDeps, ds: DaemonSet, revision: number): Promise<ControllerRevision> {
  const ns = ds.metadata?.namespace;
  const hash = computeHash(ds.spec?.template, ds.status?.collisionCount);
  const name = `${ds.metadata?.name ?? ''}-${hash}`;
  const rev: ControllerRevision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      namespace: ns,
      labels: { ...(ds.spec?.template?.metadata?.labels ?? {}), [DAEMONSET_HASH_LABEL]: hash },
      ...(ds.metadata?.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
      ownerReferences: [controllerRefTo(ds as KubeObject, API_VERSION, KIND)],
    },
    data: revisionData(ds),
    revision,
  };
  try {
    return await deps.revApi.create(rev, { namespace: ns });
  } catch (err) {
    if (!isCode(err, 409) || (err as ApiError).reason !== 'AlreadyExists') throw err;
    const existing = await deps.revApi.get(name, { namespace: ns });
    if (matchesRevision(ds, existing)) return existing;
    // Another template has this name: count a collision (once), then try again with the next hash.
    const fresh = await deps.dsApi.get(ds.metadata?.name ?? '', { namespace: ns });
    if ((fresh.status?.collisionCount ?? undefined) !== (ds.status?.collisionCount ?? undefined)) {
      throw new Error(
        `found a stale collision count (${ds.status?.collisionCount ?? 'nil'}, expected ${fresh.status?.collisionCount ?? 'nil'}) of DaemonSet "${ds.metadata?.name}" while processing; will retry until it is updated`,
      );
    }
    fresh.status = { ...(fresh.status ?? { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 }), collisionCount: (fresh.status?.collisionCount ?? 0) + 1 };
    await deps.dsApi.updateStatus(fresh, { namespace: ns });
    throw err;
  }
}

/** dedupCurHistories: keeps the highest-numbered revision of the current template, relabels pods onto it, deletes the others. */
async function dedupCurrent(deps: DaemonSetHistoryDeps, ds: DaemonSet, current: ControllerRevision[], daemonPods: () => Pod[]): Promise<ControllerRevision> {
  if (current.length === 1) return current[0]!;
  let keep = current[0]!;
  for (const r of current) if ((r.revision ?? 0) >= (keep.revision ?? 0)) keep = r;
  const hash = keep.metadata?.labels?.[DAEMONSET_HASH_LABEL] ?? '';
  for (const pod of daemonPods()) {
    if (pod.metadata?.labels?.[DAEMONSET_HASH_LABEL] === hash) continue;
    await deps.podApi.patch(pod.metadata?.name ?? '', { metadata: { labels: { [DAEMONSET_HASH_LABEL]: hash } } }, 'merge', { namespace: pod.metadata?.namespace });
  }
  for (const r of current) if (r !== keep) await deps.history.delete(r);
  return keep;
}

/**
 * cleanupHistory: deletes the oldest old revisions beyond revisionHistoryLimit, never one whose
 * hash a daemon pod still carries.
 */
export async function cleanupHistory(deps: DaemonSetHistoryDeps, ds: DaemonSet, old: ControllerRevision[], pods: Iterable<Pod>): Promise<void> {
  let toKill = old.length - (ds.spec?.revisionHistoryLimit ?? 10);
  if (toKill <= 0) return;
  const live = new Set<string>();
  for (const pod of pods) {
    const h = pod.metadata?.labels?.[DAEMONSET_HASH_LABEL];
    if (h) live.add(h);
  }
  for (const rev of sortControllerRevisions(old)) {
    if (toKill <= 0) break;
    if (live.has(rev.metadata?.labels?.[DAEMONSET_HASH_LABEL] ?? '')) continue;
    await deps.history.delete(rev);
    toKill--;
  }
}
