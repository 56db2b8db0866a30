import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CronJob } from '@kplane/runtime';
import { CronJobs, Jobs, cronJob, eventsOf, finishJob, jobsOf, startCronJobEnv, type CronJobTestEnv } from './test-support.js';
import { CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION } from './util.js';

// 2026-01-05 is a Monday; the control plane starts 30 s after midnight UTC.
const T0 = Date.parse('2026-01-05T00:00:30Z');
const minutes = (iso: string) => Date.parse(iso) / 60_000;
const MIN = 60_000;

describe('cronjob controller on virtual time', () => {
  let env: CronJobTestEnv;
  before(async () => {
    env = await startCronJobEnv(T0);
  });
  after(() => env.close());

  const create = (obj: CronJob) => env.client.resource(CronJobs).create(obj, { namespace: 'ns' });
  const get = (name: string) => env.client.resource(CronJobs).get(name, { namespace: 'ns' });
  const names = async (name: string) => (await jobsOf(env.client, name)).map((j) => j.metadata!.name!);

  it('fires at each start time, records it, and keeps the history limits', async () => {
    await create(cronJob('tick', { successfulJobsHistoryLimit: 2, failedJobsHistoryLimit: 1 }));
    await env.advance(4 * MIN);
    assert.deepEqual(await names('tick'), []);
    await env.advance(1 * MIN); // 00:05:30
    const [job] = await jobsOf(env.client, 'tick');
    assert.equal(job?.metadata?.name, `tick-${minutes('2026-01-05T00:05:00Z')}`);
    assert.equal(job?.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION], '2026-01-05T00:05:00Z');
    assert.equal(job?.metadata?.labels?.app, 'tick');
    const owner = job?.metadata?.ownerReferences?.[0];
    assert.deepEqual([owner?.kind, owner?.name, owner?.controller, owner?.blockOwnerDeletion], ['CronJob', 'tick', true, true]);
    assert.equal(job?.spec?.template?.spec?.restartPolicy, 'OnFailure');
    let cj = await get('tick');
    assert.deepEqual(cj.status?.active?.map((r) => [r.kind, r.name, r.uid]), [['Job', job!.metadata!.name, job!.metadata!.uid]]);
    assert.equal(cj.status?.lastScheduleTime, '2026-01-05T00:05:00Z');

    await finishJob(env.client, job!, 'Complete', env.clock.now());
    await env.advance(1000);
    cj = await get('tick');
    assert.deepEqual(cj.status?.active ?? [], []);
    assert.equal(cj.status?.lastSuccessfulTime, '2026-01-05T00:05:30Z');

    // Three more successes (only the 2 newest kept), then two failures (only 1 kept).
    for (const outcome of ['Complete', 'Complete', 'Complete', 'Failed', 'Failed'] as const) {
      await env.advance(5 * MIN);
      const jobs = await jobsOf(env.client, 'tick');
      const newest = jobs[jobs.length - 1]!;
      await finishJob(env.client, newest, outcome, env.clock.now());
      await env.advance(1000);
    }
    const at = (hhmm: string) => `tick-${minutes(`2026-01-05T00:${hhmm}:00Z`)}`;
    assert.deepEqual(await names('tick'), [at('15'), at('20'), at('30')]);
    const events = await eventsOf(env.client, 'tick');
    assert.ok(events.includes(`SuccessfulCreate: Created job ${at('05')}`), events.join('\n'));
    assert.ok(events.includes(`SawCompletedJob: Saw completed job: ${at('05')}, condition: Complete`), events.join('\n'));
    assert.ok(events.includes(`SawCompletedJob: Saw completed job: ${at('25')}, condition: Failed`), events.join('\n'));
    assert.ok(events.includes(`SuccessfulDelete: Deleted job ${at('05')}`), events.join('\n'));
    assert.ok(events.includes(`SuccessfulDelete: Deleted job ${at('25')}`), events.join('\n'));
  });

  it('concurrency policies: Allow runs alongside, Forbid skips, Replace deletes the running Job', async () => {
    const start = env.clock.now();
    await create(cronJob('allow', { schedule: '*/10 * * * *' }));
    await create(cronJob('forbid', { schedule: '*/10 * * * *', concurrencyPolicy: 'Forbid' }));
    await create(cronJob('replace', { schedule: '*/10 * * * *', concurrencyPolicy: 'Replace' }));
    const firstTick = Math.ceil((start + 1) / (10 * MIN)) * 10 * MIN;
    await env.advance(firstTick - start + 30_000);
    for (const n of ['allow', 'forbid', 'replace']) assert.equal((await names(n)).length, 1, n);
    await env.advance(10 * MIN);
    assert.equal((await names('allow')).length, 2);
    assert.equal((await get('allow')).status?.active?.length, 2);
    assert.equal((await names('forbid')).length, 1);
    assert.ok((await eventsOf(env.client, 'forbid')).includes('JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid'));
    const replaced = await names('replace');
    assert.deepEqual(replaced, [`replace-${(firstTick + 10 * MIN) / MIN}`]);
    assert.deepEqual((await get('replace')).status?.active?.map((r) => r.name), replaced);
    assert.ok((await eventsOf(env.client, 'replace')).includes(`SuccessfulDelete: Deleted job replace-${firstTick / MIN}`));

    // A running Job deleted by someone leaves status.active, which lets the start time Forbid skipped run.
    const [running] = await names('forbid');
    await env.client.resource(Jobs).delete(running!, { namespace: 'ns' });
    await env.advance(1000);
    assert.ok((await eventsOf(env.client, 'forbid')).includes(`MissingJob: Active job went missing: ${running}`));
    const skipped = `forbid-${(firstTick + 10 * MIN) / MIN}`;
    assert.deepEqual(await names('forbid'), [skipped]);
    assert.deepEqual((await get('forbid')).status?.active?.map((r) => r.name), [skipped]);
  });

  it('suspend stops new runs; resuming runs the most recent missed time unless past startingDeadlineSeconds', async () => {
    await create(cronJob('paused', { schedule: '*/5 * * * *', suspend: true }));
    await create(cronJob('strict', { schedule: '*/5 * * * *', suspend: true, startingDeadlineSeconds: 60 }));
    await env.advance(12 * MIN);
    assert.deepEqual(await names('paused'), []);
    const resumed = env.clock.now();
    for (const n of ['paused', 'strict']) {
      const cj = await get(n);
      cj.spec!.suspend = false;
      await env.client.resource(CronJobs).update(cj, { namespace: 'ns' });
    }
    await env.advance(1000);
    const lastTick = Math.floor(resumed / (5 * MIN)) * 5 * MIN;
    assert.ok(resumed - lastTick > 60_000, 'the last start time is past the 60 s deadline');
    assert.deepEqual(await names('paused'), [`paused-${lastTick / MIN}`]);
    assert.deepEqual(await names('strict'), []);
    await env.advance(lastTick + 5 * MIN - env.clock.now() + 1000);
    assert.ok((await names('strict')).includes(`strict-${(lastTick + 5 * MIN) / MIN}`));
  });

  it('more than 100 missed start times: a warning, then the most recent one runs', async () => {
    await create(cronJob('late', { schedule: '* * * * *', suspend: true }));
    const cj = await get('late');
    const now = env.clock.now();
    cj.status = { lastScheduleTime: new Date(Math.floor(now / MIN) * MIN - 200 * MIN).toISOString().replace('.000', '') };
    await env.client.resource(CronJobs).updateStatus(cj, { namespace: 'ns' });
    const fresh = await get('late');
    fresh.spec!.suspend = false;
    await env.client.resource(CronJobs).update(fresh, { namespace: 'ns' });
    await env.advance(1000);
    assert.deepEqual(await names('late'), [`late-${Math.floor(now / MIN)}`]);
    assert.ok((await eventsOf(env.client, 'late')).includes('TooManyMissedTimes: too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew'));
  });

  it('a Job already there under the start time\'s name is recorded, not created again; others it controls are unexpected', async () => {
    const cj = await create(cronJob('again', { schedule: '*/5 * * * *' }));
    const tick = Math.floor(env.clock.now() / (5 * MIN)) * 5 * MIN + 5 * MIN;
    const owner = { apiVersion: 'batch/v1', kind: 'CronJob', name: 'again', uid: cj.metadata!.uid!, controller: true, blockOwnerDeletion: true };
    const spec = { template: { spec: { restartPolicy: 'Never' as const, containers: [{ name: 'c', image: 'busybox' }] } } };
    // As if an earlier sync created it and its status write was lost.
    const early = await env.client.resource(Jobs).create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: `again-${tick / MIN}`, ownerReferences: [owner] }, spec }, { namespace: 'ns' });
    await env.client.resource(Jobs).create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'by-hand', annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' }, ownerReferences: [owner] }, spec }, { namespace: 'ns' });
    await env.advance(tick - env.clock.now() + 1000);
    const status = (await get('again')).status;
    assert.deepEqual(status?.active?.map((r) => r.uid), [early.metadata!.uid]);
    assert.equal(status?.lastScheduleTime, new Date(tick).toISOString().replace('.000', ''));
    const events = await eventsOf(env.client, 'again');
    assert.ok(!events.some((e) => e.startsWith('SuccessfulCreate')), events.join('\n'));
    assert.ok(events.includes('UnexpectedJob: Saw a job that the controller did not create or forgot: by-hand'), events.join('\n'));
  });

  it('a schedule with no start time (February 31st) is reported as invalid', async () => {
    await create(cronJob('never', { schedule: '59 23 31 2 *' }));
    await env.advance(1000);
    assert.deepEqual(await names('never'), []);
    assert.ok((await eventsOf(env.client, 'never')).includes('InvalidSchedule: invalid schedule: 59 23 31 2 * : time difference between two schedules is less than 1 second'));
  });

  it('@every runs at a constant interval from the previous start', async () => {
    await create(cronJob('every', { schedule: '@every 90s', successfulJobsHistoryLimit: 10 }));
    const created = Math.floor(env.clock.now() / 1000) * 1000;
    await env.advance(3 * 90_000 + 1000, 500);
    const times = (await jobsOf(env.client, 'every')).map((j) => j.metadata!.annotations![CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]);
    assert.deepEqual(times, [1, 2, 3].map((n) => new Date(created + n * 90_000).toISOString().replace('.000', '')).sort());
  });

  it('a changed schedule is looked at from its next start time, not at once', async () => {
    await create(cronJob('resched', { schedule: '0 0 1 1 *' }));
    const now = env.clock.now();
    const cj = await get('resched');
    cj.status = { lastScheduleTime: new Date(Math.floor(now / MIN) * MIN - 3 * 60 * MIN).toISOString().replace('.000', '') };
    await env.client.resource(CronJobs).updateStatus(cj, { namespace: 'ns' });
    await env.advance(1000);
    const fresh = await get('resched');
    fresh.spec!.schedule = '0 * * * *';
    await env.client.resource(CronJobs).update(fresh, { namespace: 'ns' });
    await env.advance(1000);
    // The start times missed under the new schedule are not run now...
    assert.deepEqual(await names('resched'), []);
    // ...the next one is.
    const nextHour = Math.ceil(env.clock.now() / (60 * MIN)) * 60 * MIN;
    await env.advance(nextHour - env.clock.now() + 1000, 60_000);
    assert.deepEqual(await names('resched'), [`resched-${nextHour / MIN}`]);
  });

  it('timeZone: the schedule is read in the zone; the annotation carries its offset', async () => {
    // Only this CronJob runs through the day.
    for (const cj of (await env.client.resource(CronJobs).list({ namespace: 'ns' })).items) await env.client.resource(CronJobs).delete(cj.metadata!.name!, { namespace: 'ns' });
    await create(cronJob('tokyo', { schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' }));
    const next = Date.parse('2026-01-06T00:00:00Z');
    await env.advance(next - env.clock.now() + 1000, 10 * MIN);
    const [job] = await jobsOf(env.client, 'tokyo');
    assert.equal(job?.metadata?.name, `tokyo-${next / MIN}`);
    assert.equal(job?.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION], '2026-01-06T09:00:00+09:00');
  });
});
