import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { jobResource, parseIndexIntervals } from './job.js';

const jobs = jobResource();
const now = new Date('2024-05-01T12:00:00Z');
const template = () => ({ spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } });

function job(spec: Record<string, unknown>, name = 'pi'): KubeObject {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'default', uid: 'u-1', creationTimestamp: '2024-05-01T11:00:00Z' }, spec };
}

/** Defaults, then the create-time selector generation, then validation messages. */
function created(spec: Record<string, unknown>): { obj: KubeObject; messages: string[] } {
  const obj = job(spec);
  jobs.strategy.defaults?.(obj);
  jobs.strategy.admitCreate?.(obj, { subresource: '', now: new Date() } as never);
  return { obj, messages: (jobs.strategy.validate?.(obj) ?? []).map((c) => `${c.field}: ${c.message}`) };
}

test('names, storage, status subresource', () => {
  assert.equal(jobs.group, 'batch');
  assert.equal(jobs.storagePrefix, '/registry/jobs');
  assert.deepEqual(jobs.categories, ['all']);
  assert.equal(jobs.subresources?.status, true);
  assert.equal(jobs.shortNames, undefined);
});

test('defaults as SetDefaults_Job', () => {
  const { obj, messages } = created({ template: template() });
  const spec = obj.spec as Record<string, any>;
  assert.deepEqual(messages, []);
  assert.equal(spec.completions, 1);
  assert.equal(spec.parallelism, 1);
  assert.equal(spec.backoffLimit, 6);
  assert.equal(spec.completionMode, 'NonIndexed');
  assert.equal(spec.suspend, false);
  assert.equal(spec.manualSelector, false);
  assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
  // Only parallelism given: completions stays unset (a work queue).
  const queue = created({ parallelism: 3, template: template() }).obj.spec as Record<string, any>;
  assert.equal(queue.completions, undefined);
  // backoffLimitPerIndex makes backoffLimit MaxInt32; a podFailurePolicy makes podReplacementPolicy Failed and condition status True.
  const perIndex = created({
    completions: 3, completionMode: 'Indexed', backoffLimitPerIndex: 1, template: template(),
    podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
  });
  assert.deepEqual(perIndex.messages, []);
  const p = perIndex.obj.spec as Record<string, any>;
  assert.equal(p.backoffLimit, 2147483647);
  assert.equal(p.podReplacementPolicy, 'Failed');
  assert.equal(p.podFailurePolicy.rules[0].onPodConditions[0].status, 'True');
});

test('generated selector and labels (the legacy ones too); the Job takes the template labels', () => {
  const { obj } = created({ template: template() });
  const spec = obj.spec as Record<string, any>;
  assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } });
  assert.deepEqual(spec.template.metadata.labels, {
    'job-name': 'pi', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': 'u-1', 'batch.kubernetes.io/controller-uid': 'u-1',
  });
  assert.deepEqual(obj.metadata?.labels, spec.template.metadata.labels);
  // manualSelector: nothing generated; the selector is required.
  const manual = created({ manualSelector: true, template: template() });
  assert.deepEqual(manual.messages, ['spec.selector: Required value']);
  const wrong = created({ selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'other' } }, template: template() });
  assert.ok(wrong.messages.includes('spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated'), wrong.messages.join('\n'));
});

