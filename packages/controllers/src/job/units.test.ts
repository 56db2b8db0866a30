import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job, Pod } from '@kplane/runtime';
import { matchSuccessPolicy } from './job-controller.js';
import { IndexSet, indexedGenerateName } from './indexes.js';
import { planPods } from './manage.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { backoffRecord, backoffRemainingMs, podFromJob } from './pods.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function job(spec: Partial<NonNullable<Job['spec']>>): Job {
  return { metadata: { name: 'j', namespace: 'n', uid: 'J' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'i' }] } }, ...spec } };
}

function pod(name: string, opts: { phase?: string; index?: number; exitCode?: number; finishedAt?: number; created?: number; deleting?: boolean; annotations?: Record<string, string> } = {}): Pod {
  const annotations = { ...(opts.annotations ?? {}), ...(opts.index !== undefined ? { 'batch.kubernetes.io/job-completion-index': String(opts.index) } : {}) };
  return {
    metadata: { name, namespace: 'n', uid: name, annotations, creationTimestamp: iso(opts.created ?? T0), ...(opts.deleting ? { deletionTimestamp: iso(T0) } : {}) },
    spec: { containers: [{ name: 'main' }] },
    status: {
      phase: (opts.phase ?? 'Running') as 'Running',
      ...(opts.finishedAt !== undefined
        ? { containerStatuses: [{ name: 'main', image: '', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: opts.exitCode ?? 0, finishedAt: iso(opts.finishedAt) } } }] }
        : {}),
    },
  } as Pod;
}

const base = { succeeded: 0, terminating: 0, now: T0, backoff: { baseMs: 10_000, maxMs: 360_000 }, burst: 500 };

test('IndexSet: parse and print intervals as kube does', () => {
  const s = IndexSet.parse('0,2-4,9', 8);
  assert.deepEqual(s.values(), [0, 2, 3, 4]);
  s.add(1);
  s.add(7);
  assert.equal(s.toString(), '0-4,7');
  assert.equal(new IndexSet().toString(), '');
});

test('indexedGenerateName keeps the index when the name is long', () => {
  assert.equal(indexedGenerateName('pi', 3), 'pi-3-');
  const long = indexedGenerateName('a'.repeat(70), 12);
  assert.equal(long.length, 58);
  assert.ok(long.endsWith('-12-'));
});

test('the pod-failure backoff: 10 s doubling per failure in a row, capped at 6 min, reset by a success', () => {
  const failed = (n: string, at: number) => pod(n, { phase: 'Failed', exitCode: 1, finishedAt: at });
  const one = backoffRecord([failed('a', T0)]);
  assert.deepEqual(one, { failuresAfterLastSuccess: 1, lastFailureTime: T0 });
  assert.equal(backoffRemainingMs(one, T0 + 4000), 6000);
  assert.equal(backoffRemainingMs(backoffRecord([failed('a', T0 - 1000), failed('b', T0)]), T0), 20_000);
  const many = backoffRecord(Array.from({ length: 10 }, (_, i) => failed(`f${i}`, T0 - 10 + i)));
  assert.equal(backoffRemainingMs(many, many.lastFailureTime), 360_000);
  const reset = backoffRecord([failed('a', T0 - 2000), pod('ok', { phase: 'Succeeded', finishedAt: T0 - 1000 })]);
  assert.equal(backoffRemainingMs(reset, T0), 0);
});

test('planPods: parallelism and the completions left bound the creations; backoff holds them', () => {
  const j = job({ completions: 5, parallelism: 3 });
  assert.equal(planPods(j, { ...base, pods: [], activePods: [] }).create.length, 3);
  const two = [pod('a'), pod('b')];
  assert.equal(planPods(j, { ...base, pods: two, activePods: two, succeeded: 2 }).create.length, 1);
  assert.equal(planPods(j, { ...base, pods: two, activePods: two, succeeded: 4 }).delete.length, 1);
  const f = pod('f', { phase: 'Failed', exitCode: 1, finishedAt: T0 - 3000 });
  const held = planPods(j, { ...base, pods: [f], activePods: [] });
  assert.deepEqual([held.create.length, held.retryAfterMs], [0, 7000]);
  // A work queue (no completions) creates nothing more once a pod succeeded.
  assert.equal(planPods(job({ parallelism: 3 }), { ...base, pods: [pod('x')], activePods: [pod('x')], succeeded: 1 }).create.length, 0);
  // Suspended: every active pod goes.
  assert.equal(planPods(job({ completions: 5, parallelism: 3, suspend: true }), { ...base, pods: two, activePods: two }).delete.length, 2);
  // podReplacementPolicy Failed: terminating pods are not replaced yet.
  assert.equal(planPods(job({ completions: 5, parallelism: 3, podReplacementPolicy: 'Failed' }), { ...base, pods: two, activePods: two, terminating: 1 }).create.length, 0);
});

