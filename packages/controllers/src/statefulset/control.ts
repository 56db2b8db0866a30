/**
 * One pass of the StatefulSet algorithm (kube's stateful_set_control.go updateStatefulSet):
 * given the set, its current and update revisions and its pods, create, fix and delete pods so
 * that the set moves towards spec.replicas healthy pods at the right revisions, and return the
 * status to record. The API writes go through `PodOps`, so the algorithm runs in tests on
 * plain objects and virtual time.
 */
import type { ControllerRevision, Pod, StatefulSet, StatefulSetStatus } from '@kplane/runtime';
import {
  applyRevision, endOrdinal, inOrdinalRange, isCreated, isFailed, isPending, isRunningAndAvailable, isRunningAndReady, isSucceeded,
  isTerminating, isUnavailable, identityMatches, maxUnavailableOf, newVersionedPod, ordinalOf, podRevision, startOrdinal, storageMatches,
} from './utils.js';

/** Kube's MaxBatchSize: most pods a Parallel set creates or deletes at once. */
export const MAX_BATCH_SIZE = 500;

/** The writes the algorithm makes (kube's StatefulPodControl). */
export interface PodOps {
  /** Creates the pod's missing claims, then the pod, then sets the claims' retention references. */
  createPod(set: StatefulSet, pod: Pod): Promise<void>;
  /** Deletes the pod. */
  deletePod(set: StatefulSet, pod: Pod): Promise<void>;
  /** Gives an existing pod its identity, storage and claim references back (UpdateStatefulPod). */
  updatePod(set: StatefulSet, pod: Pod): Promise<void>;
  /** Creates the claims a Pending pod still lacks. */
  createMissingClaims(set: StatefulSet, pod: Pod): Promise<void>;
  /** Whether the pod's claims carry the references the retention policy asks for. */
  claimsMatchPolicy(set: StatefulSet, pod: Pod): boolean;
  /** Rewrites the references of the pod's claims for the retention policy. */
  updateClaimsForPolicy(set: StatefulSet, pod: Pod): Promise<void>;
  /** Whether a claim of the pod was left by a previous pod of that name (whenScaled Delete). */
  podClaimIsStale(set: StatefulSet, pod: Pod): boolean;
}

/** What one pass decided. */
export interface UpdateResult {
  status: StatefulSetStatus;
  error?: unknown;
}

function computeStatus(status: StatefulSetStatus, set: StatefulSet, current: ControllerRevision, update: ControllerRevision, nowMs: number, ...lists: Pod[][]): void {
  const minReady = set.spec?.minReadySeconds ?? 0;
  let replicas = 0;
  let ready = 0;
  let available = 0;
  let currentReplicas = 0;
  let updated = 0;
  for (const list of lists) {
    for (const pod of list) {
      if (isCreated(pod)) replicas++;
      if (isRunningAndReady(pod)) {
        ready++;
        if (isRunningAndAvailable(pod, minReady, nowMs)) available++;
      }
      if (isCreated(pod) && !isTerminating(pod)) {
        const rev = podRevision(pod);
        if (rev === current.metadata?.name) currentReplicas++;
        if (rev === update.metadata?.name) updated++;
      }
    }
  }
  Object.assign(status, { replicas, readyReplicas: ready, availableReplicas: available, currentReplicas, updatedReplicas: updated });
}

/** kube's slowStartBatch for Parallel sets: batches of 1, 2, 4 … (at most 500), stopping after a failing batch. */
async function slowStart(count: number, fn: (i: number) => Promise<unknown>): Promise<unknown> {
  let next = 0;
  for (let size = Math.min(count, 1); size > 0; size = Math.min(2 * size, count - next, MAX_BATCH_SIZE)) {
    const batch = Array.from({ length: size }, (_, k) => next + k);
    next += size;
    const errors: unknown[] = [];
    await Promise.all(batch.map((i) => fn(i).catch((err) => void errors.push(err))));
    if (errors.length > 0) return aggregate(errors);
  }
  return undefined;
}

/** utilerrors.NewAggregate's message: one error as itself, several as "[a, b]". */
export function aggregate(errors: unknown[]): unknown {
  if (errors.length === 1) return errors[0];
  return new Error(`[${errors.map((e) => (e instanceof Error ? e.message : String(e))).join(', ')}]`);
}

/** runForAll: in order, stopping at the first blocked or failed pod (OrderedReady); in batches otherwise. */
async function runForAll(count: number, fn: (i: number) => Promise<boolean>, monotonic: boolean): Promise<{ exit: boolean; error?: unknown }> {
  if (monotonic) {
    for (let i = 0; i < count; i++) {
      try {
        if (await fn(i)) return { exit: true };
      } catch (error) {
        return { exit: true, error };
      }
    }
    return { exit: false };
  }
  const error = await slowStart(count, fn);
  return error === undefined ? { exit: false } : { exit: true, error };
}

/** The inputs of one pass. */
export interface UpdateInput {
  set: StatefulSet;
  currentRevision: ControllerRevision;
  updateRevision: ControllerRevision;
  collisionCount: number;
  pods: Pod[];
  ops: PodOps;
  nowMs: number;
}