test('validation messages', () => {
  const msgs = (spec: Record<string, unknown>) => created(spec).messages;
  assert.deepEqual(msgs({ template: { spec: { containers: [{ name: 'c', image: 'i' }] } } }), [
    'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
  ]);
  assert.deepEqual(msgs({ parallelism: -1, backoffLimit: -2, template: template() }), [
    'spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
    'spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0',
  ]);
  assert.deepEqual(msgs({ parallelism: 2, completionMode: 'Indexed', template: template() }), ['spec.completions: Required value: when completion mode is Indexed']);
  assert.deepEqual(msgs({ completions: 2, backoffLimitPerIndex: 1, template: template() }), ['spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode']);
  assert.deepEqual(msgs({ completions: 2, completionMode: 'Indexed', maxFailedIndexes: 3, template: template() }), [
    'spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified',
    'spec.maxFailedIndexes: Invalid value: 3: must be less than or equal to completions',
  ]);
  assert.deepEqual(msgs({ template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'i' }] } }, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [0, 3, 2] } }] } }), [
    'spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
    'spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Invalid value: 2: must be ordered',
    'spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Never"',
  ]);
  assert.deepEqual(msgs({ completions: 2, successPolicy: { rules: [{ succeededCount: 1 }] }, template: template() }), ['spec.completionMode: Invalid value: "NonIndexed": requires indexed completion mode']);
  assert.deepEqual(msgs({ managedBy: 'kueue', template: template() }), ['spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(msgs({ managedBy: 'kueue.x-k8s.io/multikueue', template: template() }), []);
});

test('updates: completions, selector and template immutable; suspended Jobs that never started may change scheduling', () => {
  const { obj: old } = created({ completions: 2, template: template() });
  const upd = (change: (s: Record<string, any>) => void, base = old): string[] => {
    const next = structuredClone(base);
    change(next.spec as Record<string, any>);
    jobs.strategy.defaults?.(next);
    return (jobs.strategy.validate?.(next, base) ?? []).map((c) => `${c.field}: ${c.message}`);
  };
  assert.deepEqual(upd((s) => (s.completions = 3)), ['spec.completions: Invalid value: 3: field is immutable']);
  assert.deepEqual(upd((s) => (s.parallelism = 5)), []);
  assert.match(upd((s) => (s.template.spec.containers[0].image = 'other'))[0], /^spec\.template: Invalid value: .*: field is immutable$/);
  assert.match(upd((s) => (s.template.spec.nodeSelector = { a: 'b' }))[0], /field is immutable/);
  const suspended = structuredClone(old);
  (suspended.spec as Record<string, any>).suspend = true;
  assert.deepEqual(upd((s) => (s.template.spec.nodeSelector = { a: 'b' }), suspended), []);
  // Elastic Indexed Jobs scale completions together with parallelism.
  const { obj: indexed } = created({ completions: 2, parallelism: 2, completionMode: 'Indexed', template: template() });
  assert.deepEqual(upd((s) => { s.completions = 4; s.parallelism = 4; }, indexed), []);
});

test('Table cells: STATUS, COMPLETIONS, DURATION', () => {
  const { obj } = created({ completions: 3, template: template() });
  const row = (o: KubeObject) => jobs.strategy.table!.row(o, now);
  assert.deepEqual(row(obj).slice(0, 5), ['pi', 'Running', '0/3', '', '60m']);
  obj.status = { succeeded: 3, startTime: '2024-05-01T11:00:00Z', completionTime: '2024-05-01T11:00:42Z', conditions: [{ type: 'Complete', status: 'True' }] };
  assert.deepEqual(row(obj).slice(0, 4), ['pi', 'Complete', '3/3', '42s']);
  assert.deepEqual(row(obj).slice(5), ['main', 'busybox', 'batch.kubernetes.io/controller-uid=u-1']);
  const q = created({ parallelism: 4, template: template() }).obj;
  q.status = { startTime: '2024-05-01T11:58:00Z', conditions: [{ type: 'Suspended', status: 'True' }] };
  assert.deepEqual(row(q).slice(1, 4), ['Suspended', '0/1 of 4', '2m']);
  assert.deepEqual(jobs.strategy.table!.columns.map((c) => `${c.name}${c.priority ? '*' : ''}`), ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers*', 'Images*', 'Selector*']);
});

test('parseIndexIntervals', () => {
  assert.deepEqual(parseIndexIntervals('0,2-4', 5), [[0, 0], [2, 4]]);
  assert.equal(parseIndexIntervals('2-4', 4), undefined);
  assert.equal(parseIndexIntervals('3,1', 4), undefined);
  assert.deepEqual(parseIndexIntervals('', 4), []);
});