test('planPods (Indexed): lowest pending indexes, duplicates and done indexes deleted, per-index failure counts', () => {
  const j = job({ completions: 4, parallelism: 4, completionMode: 'Indexed' });
  const active = [pod('a', { index: 1, created: T0 }), pod('b', { index: 1, created: T0 + 1 }), pod('c', { index: 3 }), pod('d', { index: 9 })];
  const plan = planPods(j, { ...base, pods: active, activePods: active, succeededIndexes: IndexSet.parse('3', 4) });
  assert.deepEqual(plan.delete.map((p) => p.metadata?.name).sort(), ['b', 'c', 'd']);
  assert.deepEqual(plan.create.map((c) => c?.index), [0, 2]);
  const perIndex = job({ completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 2 });
  const failed = pod('f', { index: 0, phase: 'Failed', exitCode: 1, finishedAt: T0 - 60_000, annotations: { 'batch.kubernetes.io/job-index-failure-count': '1' } });
  const p = planPods(perIndex, { ...base, pods: [failed], activePods: [], succeededIndexes: new IndexSet(), failedIndexes: new IndexSet() });
  assert.deepEqual(p.create, [{ index: 0, failureCount: 2, ignoredFailureCount: 0 }, { index: 1, failureCount: 0 }]);
});

test('podFromJob: tracking finalizer, controller reference; Indexed: annotation, label, hostname, env', () => {
  const ref = { apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'J', controller: true, blockOwnerDeletion: true };
  const plain = podFromJob(job({}), ref);
  assert.deepEqual(plain.metadata?.finalizers, ['batch.kubernetes.io/job-tracking']);
  assert.equal(plain.metadata?.generateName, 'j-');
  const indexed = podFromJob(job({ completionMode: 'Indexed' }), ref, { index: 2, failureCount: 1 });
  assert.equal(indexed.metadata?.generateName, 'j-2-');
  assert.equal(indexed.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'], '2');
  assert.equal(indexed.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count'], '1');
  assert.equal(indexed.metadata?.labels?.['batch.kubernetes.io/job-completion-index'], '2');
  assert.equal(indexed.spec?.hostname, 'j-2');
  assert.equal(indexed.spec?.containers[0].env?.[0].name, 'JOB_COMPLETION_INDEX');
});

test('matchPodFailurePolicy: first matching rule; exit code 0 never matches; NotIn; conditions', () => {
  const j = job({
    podFailurePolicy: { rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'NotIn', values: [1, 2] } },
      { action: 'Count', onExitCodes: { operator: 'In', values: [1] } },
    ] },
  });
  const failed = (code: number) => pod('p', { phase: 'Failed', exitCode: code, finishedAt: T0 });
  assert.deepEqual(matchPodFailurePolicy(j, failed(1)), { action: 'Count', countFailed: true });
  assert.deepEqual(matchPodFailurePolicy(j, failed(2)), { countFailed: true });
  assert.equal(matchPodFailurePolicy(j, failed(5)).message, 'Container main for pod n/p failed with exit code 5 matching FailJob rule at index 1');
  const disrupted = failed(5);
  disrupted.status!.conditions = [{ type: 'DisruptionTarget', status: 'True' }];
  assert.deepEqual(matchPodFailurePolicy(j, disrupted), { action: 'Ignore', countFailed: false });
  assert.deepEqual(matchPodFailurePolicy(job({}), failed(5)), { countFailed: true });
});

test('matchSuccessPolicy: succeededIndexes, succeededCount, both', () => {
  const j = job({ completions: 5, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0-1' }, { succeededIndexes: '2-4', succeededCount: 2 }, { succeededCount: 4 }] } });
  assert.equal(matchSuccessPolicy(j, IndexSet.parse('0', 5)), undefined);
  assert.equal(matchSuccessPolicy(j, IndexSet.parse('0-1', 5)), 0);
  assert.equal(matchSuccessPolicy(j, IndexSet.parse('2,4', 5)), 1);
  assert.equal(matchSuccessPolicy(job({ completions: 5, successPolicy: { rules: [{ succeededCount: 4 }] } }), IndexSet.parse('0,2-4', 5)), 0);
});
