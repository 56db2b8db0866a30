/**
 * The pure parts of the StatefulSet controller (kube's stateful_set_utils.go): ordinal
 * identities, claims, pod predicates, revisions of the template and the status rules.
 */
import type { KubeObject, OwnerReference } from '@kplane/api';
import type { ControllerRevision, PersistentVolumeClaim, Pod, PodTemplateSpec, StatefulSet, StatefulSetStatus } from '@kplane/runtime';
import { controllerRefTo } from '../replicaset/controller-ref.js';
import { isPodAvailable, isPodReady } from '../replicaset/pods.js';
import { newControllerRevision } from '../history/index.js';

/** The label naming a StatefulSet pod (used by per-pod Services). */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** The label carrying a pod's ordinal (PodIndexLabel, on by default since 1.28). */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
/** The label naming the ControllerRevision a pod was made from. */
export const REVISION_LABEL = 'controller-revision-hash';
/** apiVersion and kind of the owner references to a StatefulSet. */
export const SET_API_VERSION = 'apps/v1';
export const SET_KIND = 'StatefulSet';

const STATEFUL_POD = /^(.*)-([0-9]+)$/;

/** The parent name and ordinal read from a pod's name (ordinal -1 when it has none). */
export function parentAndOrdinal(name: string): { parent: string; ordinal: number } {
  const m = STATEFUL_POD.exec(name);
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  return { parent: m[1]!, ordinal: Number.isSafeInteger(n) && n <= 2147483647 ? n : -1 };
}

/** The ordinal of a pod, or -1. */
export const ordinalOf = (pod: Pod): number => parentAndOrdinal(pod.metadata?.name ?? '').ordinal;
/** `<set>-<ordinal>`. */
export const podName = (set: StatefulSet, ordinal: number): string => `${set.metadata?.name ?? ''}-${ordinal}`;
/** `<claim>-<set>-<ordinal>`. */
export const claimName = (set: StatefulSet, template: string, ordinal: number): string => `${template}-${set.metadata?.name ?? ''}-${ordinal}`;
/** spec.ordinals.start (0 without it). */
export const startOrdinal = (set: StatefulSet): number => set.spec?.ordinals?.start ?? 0;
/** The last ordinal of the set's range. */
export const endOrdinal = (set: StatefulSet): number => startOrdinal(set) + (set.spec?.replicas ?? 1) - 1;
/** Whether the pod's ordinal is within the set's range. */
export function inOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const o = ordinalOf(pod);
  return o >= startOrdinal(set) && o <= endOrdinal(set);
}
/** Whether the pod's name says it belongs to the set. */
export const isMemberOf = (set: StatefulSet, pod: Pod): boolean => parentAndOrdinal(pod.metadata?.name ?? '').parent === set.metadata?.name;

/** Name, namespace and pod-name label as the set gives them. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod.metadata?.name ?? '');
  return (
    ordinal >= 0 &&
    parent === set.metadata?.name &&
    pod.metadata?.name === podName(set, ordinal) &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    pod.metadata?.labels?.[POD_NAME_LABEL] === pod.metadata?.name
  );
}

/** Whether the pod mounts the claim of each of the set's claim templates. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const name = t.metadata?.name ?? '';
    const v = volumes.get(name);
    if (!v?.persistentVolumeClaim || v.persistentVolumeClaim.claimName !== claimName(set, name, ordinal)) return false;
  }
  return true;
}

/** The claims a pod of the set needs, by template name (labels: the template's plus the selector's matchLabels). */
export function claimsFor(set: StatefulSet, pod: Pod): Map<string, PersistentVolumeClaim> {
  const ordinal = ordinalOf(pod);
  const out = new Map<string, PersistentVolumeClaim>();
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const template = t.metadata?.name ?? '';
    const claim: PersistentVolumeClaim = structuredClone(t);
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    claim.metadata = { ...(claim.metadata ?? {}), name: claimName(set, template, ordinal), namespace: set.metadata?.namespace };
    claim.metadata.labels = { ...(claim.metadata.labels ?? {}), ...(set.spec?.selector?.matchLabels ?? {}) };
    delete claim.status;
    out.set(template, claim);
  }
  return out;
}

