/**
 * CronJobs with the real kubectl against a `kplane up` process: `kubectl create cronjob`, the
 * Table kubectl prints, validation messages, a CronJob firing (its last start time was missed,
 * so it runs at once instead of at the next minute), its history limit, and
 * `kubectl create job --from=cronjob/NAME`. Hours of schedule on virtual time are covered by
 * the controller's own tests.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function cronJobYaml(name: string, extra = ''): string {
  return `apiVersion: batch/v1
kind: CronJob
metadata:
  name: ${name}
spec:
  schedule: "* * * * *"
${extra}  jobTemplate:
    metadata:
      labels:
        from: ${name}
    spec:
      template:
        metadata:
          annotations:
            kplane.io/run-ms: "200"
        spec:
          restartPolicy: Never
          containers:
          - name: main
            image: busybox
`;
}

describe('cronjobs', () => {
  const suite = useKplane(['--nodes', '1']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  /** Makes the start time two minutes back overdue: the controller runs it now. */
  const overdue = (name: string) =>
    k('patch', 'cronjob', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { lastScheduleTime: rfc3339(Date.now() - 120_000) } }));

  it('kubectl create cronjob, get (wide), suspend, and the validation messages', async () => {
    await k('create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '--', 'date');
    const table = (await k('get', 'cronjob', 'nightly', '-o', 'wide')).trim().split('\n');
    assert.deepEqual(table[0]!.trim().split(/\s{2,}/), ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    const row = table[1]!.trim().split(/\s{2,}/);
    assert.deepEqual([row[0], row[1], row[2], row[3], row[4], row[5]], ['nightly', '0 3 * * *', '<none>', 'False', '0', '<none>']);
    assert.deepEqual(row.slice(7), ['nightly', 'busybox', '<none>']);
    assert.equal(await k('get', 'cj', 'nightly', '-o', 'jsonpath={.spec.concurrencyPolicy} {.spec.successfulJobsHistoryLimit} {.spec.failedJobsHistoryLimit}'), 'Allow 3 1');
    await k('patch', 'cronjob', 'nightly', '-p', '{"spec":{"suspend":true}}');
    assert.match(await k('get', 'cronjob', 'nightly', '--no-headers'), /^nightly\s+0 3 \* \* \*\s+<none>\s+True\s+0\s+<none>/);

    const bad = await kubectl(suite.kp.kubeconfig, ['create', 'cronjob', 'bad', '--image=busybox', '--schedule=every day']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /CronJob\.batch "bad" is invalid: spec\.schedule: Invalid value: "every day": expected exactly 5 fields, found 2: \[every day\]/);
    const tz = await kubectl(suite.kp.kubeconfig, ['create', 'cronjob', 'tz', '--image=busybox', '--schedule=TZ=UTC 0 * * * *']);
    assert.match(tz.stderr, /spec\.schedule: Invalid value: "TZ=UTC 0 \* \* \* \*": cannot use TZ or CRON_TZ in schedule, use timeZone field instead/);
    const zone = await kubectl(suite.kp.kubeconfig, ['apply', '-f', '-'], cronJobYaml('zone', '  timeZone: Mars/Olympus\n'));
    assert.match(zone.stderr, /spec\.timeZone: Invalid value: "Mars\/Olympus": unknown time zone Mars\/Olympus/);
  });

  it('a CronJob fires: its Job carries the scheduled time, runs to completion, and the status records it', async () => {
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], cronJobYaml('fire', '  timeZone: Asia/Tokyo\n'));
    await overdue('fire');
    const job = await eventually('a Job of fire', async () => (await k('get', 'jobs', '-l', 'from=fire', '-o', 'jsonpath={.items[0].metadata.name}')) || undefined);
    const minutes = Number(job.slice('fire-'.length));
    assert.ok(Math.abs(minutes * 60_000 - Date.now()) < 3 * 60_000, job);
    // The scheduled time, in the CronJob's zone (Tokyo is UTC+9 all year).
    const stamp = await k('get', 'job', job, '-o', 'jsonpath={.metadata.annotations.batch\\.kubernetes\\.io/cronjob-scheduled-timestamp}');
    assert.match(stamp, /\+09:00$/);
    assert.equal(Date.parse(stamp), minutes * 60_000);
    assert.equal(await k('get', 'job', job, '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].controller}'), 'CronJob/fire true');
    await k('wait', '--for=condition=complete', `job/${job}`, '--timeout=60s');
    await eventually('the completion recorded', async () => (await k('get', 'cronjob', 'fire', '-o', 'jsonpath={.status.lastSuccessfulTime}')) !== '', 30_000);
    // The schedule is every minute: when a minute turned meanwhile, the next run is the last one.
    const last = await k('get', 'cronjob', 'fire', '-o', 'jsonpath={.status.lastScheduleTime}');
    if (last !== rfc3339(minutes * 60_000)) {
      assert.ok(Date.parse(last) > minutes * 60_000, `lastScheduleTime ${last} follows ${job}`);
      assert.equal((await k('get', 'job', `fire-${Date.parse(last) / 60_000}`, '-o', 'name')).trim(), `job.batch/fire-${Date.parse(last) / 60_000}`, `the run of ${last}`);
    }
    assert.doesNotMatch(await k('get', 'cronjob', 'fire', '--no-headers'), /<none>\s+\S+$/);
    const events = await k('get', 'events', '--field-selector', 'involvedObject.name=fire', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}');
    assert.match(events, new RegExp(`^SuccessfulCreate: Created job ${job}$`, 'm'));
    assert.match(events, new RegExp(`^SawCompletedJob: Saw completed job: ${job}, condition: Complete$`, 'm'));
  });

  it('successfulJobsHistoryLimit 0: the finished Job is deleted', async () => {
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], cronJobYaml('keepnone', '  successfulJobsHistoryLimit: 0\n'));
    await overdue('keepnone');
    await eventually('a successful run', async () => (await k('get', 'cronjob', 'keepnone', '-o', 'jsonpath={.status.lastSuccessfulTime}')) !== '', 60_000);
    const events = await eventually('the Job deleted', async () => {
      const list = await k('get', 'events', '--field-selector', 'involvedObject.name=keepnone', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}');
      return /^SuccessfulDelete: Deleted job keepnone-\d+$/m.test(list) ? list : undefined;
    }, 30_000);
    const deleted = /^SuccessfulDelete: Deleted job (keepnone-\d+)$/m.exec(events)![1]!;
    await k('wait', '--for=delete', `job/${deleted}`, '--timeout=30s');
  });

  it('kubectl create job --from=cronjob/NAME runs the template now, marked as a manual run', async () => {
    await k('create', 'job', 'by-hand', '--from=cronjob/nightly');
    assert.equal(await k('get', 'job', 'by-hand', '-o', 'jsonpath={.metadata.annotations.cronjob\\.kubernetes\\.io/instantiate}'), 'manual');
    assert.equal(await k('get', 'job', 'by-hand', '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}'), 'CronJob/nightly');
    await k('wait', '--for=condition=complete', 'job/by-hand', '--timeout=60s');
    // Deleting the CronJob takes its Jobs with it.
    await k('delete', 'cronjob', 'nightly');
    await k('wait', '--for=delete', 'job/by-hand', '--timeout=30s');
  });
});
