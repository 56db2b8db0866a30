/**
 * Deployment arithmetic and bookkeeping, as pkg/controller/deployment/util/deployment_util.go:
 * revisions and replica annotations, maxSurge / maxUnavailable, the new ReplicaSet's size,
 * proportional scaling, conditions and status.
 */
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from '@kplane/runtime';
import { formatTime } from '@kplane/runtime';
import { equalIgnoreHash } from './hash.js';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
const DEPRECATED_ROLLBACK_TO = 'deprecated.deployment.rollback.to';
/** Revision history kept on a ReplicaSet is cut to about 100 revisions (2000 characters). */
export const MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000;

/** Condition reasons of Deployments. */
export const Reasons = {
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  FailedRSCreate: 'ReplicaSetCreateError',
  NewReplicaSet: 'NewReplicaSetCreated',
  FoundNewRS: 'FoundNewReplicaSet',
  NewRSAvailable: 'NewReplicaSetAvailable',
  TimedOut: 'ProgressDeadlineExceeded',
  Paused: 'DeploymentPaused',
  Resumed: 'DeploymentResumed',
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

const MAX_INT32 = 2147483647;
const SKIPPED_ANNOTATIONS = new Set([
  LAST_APPLIED_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  DEPRECATED_ROLLBACK_TO,
]);

export const replicasOf = (o: Deployment | ReplicaSet | undefined): number => o?.spec?.replicas ?? 0;
const time = (t: string | undefined): number => (t ? Date.parse(t) || 0 : 0);

/** The revision of a ReplicaSet (0 without annotation, NaN when unparsable). */
export function revisionOf(rs: ReplicaSet): number {
  const v = rs.metadata?.annotations?.[REVISION_ANNOTATION];
  if (v === undefined) return 0;
  return /^-?\d+$/.test(v) ? Number(v) : Number.NaN;
}

/** The highest revision among ReplicaSets (unparsable ones are skipped). */
export function maxRevision(rss: ReplicaSet[]): number {
  let max = 0;
  for (const rs of rss) {
    const r = revisionOf(rs);
    if (!Number.isNaN(r) && r > max) max = r;
  }
  return max;
}

/** Copies the Deployment's annotations (but the skipped ones) to the ReplicaSet; true when something changed. */
function copyAnnotations(d: Deployment, rs: ReplicaSet): boolean {
  const ann = (rs.metadata!.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (SKIPPED_ANNOTATIONS.has(k) || ann[k] === v) continue;
    ann[k] = v;
    changed = true;
  }
  return changed;
}

/** Sets the desired- and max-replicas annotations; true when something changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const ann = ((rs.metadata ??= {}).annotations ??= {});
  let changed = false;
  if (ann[DESIRED_REPLICAS_ANNOTATION] !== String(desired)) {
    ann[DESIRED_REPLICAS_ANNOTATION] = String(desired);
    changed = true;
  }
  if (ann[MAX_REPLICAS_ANNOTATION] !== String(max)) {
    ann[MAX_REPLICAS_ANNOTATION] = String(max);
    changed = true;
  }
  return changed;
}

/** True when the replica annotations differ from these values. */
export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const ann = rs.metadata?.annotations ?? {};
  return ann[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || ann[MAX_REPLICAS_ANNOTATION] !== String(max);
}

/**
 * Updates the new ReplicaSet's annotations (mutates `rs`): the Deployment's own annotations,
 * the revision when it must grow (keeping the old ones in revision-history on a rollback), and
 * for a ReplicaSet about to be created the replica annotations. True when anything changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: string, exists: boolean, historyLimitChars = MAX_REV_HISTORY_LENGTH_IN_CHARS): boolean {
  rs.metadata ??= {};
  let changed = copyAnnotations(d, rs);
  const ann = (rs.metadata.annotations ??= {});
  const had = Object.prototype.hasOwnProperty.call(ann, REVISION_ANNOTATION);
  const oldRevision = ann[REVISION_ANNOTATION] ?? '';
  let oldInt = 0;
  if (oldRevision !== '') {
    if (!/^-?\d+$/.test(oldRevision)) return false;
    oldInt = Number(oldRevision);
  }
  const newInt = Number(newRevision);
  if (oldInt < newInt) {
    ann[REVISION_ANNOTATION] = newRevision;
    changed = true;
    if (had) {
      const history = ann[REVISION_HISTORY_ANNOTATION] ?? '';
      if (history === '') ann[REVISION_HISTORY_ANNOTATION] = oldRevision;
      else {
        const old = history.split(',');
        let total = history.length + oldRevision.length + 1;
        let start = 0;
        while (total > historyLimitChars && start < old.length) total -= old[start++]!.length + 1;
        if (total <= historyLimitChars) ann[REVISION_HISTORY_ANNOTATION] = [...old.slice(start), oldRevision].join(',');
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, replicasOf(d), replicasOf(d) + maxSurge(d))) changed = true;
  return changed;
}

/** intstr.GetValueFromIntOrPercent: a count, or a percentage of `total` rounded up or down. */
export function valueFromIntOrPercent(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) {
    if (/^\d+$/.test(v)) return Number(v);
    throw new Error(`invalid value for IntOrString: invalid value "${v}": must be an integer or percentage (e.g '5%')`);
  }
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

export const isRollingUpdate = (d: Deployment): boolean => (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/** maxSurge and maxUnavailable resolved together; both 0 makes maxUnavailable 1. */
export function resolveFenceposts(surgeV: number | string | undefined, unavailableV: number | string | undefined, desired: number): [number, number] {
  const surge = valueFromIntOrPercent(surgeV ?? 0, desired, true);
  let unavailable = valueFromIntOrPercent(unavailableV ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

/** The most pods a rolling Deployment may have unavailable (0 for Recreate or 0 replicas). */
export function maxUnavailable(d: Deployment): number {
  const replicas = replicasOf(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  const [, unavailable] = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas);
  return Math.min(unavailable, replicas);
}

/** The most pods a rolling Deployment may have above its replicas (0 for Recreate). */
export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicasOf(d))[0];
}

/** Sum of spec.replicas. */
export const specReplicas = (rss: Array<ReplicaSet | undefined>): number => rss.reduce((n, rs) => n + replicasOf(rs), 0);
/** Sum of status.replicas. */
export const actualReplicas = (rss: Array<ReplicaSet | undefined>): number => rss.reduce((n, rs) => n + (rs?.status?.replicas ?? 0), 0);
/** Sum of status.readyReplicas. */
export const readyReplicas = (rss: Array<ReplicaSet | undefined>): number => rss.reduce((n, rs) => n + (rs?.status?.readyReplicas ?? 0), 0);
/** Sum of status.availableReplicas. */
export const availableReplicas = (rss: Array<ReplicaSet | undefined>): number => rss.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);

/** ReplicaSets with spec.replicas > 0. */
export const filterActive = (rss: Array<ReplicaSet | undefined>): ReplicaSet[] => rss.filter((rs): rs is ReplicaSet => !!rs && replicasOf(rs) > 0);

/** Oldest first, then by name (ReplicaSetsByCreationTimestamp). */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  const ta = time(a.metadata?.creationTimestamp);
  const tb = time(b.metadata?.creationTimestamp);
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** Largest first; ties: older first (ReplicaSetsBySizeOlder). */
export const bySizeOlder = (a: ReplicaSet, b: ReplicaSet): number => replicasOf(b) - replicasOf(a) || byCreation(a, b);
/** Largest first; ties: newer first (ReplicaSetsBySizeNewer). */
export const bySizeNewer = (a: ReplicaSet, b: ReplicaSet): number => replicasOf(b) - replicasOf(a) || byCreation(b, a);
/** Lowest revision first; ties or unparsable: by creation (ReplicaSetsByRevision). */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const ra = revisionOf(a);
  const rb = revisionOf(b);
  if (Number.isNaN(ra) || Number.isNaN(rb) || ra === rb) return byCreation(a, b);
  return ra - rb;
}

