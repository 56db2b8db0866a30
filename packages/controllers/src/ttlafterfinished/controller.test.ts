import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Jobs, formatTime, type FakeClock, type Job } from '@kplane/runtime';
import { settle } from '@kplane/runtime/testing';
import { eventually } from '@kplane/api/testing';
import { startControllerBed, type TestKplane } from '../namespace/testing.js';
import { newJob } from '../job/test-support.js';
import { createTtlAfterFinishedController, jobExpiresAt } from './controller.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
let kp: TestKplane;
let clock: FakeClock;
let stop: () => Promise<void>;

before(async () => {
  ({ kp, clock, stop } = await startControllerBed(async (mgr) => {
    createTtlAfterFinishedController(mgr);
  }, T0));
});
after(() => stop());

const api = () => kp.client.resource<Job>(Jobs);

/** Creates a Job and marks it finished (condition `type`) at the clock's time. */
async function finished(name: string, ttl: number | undefined, type = 'Complete'): Promise<void> {
  const made = await api().create(newJob(name, ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }), { namespace: 'default' });
  const t = formatTime(clock.now());
  made.status = { conditions: [{ type, status: 'True', lastProbeTime: t, lastTransitionTime: t, reason: 'x', message: 'y' }] };
  await api().updateStatus(made, { namespace: 'default' });
}

const advance = async (ms: number) => {
  for (let t = 0; t < ms; t += 1000) {
    await clock.advanceAsync(Math.min(1000, ms - t));
    await settle();
  }
};

it('jobExpiresAt: finish time plus the TTL, only for finished Jobs with a TTL', () => {
  const t = '2026-03-01T10:00:00Z';
  assert.equal(jobExpiresAt({ spec: { ttlSecondsAfterFinished: 5, template: {} }, status: { conditions: [{ type: 'Failed', status: 'True', lastTransitionTime: t }] } }), T0 + 5000);
  assert.equal(jobExpiresAt({ spec: { ttlSecondsAfterFinished: 5, template: {} }, status: { conditions: [{ type: 'Complete', status: 'False', lastTransitionTime: t }] } }), undefined);
  assert.equal(jobExpiresAt({ spec: { template: {} }, status: { conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: t }] } }), undefined);
});

it('deletes a finished Job in the foreground once its TTL passed, on virtual time; others are kept', async () => {
  await finished('short', 60);
  await finished('failed', 0, 'Failed');
  await finished('forever', undefined);
  await eventually('ttl 0 deleted at once', async () => !!(await api().get('failed', { namespace: 'default' })).metadata?.deletionTimestamp);
  await advance(50_000);
  assert.equal((await api().get('short', { namespace: 'default' })).metadata?.deletionTimestamp, undefined, 'kept before its TTL');
  // A longer TTL set before expiry is honoured.
  await api().patch('short', { spec: { ttlSecondsAfterFinished: 120 } }, 'merge', { namespace: 'default' });
  await advance(20_000);
  assert.equal((await api().get('short', { namespace: 'default' })).metadata?.deletionTimestamp, undefined, 'extended TTL honoured');
  await advance(51_000);
  const gone = await eventually('deleted', async () => {
    const j = await api().get('short', { namespace: 'default' });
    return j.metadata?.deletionTimestamp ? j : undefined;
  });
  assert.ok(gone.metadata?.finalizers?.includes('foregroundDeletion'), 'foreground deletion');
  assert.equal((await api().get('forever', { namespace: 'default' })).metadata?.deletionTimestamp, undefined);
});