/** Sets the pod's name, namespace, pod-name and pod-index labels (updateIdentity). */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = ordinalOf(pod);
  const meta = (pod.metadata ??= {});
  meta.name = podName(set, ordinal);
  meta.namespace = set.metadata?.namespace;
  meta.labels = { ...(meta.labels ?? {}), [POD_NAME_LABEL]: meta.name, [POD_INDEX_LABEL]: String(ordinal) };
}

/** Points the pod's volumes named after claim templates at its claims; other volumes are kept after them. */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = claimsFor(set, pod);
  const spec = (pod.spec ??= { containers: [] });
  const volumes = [...claims].map(([name, claim]) => ({ name, persistentVolumeClaim: { claimName: claim.metadata?.name ?? '' } }));
  for (const v of spec.volumes ?? []) if (!claims.has(v.name)) volumes.push(v as (typeof volumes)[number]);
  if (volumes.length > 0 || spec.volumes) spec.volumes = volumes;
}

/** A new pod of the set at `ordinal` (newStatefulSetPod): the template, identity, hostname, subdomain, storage. */
export function newStatefulSetPod(set: StatefulSet, ordinal: number): Pod {
  const template = set.spec?.template ?? {};
  const tmeta = template.metadata ?? {};
  const metadata: NonNullable<Pod['metadata']> = {
    name: podName(set, ordinal),
    generateName: `${set.metadata?.name ?? ''}-`,
    ownerReferences: [controllerRefTo(set, SET_API_VERSION, SET_KIND)],
  };
  if (tmeta.labels) metadata.labels = { ...tmeta.labels };
  if (tmeta.annotations) metadata.annotations = { ...tmeta.annotations };
  if (tmeta.finalizers) metadata.finalizers = [...tmeta.finalizers];
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(template.spec ?? { containers: [] }) };
  updateIdentity(set, pod);
  pod.spec!.hostname = pod.metadata!.name;
  if (set.spec?.serviceName) pod.spec!.subdomain = set.spec.serviceName;
  updateStorage(set, pod);
  return pod;
}

/** The revision a pod was made from ('' when unlabelled). */
export const podRevision = (pod: Pod): string => pod.metadata?.labels?.[REVISION_LABEL] ?? '';

function setPodRevision(pod: Pod, revision: string): Pod {
  pod.metadata = { ...(pod.metadata ?? {}), labels: { ...(pod.metadata?.labels ?? {}), [REVISION_LABEL]: revision } };
  return pod;
}

/**
 * newVersionedStatefulSetPod: below the partition (or, without rollingUpdate, below the current
 * replicas) a rolling update creates pods at the current revision, otherwise at the update one.
 */
export function newVersionedPod(currentSet: StatefulSet, updateSet: StatefulSet, currentRevision: string, updateRevision: string, ordinal: number): Pod {
  const strategy = currentSet.spec?.updateStrategy;
  const start = startOrdinal(currentSet);
  const ru = strategy?.rollingUpdate;
  const atCurrent =
    (strategy?.type === 'RollingUpdate' && !ru && ordinal < start + (currentSet.status?.currentReplicas ?? 0)) ||
    (ru !== undefined && ordinal < start + (ru.partition ?? 0));
  return atCurrent ? setPodRevision(newStatefulSetPod(currentSet, ordinal), currentRevision) : setPodRevision(newStatefulSetPod(updateSet, ordinal), updateRevision);
}