/** The oldest ReplicaSet whose template equals the Deployment's (FindNewReplicaSet). */
export function findNewReplicaSet(d: Deployment, rss: ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/** Every ReplicaSet but the new one (FindOldReplicaSets' second result). */
export function findOldReplicaSets(d: Deployment, rss: ReplicaSet[]): ReplicaSet[] {
  const newRS = findNewReplicaSet(d, rss);
  return rss.filter((rs) => !newRS || rs.metadata?.uid !== newRS.metadata?.uid);
}

/** The only active ReplicaSet, or the newest when none is active; undefined when several are. */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const olds = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = filterActive([...olds, newRS]);
  if (active.length === 0) return newRS ?? olds[0];
  return active.length === 1 ? active[0] : undefined;
}

/** The size the new ReplicaSet should have now (NewRSNewReplicas). */
export function newRSNewReplicas(d: Deployment, allRSs: ReplicaSet[], newRS: ReplicaSet): number {
  if (!isRollingUpdate(d)) return replicasOf(d);
  const surge = valueFromIntOrPercent(d.spec?.strategy?.rollingUpdate?.maxSurge ?? 0, replicasOf(d), true);
  const current = specReplicas(allRSs);
  const maxTotal = replicasOf(d) + surge;
  if (current >= maxTotal) return replicasOf(newRS);
  const up = Math.min(maxTotal - current, replicasOf(d) - replicasOf(newRS));
  return replicasOf(newRS) + up;
}