/** updateStatefulSet: one pass of the algorithm; never throws (a failure comes back as `error` beside the status). */
export async function updateStatefulSet(input: UpdateInput): Promise<UpdateResult> {
  const { set, currentRevision, updateRevision, pods, ops, nowMs } = input;
  const currentSet = applyRevision(set, currentRevision);
  const updateSet = applyRevision(set, updateRevision);
  const minReady = set.spec?.minReadySeconds ?? 0;
  const status: StatefulSetStatus = {
    observedGeneration: set.metadata?.generation,
    currentRevision: currentRevision.metadata?.name,
    updateRevision: updateRevision.metadata?.name,
    collisionCount: input.collisionCount,
    replicas: 0,
  };
  computeStatus(status, set, currentRevision, updateRevision, nowMs, pods);

  const start = startOrdinal(set);
  const end = endOrdinal(set);
  const replicas: Pod[] = new Array(Math.max(0, end - start + 1));
  const condemned: Pod[] = [];
  for (const pod of pods) {
    if (inOrdinalRange(pod, set)) replicas[ordinalOf(pod) - start] = pod;
    else if (ordinalOf(pod) >= 0) condemned.push(pod);
  }
  for (let ord = start; ord <= end; ord++) {
    if (!replicas[ord - start]) replicas[ord - start] = newVersionedPod(currentSet, updateSet, currentRevision.metadata?.name ?? '', updateRevision.metadata?.name ?? '', ord);
  }
  condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));

  let firstUnavailable: Pod | undefined;
  for (const pod of replicas) if (!firstUnavailable && isUnavailable(pod, minReady, nowMs)) firstUnavailable = pod;
  for (let i = condemned.length - 1; i >= 0; i--) if (!firstUnavailable && isUnavailable(condemned[i]!, minReady, nowMs)) firstUnavailable = condemned[i];

  if (set.metadata?.deletionTimestamp) return { status };
  const monotonic = set.spec?.podManagementPolicy !== 'Parallel';
  const finish = (error?: unknown): UpdateResult => {
    computeStatus(status, set, currentRevision, updateRevision, nowMs, replicas, condemned);
    return error === undefined ? { status } : { status, error };
  };

  const processReplica = async (i: number): Promise<boolean> => {
    const pod = replicas[i]!;
    // A pod that ran to completion (or was evicted) is replaced on the next pass.
    if (isFailed(pod) || isSucceeded(pod)) {
      if (!isTerminating(pod)) await ops.deletePod(set, pod);
      return true;
    }
    if (!isCreated(pod)) {
      if (ops.podClaimIsStale(set, pod)) return true;
      await ops.createPod(set, pod);
      if (monotonic) return true;
    }
    if (isPending(pod)) await ops.createMissingClaims(set, pod);
    if (isTerminating(pod) && monotonic) return true;
    if (!isRunningAndReady(pod) && monotonic) return true;
    if (!isRunningAndAvailable(pod, minReady, nowMs) && monotonic) return true;
    const retentionMatch = ops.claimsMatchPolicy(updateSet, pod);
    if (identityMatches(set, pod) && storageMatches(set, pod) && retentionMatch) return false;
    await ops.updatePod(updateSet, structuredClone(pod));
    return false;
  };
  let run = await runForAll(replicas.length, processReplica, monotonic);
  if (run.exit) return finish(run.error);

  const fixClaims = async (i: number): Promise<boolean> => {
    if (!ops.claimsMatchPolicy(updateSet, condemned[i]!)) await ops.updateClaimsForPolicy(updateSet, condemned[i]!);
    return false;
  };
  run = await runForAll(condemned.length, fixClaims, monotonic);
  if (run.exit) return finish(run.error);

  const processCondemned = async (i: number): Promise<boolean> => {
    const pod = condemned[i]!;
    if (isTerminating(pod)) return monotonic;
    if (!isRunningAndReady(pod) && monotonic && pod !== firstUnavailable) return true;
    if (!isRunningAndAvailable(pod, minReady, nowMs) && monotonic && pod !== firstUnavailable) return true;
    await ops.deletePod(set, pod);
    return true;
  };
  run = await runForAll(condemned.length, processCondemned, monotonic);
  if (run.exit) return finish(run.error);

  computeStatus(status, set, currentRevision, updateRevision, nowMs, replicas, condemned);
  const strategy = set.spec?.updateStrategy;
  if (strategy?.type === 'OnDelete') return { status };
  const partition = strategy?.rollingUpdate?.partition ?? 0;
  const updateName = updateRevision.metadata?.name ?? '';

  if (strategy?.rollingUpdate?.maxUnavailable !== undefined && strategy.rollingUpdate.maxUnavailable !== null) {
    // MaxUnavailableStatefulSet: up to maxUnavailable pods replaced at once, highest ordinal first.
    const maxUnavailable = maxUnavailableOf(set);
    const unavailable = replicas.filter((p) => isUnavailable(p, minReady, nowMs)).length;
    if (unavailable > maxUnavailable) return { status };
    let toDelete = maxUnavailable - unavailable;
    for (let target = replicas.length - 1; target >= partition && toDelete > 0; target--) {
      const pod = replicas[target]!;
      if (podRevision(pod) !== updateName && !isTerminating(pod)) {
        try {
          await ops.deletePod(set, pod);
        } catch (error) {
          if (!isNotFound(error)) return { status, error };
        }
        toDelete--;
        status.currentReplicas = (status.currentReplicas ?? 0) - 1;
      }
    }
    return { status };
  }

  // One pod at a time, from the highest ordinal down to the partition.
  for (let target = replicas.length - 1; target >= partition; target--) {
    const pod = replicas[target]!;
    if (podRevision(pod) !== updateName && !isTerminating(pod)) {
      try {
        await ops.deletePod(set, pod);
      } catch (error) {
        if (!isNotFound(error)) return { status, error };
      }
      status.currentReplicas = (status.currentReplicas ?? 0) - 1;
      return { status };
    }
    if (isUnavailable(pod, minReady, nowMs)) return { status };
  }
  return { status };
}

const isNotFound = (err: unknown): boolean => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 404;
