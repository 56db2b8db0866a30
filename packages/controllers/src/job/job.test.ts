import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Jobs, Pods, createEventRecorder, type FakeClock, type Job, type Pod } from '@kplane/runtime';
import { settle } from '@kplane/runtime/testing';
import { eventually } from '@kplane/api/testing';
import { startControllerBed, type TestKplane } from '../namespace/testing.js';
import { createNamespace } from '../replicaset/test-support.js';
import { createJobController } from './job-controller.js';
import { eventsAbout, finishPod, getJob, jobPods, newJob, runPod, running, trueCondition } from './test-support.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');

describe('Job controller', () => {
  let kp: TestKplane;
  let clock: FakeClock;
  let stop: () => Promise<void>;
  const ns = 'jobs';
  before(async () => {
    ({ kp, clock, stop } = await startControllerBed(async (mgr, kp, clock) => {
      await createNamespace(kp.client, ns);
      const recorder = createEventRecorder({ client: kp.client, component: 'job-controller', clock });
      createJobController(mgr, { recorder, batchWindowMs: 0 });
    }, T0));
  });
  after(() => stop());

  const create = (job: Job) => kp.client.resource<Job>(Jobs).create(job, { namespace: ns });
  const pods = (name: string) => jobPods(kp.client, ns, name);
  const job = (name: string) => getJob(kp.client, ns, name);
  /** Waits until the Job has `n` running pods and returns them. */
  const runningPods = (name: string, n: number) => eventually(`${name}: ${n} running pods`, async () => {
    const r = running(await pods(name));
    return r.length === n ? r : undefined;
  });
  /** Advances virtual time in steps, letting the controller react between them. */
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 1000) {
      await clock.advanceAsync(Math.min(1000, ms - t));
      await settle();
    }
  };

  it('runs completions with parallelism, counts through the tracking finalizer, completes with kube conditions and events', async () => {
    await create(newJob('pi', { completions: 5, parallelism: 2 }));
    let total = 0;
    while (total < 5) {
      const want = Math.min(2, 5 - total);
      const r = await runningPods('pi', want);
      for (const p of r) {
        assert.ok(p.metadata?.finalizers?.includes('batch.kubernetes.io/job-tracking'));
        assert.equal(p.metadata?.ownerReferences?.[0].kind, 'Job');
        assert.equal(p.metadata?.ownerReferences?.[0].controller, true);
        assert.match(p.metadata?.generateName ?? '', /^pi-$/);
      }
      const j = await job('pi');
      assert.ok((j.status?.active ?? 0) <= 2, 'never more than parallelism');
      await finishPod(kp.client, clock, r[0]);
      total++;
      await eventually('counted', async () => ((await job('pi')).status?.succeeded ?? 0) >= total);
    }
    const done = await eventually('complete', async () => {
      const j = await job('pi');
      return trueCondition(j, 'Complete') ? j : undefined;
    });
    assert.equal(done.status?.succeeded, 5);
    assert.equal(done.status?.active, undefined);
    assert.equal(done.status?.ready, 0);
    assert.equal(done.status?.terminating, 0);
    assert.deepEqual(done.status?.uncountedTerminatedPods, {});
    assert.equal(done.status?.startTime, '2026-03-01T10:00:00Z');
    assert.equal(done.status?.completionTime, '2026-03-01T10:00:00Z');
    const scm = trueCondition(done, 'SuccessCriteriaMet');
    assert.deepEqual([scm?.reason, scm?.message], ['CompletionsReached', 'Reached expected number of succeeded pods']);
    assert.deepEqual([trueCondition(done, 'Complete')?.reason, trueCondition(done, 'Complete')?.message], ['CompletionsReached', 'Reached expected number of succeeded pods']);
    for (const p of await pods('pi')) assert.ok(!p.metadata?.finalizers?.includes('batch.kubernetes.io/job-tracking'), 'finalizer removed');
    const events = await eventually('events', async () => {
      const e = await eventsAbout(kp.client, ns, 'pi');
      return e.includes('Completed: Job completed') ? e : undefined;
    });
    assert.equal(events.filter((e) => e.startsWith('SuccessfulCreate: Created pod: pi-')).length, 5);
  });

  it('Indexed: one pod per index with the index annotation, label, env and hostname; completedIndexes', async () => {
    await create(newJob('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed', template: { spec: { restartPolicy: 'Never', subdomain: 'svc', containers: [{ name: 'main', image: 'busybox' }] } } }));
    const r = await runningPods('idx', 3);
    const byIndex = new Map(r.map((p) => [p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'], p]));
    assert.deepEqual([...byIndex.keys()].sort(), ['0', '1', '2']);
    const p1 = byIndex.get('1')!;
    assert.equal(p1.metadata?.labels?.['batch.kubernetes.io/job-completion-index'], '1');
    assert.match(p1.metadata?.name ?? '', /^idx-1-[a-z0-9]{5}$/);
    assert.equal(p1.spec?.hostname, 'idx-1');
    assert.equal(p1.spec?.subdomain, 'svc');
    assert.deepEqual(p1.spec?.containers[0].env, [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } }]);
    await finishPod(kp.client, clock, byIndex.get('0')!);
    await finishPod(kp.client, clock, byIndex.get('2')!);
    await eventually('0,2 done', async () => (await job('idx')).status?.completedIndexes === '0,2');
    await finishPod(kp.client, clock, p1);
    const done = await eventually('complete', async () => {
      const j = await job('idx');
      return trueCondition(j, 'Complete') ? j : undefined;
    });
    assert.equal(done.status?.completedIndexes, '0-2');
    assert.equal(done.status?.succeeded, 3);
  });

  it('backoffLimit: failed pods are replaced after 10 s, 20 s …; past the limit the Job fails with BackoffLimitExceeded', async () => {
    await create(newJob('flaky', { backoffLimit: 1 }));
    const [first] = await runningPods('flaky', 1);
    await finishPod(kp.client, clock, first, 3);
    await eventually('failure counted', async () => (await job('flaky')).status?.failed === 1);
    await advance(9000);
    assert.equal(running(await pods('flaky')).length, 0, 'no replacement before 10 s');
    await advance(1500);
    const [second] = await runningPods('flaky', 1);
    await finishPod(kp.client, clock, second, 3);
    const failed = await eventually('failed', async () => {
      const j = await job('flaky');
      return trueCondition(j, 'Failed') ? j : undefined;
    });
    assert.equal(failed.status?.failed, 2);
    assert.deepEqual([trueCondition(failed, 'FailureTarget')?.reason, trueCondition(failed, 'Failed')?.reason], ['BackoffLimitExceeded', 'BackoffLimitExceeded']);
    assert.equal(trueCondition(failed, 'Failed')?.message, 'Job has reached the specified backoff limit');
    assert.equal(failed.status?.completionTime, undefined);
    await eventually('warning event', async () => (await eventsAbout(kp.client, ns, 'flaky')).includes('BackoffLimitExceeded: Job has reached the specified backoff limit'));
  });

  it('podFailurePolicy: Ignore does not count, FailJob fails the Job at once with the rule in the message', async () => {
    await create(newJob('policy', {
      backoffLimit: 6,
      podFailurePolicy: { rules: [
        { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
      ] },
    }));
    const [a] = await runningPods('policy', 1);
    await finishPod(kp.client, clock, a, 137, [{ type: 'DisruptionTarget', status: 'True' }]);
    const [b] = await runningPods('policy', 1);
    assert.equal((await job('policy')).status?.failed, undefined, 'ignored failure not counted');
    await finishPod(kp.client, clock, b, 42);
    const failed = await eventually('failed', async () => {
      const j = await job('policy');
      return trueCondition(j, 'Failed') ? j : undefined;
    });
    assert.equal(trueCondition(failed, 'Failed')?.reason, 'PodFailurePolicy');
    assert.equal(trueCondition(failed, 'Failed')?.message, `Container main for pod ${ns}/${b.metadata?.name} failed with exit code 42 matching FailJob rule at index 1`);
    assert.equal(failed.status?.failed, 1);
  });

  it('backoffLimitPerIndex and maxFailedIndexes: failed indexes are reported, then the Job fails', async () => {
    await create(newJob('per-index', { completions: 3, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 0, maxFailedIndexes: 1 }));
    const r = await runningPods('per-index', 3);
    const at = (i: string) => r.find((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] === i)!;
    assert.equal(at('0').metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count'], '0');
    await finishPod(kp.client, clock, at('0'), 1);
    await eventually('index 0 failed', async () => (await job('per-index')).status?.failedIndexes === '0');
    await advance(15_000);
    assert.equal(running(await pods('per-index')).length, 2, 'a failed index is not retried');
    await finishPod(kp.client, clock, at('2'), 1);
    const failed = await eventually('failed', async () => {
      const j = await job('per-index');
      return trueCondition(j, 'Failed') ? j : undefined;
    });
    assert.equal(trueCondition(failed, 'Failed')?.reason, 'MaxFailedIndexesExceeded');
    // The pod of index 1, deleted when the Job failed, counts as a failed pod, not as a failed index.
    assert.equal(failed.status?.failedIndexes, '0,2');
    assert.equal(failed.status?.failed, 3);
    assert.equal(running(await pods('per-index')).length, 0, 'the rest deleted');
  });

  it('activeDeadlineSeconds: active pods are deleted and the Job fails with DeadlineExceeded', async () => {
    await create(newJob('slow', { activeDeadlineSeconds: 30, parallelism: 2, completions: 4 }));
    await runningPods('slow', 2);
    await advance(31_000);
    const failed = await eventually('failed', async () => {
      const j = await job('slow');
      return trueCondition(j, 'Failed') ? j : undefined;
    });
    assert.deepEqual([trueCondition(failed, 'Failed')?.reason, trueCondition(failed, 'Failed')?.message], ['DeadlineExceeded', 'Job was active longer than specified deadline']);
    assert.equal(failed.status?.active, undefined);
    assert.equal(running(await pods('slow')).length, 0);
  });

  it('suspend deletes active pods and sets Suspended; resume creates them again and resets startTime', async () => {
    await create(newJob('nap', { parallelism: 2, completions: 2, suspend: true }));
    const suspended = await eventually('suspended', async () => {
      const j = await job('nap');
      return trueCondition(j, 'Suspended') ? j : undefined;
    });
    assert.deepEqual([trueCondition(suspended, 'Suspended')?.reason, trueCondition(suspended, 'Suspended')?.message], ['JobSuspended', 'Job suspended']);
    assert.equal(suspended.status?.startTime, undefined);
    assert.equal((await pods('nap')).length, 0);
    await advance(5000);
    await kp.client.resource<Job>(Jobs).patch('nap', { spec: { suspend: false } }, 'merge', { namespace: ns });
    const r = await runningPods('nap', 2);
    const resumed = await job('nap');
    const cond = resumed.status?.conditions?.find((c) => c.type === 'Suspended');
    assert.deepEqual([cond?.status, cond?.reason, cond?.message], ['False', 'JobResumed', 'Job resumed']);
    assert.equal(resumed.status?.startTime, '2026-03-01T' + new Date(clock.now()).toISOString().slice(11, 19) + 'Z');
    await runPod(kp.client, clock, r[0]);
    await eventually('ready counted', async () => (await job('nap')).status?.ready === 1);
    await kp.client.resource<Job>(Jobs).patch('nap', { spec: { suspend: true } }, 'merge', { namespace: ns });
    await eventually('pods deleted', async () => running(await pods('nap')).length === 0);
    await eventually('suspended again', async () => !!trueCondition(await job('nap'), 'Suspended'));
    await eventually('startTime cleared once no pod runs', async () => (await job('nap')).status?.startTime === undefined);
    const events = await eventsAbout(kp.client, ns, 'nap');
    assert.ok(events.includes('Suspended: Job suspended') && events.includes('Resumed: Job resumed'), events.join('\n'));
  });

  it('successPolicy: the Job succeeds once the listed indexes did, deleting the others', async () => {
    await create(newJob('leader', { completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0' }] } }));
    const r = await runningPods('leader', 3);
    await finishPod(kp.client, clock, r.find((p) => p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] === '0')!);
    const done = await eventually('complete', async () => {
      const j = await job('leader');
      return trueCondition(j, 'Complete') ? j : undefined;
    });
    assert.deepEqual([trueCondition(done, 'SuccessCriteriaMet')?.reason, trueCondition(done, 'Complete')?.message], ['SuccessPolicy', 'Matched rules at index 0']);
    assert.equal(done.status?.completedIndexes, '0');
  });

  it('counts every pod exactly once while pods finish in bursts (no extra pods, no double counts)', async () => {
    await create(newJob('burst', { completions: 40, parallelism: 10 }));
    const finished = new Set<string>();
    await eventually('complete', async () => {
      const r = running(await pods('burst')).filter((p) => !finished.has(p.metadata?.uid ?? ''));
      for (const p of r) finished.add(p.metadata?.uid ?? '');
      await Promise.all(r.map((p) => finishPod(kp.client, clock, p)));
      return !!trueCondition(await job('burst'), 'Complete');
    }, 30_000);
    const all = await pods('burst');
    assert.equal(all.length, 40, 'exactly completions pods created');
    assert.equal((await job('burst')).status?.succeeded, 40);
  });

  it('restartPolicy OnFailure: container restarts count against backoffLimit', async () => {
    await create(newJob('restarts', { backoffLimit: 2, template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox' }] } } }));
    const [p] = await runningPods('restarts', 1);
    await kp.client.resource<Pod>(Pods).patch(p.metadata!.name!, {
      status: { phase: 'Running', containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
    }, 'merge', { namespace: ns, subresource: 'status' });
    const failed = await eventually('failed', async () => {
      const j = await job('restarts');
      return trueCondition(j, 'Failed') ? j : undefined;
    });
    assert.equal(trueCondition(failed, 'Failed')?.reason, 'BackoffLimitExceeded');
  });

  it('the pods of a deleted Job lose the tracking finalizer', async () => {
    await create(newJob('gone', { parallelism: 2, completions: 2 }));
    const r = await runningPods('gone', 2);
    await kp.client.resource<Job>(Jobs).delete('gone', { namespace: ns, propagationPolicy: 'Orphan' });
    await eventually('finalizers removed', async () => (await pods('gone')).every((p) => !p.metadata?.finalizers?.includes('batch.kubernetes.io/job-tracking')));
    assert.equal((await pods('gone')).length, r.length);
  });

  it('the pods of a Job replaced by another of the same name lose the finalizer; the new Job does not count them', async () => {
    await create(newJob('again', { parallelism: 1, completions: 1 }));
    const [old] = await runningPods('again', 1);
    // Background: gone at once (no garbage collector runs here), its pod left behind.
    await kp.client.resource<Job>(Jobs).delete('again', { namespace: ns, propagationPolicy: 'Background' });
    await create(newJob('again', { parallelism: 1, completions: 1 }));
    await eventually('old pod released', async () => {
      const p = (await pods('again')).find((x) => x.metadata?.uid === old.metadata?.uid);
      return p !== undefined && !p.metadata?.finalizers?.includes('batch.kubernetes.io/job-tracking');
    });
    await finishPod(kp.client, clock, (await pods('again')).find((x) => x.metadata?.uid === old.metadata?.uid)!);
    const mine = await eventually('a pod of the new Job', async () => running(await pods('again')).find((x) => x.metadata?.uid !== old.metadata?.uid));
    await finishPod(kp.client, clock, mine);
    const done = await eventually('complete', async () => {
      const j = await job('again');
      return trueCondition(j, 'Complete') ? j : undefined;
    });
    assert.equal(done.status?.succeeded, 1);
  });

  it('a work queue (no completions) completes when one pod succeeded and the others ended', async () => {
    await create(newJob('queue', { parallelism: 2 }));
    const r = await runningPods('queue', 2);
    await finishPod(kp.client, clock, r[0]);
    await eventually('counted', async () => (await job('queue')).status?.succeeded === 1);
    assert.equal(running(await pods('queue')).length, 1, 'no new pod after a success');
    assert.equal(trueCondition(await job('queue'), 'Complete'), undefined);
    await finishPod(kp.client, clock, r[1]);
    await eventually('complete', async () => !!trueCondition(await job('queue'), 'Complete'));
  });
});