/** The new ReplicaSet has all the replicas, all available, and knows it (IsSaturated). */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const desired = rs.metadata?.annotations?.[DESIRED_REPLICAS_ANNOTATION];
  if (desired === undefined || !/^-?\d+$/.test(desired)) return false;
  return replicasOf(rs) === replicasOf(d) && Number(desired) === replicasOf(d) && (rs.status?.availableReplicas ?? 0) === replicasOf(d);
}

/** How many replicas `rs` gains or loses in a proportional scaling (GetProportion). */
export function getProportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  if (replicasOf(d) === 0) return -replicasOf(rs);
  const deploymentReplicas = replicasOf(d) + maxSurge(d);
  const annotated = rs.metadata?.annotations?.[MAX_REPLICAS_ANNOTATION];
  const base = annotated !== undefined && /^-?\d+$/.test(annotated) ? Number(annotated) : (d.status?.replicas ?? 0);
  const size = (replicasOf(rs) * deploymentReplicas) / base;
  return Math.round(size) - replicasOf(rs);
}

/** progressDeadlineSeconds is set and not MaxInt32. */
export const hasProgressDeadline = (d: Deployment): boolean => d.spec?.progressDeadlineSeconds !== undefined && d.spec.progressDeadlineSeconds !== MAX_INT32;
/** revisionHistoryLimit is set and not MaxInt32. */
export const hasRevisionHistoryLimit = (d: Deployment): boolean => d.spec?.revisionHistoryLimit !== undefined && d.spec.revisionHistoryLimit !== MAX_INT32;

/** The condition of a type. */
export const getCondition = (s: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined => s?.conditions?.find((c) => c.type === type);

/** A new condition stamped `nowMs`. */
export function newCondition(type: string, status: DeploymentCondition['status'], reason: string, message: string, nowMs: number): DeploymentCondition {
  const t = formatTime(nowMs);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** Sets a condition unless one with the same status and reason exists; keeps lastTransitionTime while the status holds. */
export function setCondition(s: DeploymentStatus, c: DeploymentCondition): void {
  const cur = getCondition(s, c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return;
  const next = { ...c };
  if (cur && cur.status === c.status) next.lastTransitionTime = cur.lastTransitionTime;
  s.conditions = [...(s.conditions ?? []).filter((x) => x.type !== c.type), next];
}

/** Removes the condition of a type. */
export function removeCondition(s: DeploymentStatus, type: string): void {
  if (!s.conditions) return;
  s.conditions = s.conditions.filter((c) => c.type !== type);
  if (s.conditions.length === 0) delete s.conditions;
}

/** Every desired replica updated and available, no old one left, the generation observed. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const r = replicasOf(d);
  return (s.updatedReplicas ?? 0) === r && (s.replicas ?? 0) === r && (s.availableReplicas ?? 0) === r && (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
}

/** The new status shows progress over the current one. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const o = d.status ?? {};
  const oldOld = (o.replicas ?? 0) - (o.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (o.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (o.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (o.availableReplicas ?? 0)
  );
}

/** No progress for progressDeadlineSeconds since the Progressing condition's lastUpdateTime. */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, 'Progressing');
  if (!c) return false;
  if (c.reason === Reasons.NewRSAvailable) return false;
  if (c.reason === Reasons.TimedOut) return true;
  return time(c.lastUpdateTime) + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 < nowMs;
}

/** The status the ReplicaSets imply (calculateStatus), with the Available condition. */
export function calculateStatus(allRSs: Array<ReplicaSet | undefined>, newRS: ReplicaSet | undefined, d: Deployment, nowMs: number): DeploymentStatus {
  const available = availableReplicas(allRSs);
  const total = specReplicas(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata?.generation,
    replicas: actualReplicas(allRSs),
    updatedReplicas: actualReplicas([newRS]),
    readyReplicas: readyReplicas(allRSs),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', Reasons.MinimumReplicasAvailable, 'Deployment has minimum availability.', nowMs));
  } else {
    setCondition(status, newCondition('Available', 'False', Reasons.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.', nowMs));
  }
  return status;
}

/** A status as written on the wire: zero counters omitted (Go's omitempty). */
export function compactStatus(s: DeploymentStatus): DeploymentStatus {
  const out: DeploymentStatus = { ...s };
  for (const k of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'] as const) {
    if (!out[k]) delete out[k];
  }
  if (out.conditions && out.conditions.length === 0) delete out.conditions;
  return out;
}
