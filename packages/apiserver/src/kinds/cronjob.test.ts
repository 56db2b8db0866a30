import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { cronJobResource } from './cronjob.js';

const cj = cronJobResource();
const now = new Date('2024-05-01T12:00:00Z');

function cronJob(spec: Record<string, unknown>, name = 'nightly'): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default', creationTimestamp: '2024-05-01T11:00:00Z' },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'job', image: 'busybox' }] } } } },
      ...spec,
    },
  };
}

function messages(obj: KubeObject, old?: KubeObject, warnings?: string[]): string[] {
  cj.strategy.defaults?.(obj);
  return (cj.strategy.validate?.(obj, old, warnings) ?? []).map((c) => `${c.field}: ${c.message}`);
}

test('cronjobs are served as batch/v1 with a status subresource', () => {
  assert.equal(cj.group, 'batch');
  assert.equal(cj.version, 'v1');
  assert.deepEqual(cj.shortNames, ['cj']);
  assert.deepEqual(cj.categories, ['all']);
  assert.equal(cj.storagePrefix, '/registry/cronjobs');
  assert.equal(cj.subresources?.status, true);
  assert.equal(cj.strategy.generation, true);
});

test('defaults: Allow, not suspended, 3 successful and 1 failed Job kept, pod defaults in the template', () => {
  const obj = cronJob({});
  cj.strategy.defaults?.(obj);
  const spec = obj.spec as Record<string, any>;
  assert.equal(spec.concurrencyPolicy, 'Allow');
  assert.equal(spec.suspend, false);
  assert.equal(spec.successfulJobsHistoryLimit, 3);
  assert.equal(spec.failedJobsHistoryLimit, 1);
  assert.equal(spec.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst');
  assert.equal(spec.jobTemplate.spec.backoffLimit, undefined);
  const kept = cronJob({ concurrencyPolicy: 'Forbid', suspend: true, successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0 });
  cj.strategy.defaults?.(kept);
  assert.deepEqual([(kept.spec as any).concurrencyPolicy, (kept.spec as any).suspend, (kept.spec as any).successfulJobsHistoryLimit], ['Forbid', true, 0]);
});

test('a valid CronJob has no errors', () => {
  assert.deepEqual(messages(cronJob({})), []);
  assert.deepEqual(messages(cronJob({ schedule: '@hourly', timeZone: 'Europe/Paris' })), []);
});

test('schedule errors are worded as Kubernetes words them', () => {
  assert.deepEqual(messages(cronJob({ schedule: 'error' })), ['spec.schedule: Invalid value: "error": expected exactly 5 fields, found 1: [error]']);
  assert.deepEqual(messages(cronJob({ schedule: '' })), ['spec.schedule: Required value']);
  assert.deepEqual(messages(cronJob({ schedule: '61 * * * *' })), ['spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61']);
  assert.deepEqual(messages(cronJob({ schedule: 'TZ=UTC 0 * * * *' })), [
    'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
  ]);
  // An object that already had a zone in its schedule keeps it, but not with the timeZone field.
  const old = cronJob({ schedule: 'CRON_TZ=UTC 0 * * * *' });
  assert.deepEqual(messages(cronJob({ schedule: 'CRON_TZ=UTC 5 * * * *' }), old), []);
  assert.deepEqual(messages(cronJob({ schedule: 'CRON_TZ=UTC 5 * * * *', timeZone: 'UTC' }), old), [
    'spec.schedule: Invalid value: "CRON_TZ=UTC 5 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule',
  ]);
});

test('time zone errors', () => {
  assert.deepEqual(messages(cronJob({ timeZone: '' })), ['spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string']);
  assert.deepEqual(messages(cronJob({ timeZone: 'Local' })), ['spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones']);
  assert.deepEqual(messages(cronJob({ timeZone: 'Mars/Olympus' })), ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']);
  assert.deepEqual(messages(cronJob({ timeZone: '../etc/passwd' })), ['spec.timeZone: Invalid value: "../etc/passwd": unknown time zone ../etc/passwd']);
  // An unchanged zone is not checked again on update.
  const old = cronJob({ timeZone: 'Mars/Olympus' });
  assert.deepEqual(messages(cronJob({ timeZone: 'Mars/Olympus', suspend: true }), old), []);
});

test('status writes are not validated', () => {
  const old = cronJob({ schedule: 'bad' });
  const obj = cronJob({ schedule: 'bad' });
  obj.status = { lastScheduleTime: '2024-05-01T11:00:00Z' };
  cj.strategy.defaults?.(obj);
  const now = new Date();
  assert.deepEqual(cj.strategy.validate?.(obj, old, [], { subresource: 'status', now }), []);
  assert.equal(cj.strategy.validate?.(obj, old, [], { subresource: '', now })?.length, 1);
});

test('spec errors: policy, deadlines, history limits, job template', () => {
  assert.deepEqual(messages(cronJob({ concurrencyPolicy: 'Sometimes' })), ['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']);
  assert.deepEqual(messages(cronJob({ startingDeadlineSeconds: -1, successfulJobsHistoryLimit: -1, failedJobsHistoryLimit: -2 })), [
    'spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
    'spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
    'spec.failedJobsHistoryLimit: Invalid value: -2: must be greater than or equal to 0',
  ]);
  const always = cronJob({ jobTemplate: { spec: { template: { spec: { containers: [{ name: 'job', image: 'busybox' }] } } } } });
  assert.deepEqual(messages(always), ['spec.jobTemplate.spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"']);
  const selector = cronJob({ jobTemplate: { spec: { manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'job', image: 'busybox' }] } } } } });
  assert.deepEqual(messages(selector), [
    'spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated',
    'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
  ]);
});

test('names longer than 52 characters are refused on create only; non-label names warn', () => {
  const long = 'a'.repeat(53);
  assert.deepEqual(messages(cronJob({}, long)), [`metadata.name: Invalid value: "${long}": must be no more than 52 characters`]);
  assert.deepEqual(messages(cronJob({}, long), cronJob({}, long)), []);
  const warnings: string[] = [];
  assert.deepEqual(messages(cronJob({}, 'a.b'), undefined, warnings), []);
  assert.deepEqual(warnings, ['metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]']);
});

test('table rows: NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, wide CONTAINERS IMAGES SELECTOR', () => {
  const obj = cronJob({ timeZone: 'Europe/Paris' });
  cj.strategy.defaults?.(obj);
  assert.deepEqual(cj.strategy.table?.columns.map((c) => c.name), ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector']);
  assert.deepEqual(cj.strategy.table?.columns.map((c) => c.priority), [0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
  assert.deepEqual(cj.strategy.table?.row(obj, now), ['nightly', '*/5 * * * *', 'Europe/Paris', 'False', 0, '<none>', '60m', 'job', 'busybox', '<none>']);
  obj.status = { active: [{ name: 'nightly-1' }], lastScheduleTime: '2024-05-01T11:55:00Z' };
  delete (obj.spec as any).timeZone;
  delete (obj.spec as any).suspend;
  assert.deepEqual(cj.strategy.table?.row(obj, now).slice(0, 7), ['nightly', '*/5 * * * *', '<none>', '<unset>', 1, '5m', '60m']);
});