/** Pod phase and deletion predicates (kube's isCreated, isPending, ...). */
export const isCreated = (pod: Pod): boolean => Boolean(pod.status?.phase);
export const isPending = (pod: Pod): boolean => pod.status?.phase === 'Pending';
export const isFailed = (pod: Pod): boolean => pod.status?.phase === 'Failed';
export const isSucceeded = (pod: Pod): boolean => pod.status?.phase === 'Succeeded';
export const isTerminating = (pod: Pod): boolean => Boolean(pod.metadata?.deletionTimestamp);
export const isRunningAndReady = (pod: Pod): boolean => pod.status?.phase === 'Running' && isPodReady(pod);
export const isRunningAndAvailable = (pod: Pod, minReadySeconds: number, nowMs: number): boolean => isPodAvailable(pod, minReadySeconds, nowMs);
export const isHealthy = (pod: Pod): boolean => isRunningAndReady(pod) && !isTerminating(pod);
export const isUnavailable = (pod: Pod, minReadySeconds: number, nowMs: number): boolean => !isHealthy(pod) || !isPodAvailable(pod, minReadySeconds, nowMs);

/**
 * The revision data of the set (getPatch): `{"spec":{"template":{…,"$patch":"replace"}}}`, the
 * template as Kubernetes 1.32 serialises it (its metadata always carries `creationTimestamp: null`).
 */
export function revisionData(set: StatefulSet): Record<string, unknown> {
  const template = structuredClone(set.spec?.template ?? {}) as Record<string, unknown>;
  const meta = (template.metadata ?? {}) as Record<string, unknown>;
  if (!('creationTimestamp' in meta)) meta.creationTimestamp = null;
  template.metadata = meta;
  template.$patch = 'replace';
  return { spec: { template } };
}

/** newRevision: the set's template as a revision, labelled as the template and annotated as the set. */
export function newRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  const cr = newControllerRevision({ object: set, apiVersion: SET_API_VERSION, kind: SET_KIND }, set.spec?.template?.metadata?.labels, revisionData(set), revision, collisionCount);
  cr.metadata!.annotations = { ...(set.metadata?.annotations ?? {}) };
  return cr;
}

/** ApplyRevision: the set with the template the revision recorded. */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  const clone = structuredClone(set);
  const template = structuredClone((revision.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec?.template ?? {});
  delete template.$patch;
  const meta = template.metadata as Record<string, unknown> | undefined;
  if (meta && meta.creationTimestamp === null) delete meta.creationTimestamp;
  clone.spec = { ...clone.spec!, template: template as PodTemplateSpec };
  return clone;
}

/** The status fields the controller owns differ from the set's (inconsistentStatus). */
export function inconsistentStatus(set: StatefulSet, status: StatefulSetStatus): boolean {
  const s = set.status ?? { replicas: 0 };
  return (
    (status.observedGeneration ?? 0) > (s.observedGeneration ?? 0) ||
    status.replicas !== (s.replicas ?? 0) ||
    (status.currentReplicas ?? 0) !== (s.currentReplicas ?? 0) ||
    (status.readyReplicas ?? 0) !== (s.readyReplicas ?? 0) ||
    (status.updatedReplicas ?? 0) !== (s.updatedReplicas ?? 0) ||
    (status.currentRevision ?? '') !== (s.currentRevision ?? '') ||
    (status.availableReplicas ?? 0) !== (s.availableReplicas ?? 0) ||
    (status.updateRevision ?? '') !== (s.updateRevision ?? '')
  );
}

/** completeRollingUpdate: once every pod runs the update revision and is ready, it becomes the current one. */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): void {
  if (set.spec?.updateStrategy?.type === 'RollingUpdate' && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

/** getStatefulSetMaxUnavailable: an int or a percentage of replicas rounded down, at least 1 (default 1). */
export function maxUnavailableOf(set: StatefulSet): number {
  const v = set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  const replicas = set.spec?.replicas ?? 1;
  const n = typeof v === 'number' ? v : Math.floor((parseInt(String(v), 10) * replicas) / 100);
  return Number.isFinite(n) && n >= 1 ? n : 1;
}

// --- persistentVolumeClaimRetentionPolicy (owner references on the claims) ---

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

/** The reference names the object (name, group, kind), whatever its uid. */
function matchesRef(ref: OwnerReference, obj: KubeObject, group: string, kind: string): boolean {
  return ref.name === obj.metadata?.name && groupOf(ref.apiVersion) === group && ref.kind === kind;
}
const hasOwnerRef = (target: KubeObject, owner: KubeObject): boolean => (target.metadata?.ownerReferences ?? []).some((r) => r.uid === owner.metadata?.uid);
/** A reference to an object of that name and kind but another uid (a previous incarnation). */
export function hasStaleOwnerRef(target: KubeObject, obj: KubeObject, group: string, kind: string): boolean {
  const ref = (target.metadata?.ownerReferences ?? []).find((r) => matchesRef(r, obj, group, kind));
  return ref !== undefined && ref.uid !== obj.metadata?.uid;
}
const hasUnexpectedController = (claim: KubeObject, set: KubeObject, pod: KubeObject): boolean =>
  (claim.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid !== set.metadata?.uid && r.uid !== pod.metadata?.uid);
const hasNonControllerOwner = (claim: KubeObject, set: KubeObject, pod: KubeObject): boolean =>
  (claim.metadata?.ownerReferences ?? []).some((r) => (r.uid === set.metadata?.uid || r.uid === pod.metadata?.uid) && r.controller !== true);

function retention(set: StatefulSet): { whenDeleted: string; whenScaled: string } {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted ?? 'Retain', whenScaled: p?.whenScaled ?? 'Retain' };
}

/** Whether a claim left by a pod of another uid may not be reused (whenScaled Delete only). */
export function claimIsStale(set: StatefulSet, pod: Pod, claim: PersistentVolumeClaim): boolean {
  return retention(set).whenScaled !== 'Retain' && hasStaleOwnerRef(claim, pod, '', 'Pod');
}

/**
 * isClaimOwnerUpToDate: Retain/Retain: no reference to set or pod; whenDeleted Delete: the set
 * controls the claim; whenScaled Delete: the pod controls it once scaled away (both Delete: the
 * set while in range, the pod after). Claims in an unknown state (stale references, another
 * controller) count as up to date, so they are left alone.
 */
export function isClaimOwnerUpToDate(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  if (hasStaleOwnerRef(claim, set, 'apps', SET_KIND) || hasStaleOwnerRef(claim, pod, '', 'Pod')) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const { whenDeleted, whenScaled } = retention(set);
  const scaledDown = !inOrdinalRange(pod, set);
  if (whenScaled === 'Delete' && whenDeleted === 'Delete') return scaledDown !== hasOwnerRef(claim, set) && scaledDown === hasOwnerRef(claim, pod);
  if (whenScaled === 'Delete') return !hasOwnerRef(claim, set) && scaledDown === hasOwnerRef(claim, pod);
  if (whenDeleted === 'Delete') return hasOwnerRef(claim, set) && !hasOwnerRef(claim, pod);
  return !hasOwnerRef(claim, set) && !hasOwnerRef(claim, pod);
}

/** updateClaimOwnerRefForSetAndPod: the claim's references rewritten for the policy (returns a new claim). */
export function withPolicyOwnerRefs(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): PersistentVolumeClaim {
  const unexpected = hasUnexpectedController(claim, set, pod);
  let refs = (claim.metadata?.ownerReferences ?? []).filter((r) => !matchesRef(r, set, 'apps', SET_KIND) && !matchesRef(r, pod, '', 'Pod'));
  if (!unexpected) {
    const { whenDeleted, whenScaled } = retention(set);
    const scaledDown = !inOrdinalRange(pod, set);
    const add = (owner: KubeObject, apiVersion: string, kind: string) => {
      if (!refs.some((r) => r.uid === owner.metadata?.uid)) refs = [...refs, controllerRefTo(owner, apiVersion, kind)];
    };
    if (whenScaled === 'Delete' && scaledDown) add(pod, 'v1', 'Pod');
    if (whenDeleted === 'Delete' && (whenScaled !== 'Delete' || !scaledDown)) add(set, SET_API_VERSION, SET_KIND);
  }
  const out = structuredClone(claim);
  out.metadata = { ...(out.metadata ?? {}), ownerReferences: refs };
  if (refs.length === 0) delete out.metadata.ownerReferences;
  return out;
}
