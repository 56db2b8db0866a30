import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import { containerAt, DEFAULT_BACKOFF, goDuration, restartBackoffMs, type CycleSpec } from './container-cycle.js';
import { simulatePod, stoppedPodStatus, type PodRecord } from './pod-status.js';
import { compileKubeletConfig, planFor } from './profile.js';

const T0 = Date.parse('2025-03-01T10:00:00Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function pod(spec: Partial<kinds.PodSpec> = {}, annotations: Record<string, string> = {}): kinds.Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'job-x', namespace: 'ns', uid: 'u-1', annotations },
    spec: { containers: [{ name: 'app', image: 'busybox' }], nodeName: 'n0', ...spec },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2025-03-01T09:59:59Z' }] },
  };
}

/** The record the kubelet makes for a pod, its plan from the default configuration (or `config`). */
function rec(p: kinds.Pod, config: unknown = {}): PodRecord {
  return { uid: 'u-1', seenAt: T0, hostIP: '172.18.0.2', podIP: '10.128.0.2', plan: planFor(p, compileKubeletConfig(config)) };
}

const at = (p: kinds.Pod, ms: number, config?: unknown) => simulatePod(p, rec(p, config), T0 + ms);
const conds = (s: kinds.PodStatus) => Object.fromEntries((s.conditions ?? []).map((c) => [c.type, `${c.status}${c.reason ? `/${c.reason}` : ''}`]));
const main = (s: kinds.PodStatus, i = 0) => s.containerStatuses![i]!;
const init = (s: kinds.PodStatus, i = 0) => s.initContainerStatuses![i]!;

describe('pods that run to completion', () => {
  it('a restartPolicy Never pod runs 1 s by default, then Succeeded: terminated Completed, Ready False PodCompleted', () => {
    const p = pod({ restartPolicy: 'Never' });
    const running = at(p, 600);
    assert.equal(running.status.phase, 'Running');
    assert.equal(running.nextAt, T0 + 1100);
    const done = at(p, 1100);
    assert.equal(done.status.phase, 'Succeeded');
    assert.equal(done.nextAt, undefined);
    assert.notEqual(done.stage, running.stage);
    const cs = main(done.status);
    assert.deepEqual(cs.state!.terminated, { exitCode: 0, reason: 'Completed', startedAt: iso(100), finishedAt: iso(1100), containerID: cs.containerID });
    assert.match(cs.containerID!, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.deepEqual([cs.ready, cs.started, cs.restartCount], [false, false, 0]);
    assert.deepEqual(conds(done.status), {
      PodReadyToStartContainers: 'False',
      Initialized: 'True',
      Ready: 'False/PodCompleted',
      ContainersReady: 'False/PodCompleted',
      PodScheduled: 'True',
    });
    assert.equal(done.status.podIP, '10.128.0.2', 'a finished pod keeps its IP in its status');
  });

  it('fails a Never pod whose container exits 3: reason Error, Ready False PodFailed', () => {
    const p = pod({ restartPolicy: 'Never' }, { 'kplane.io/exit-code': '3', 'kplane.io/run-ms': '200' });
    const s = at(p, 300).status;
    assert.equal(s.phase, 'Failed');
    assert.equal(main(s).state!.terminated!.exitCode, 3);
    assert.equal(main(s).state!.terminated!.reason, 'Error');
    assert.equal(conds(s).Ready, 'False/PodFailed');
    assert.equal(conds(s).ContainersReady, 'False/PodFailed');
  });

  it('stays Running while one container of a Never pod still runs, then Failed when the last exits', () => {
    const p = pod(
      { restartPolicy: 'Never', containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] },
      { 'kplane.io/run-ms.a': '500', 'kplane.io/exit-code.a': '2', 'kplane.io/run-ms.b': '2000' },
    );
    const mid = at(p, 1000);
    assert.equal(mid.status.phase, 'Running');
    assert.equal(main(mid.status, 0).state!.terminated!.exitCode, 2);
    assert.ok(main(mid.status, 1).state!.running);
    assert.equal(conds(mid.status).Ready, 'False/ContainersNotReady');
    assert.equal(mid.status.conditions!.find((c) => c.type === 'Ready')!.message, 'containers with unready status: [a]');
    assert.equal(mid.nextAt, T0 + 2100);
    assert.equal(at(p, 2100).status.phase, 'Failed');
  });

  it('restarts only the failed container of an OnFailure pod, and Succeeds when every container has exited 0', () => {
    const p = pod({ restartPolicy: 'OnFailure', containers: [{ name: 'ok', image: 'x' }, { name: 'bad', image: 'y' }] }, { 'kplane.io/exit-code.bad': '1', 'kplane.io/run-ms': '500' });
    const s = at(p, 1700).status;
    assert.equal(s.phase, 'Running');
    assert.equal(main(s, 0).state!.terminated!.reason, 'Completed');
    assert.equal(main(s, 0).restartCount, 0);
    assert.equal(main(s, 1).restartCount, 1, 'restarted 1 s after its first exit');
    assert.equal(main(s, 1).lastState!.terminated!.exitCode, 1);
    const good = pod({ restartPolicy: 'OnFailure' }, { 'kplane.io/run-ms': '500' });
    assert.equal(at(good, 700).status.phase, 'Succeeded');
  });

  it('restarts a restartPolicy Always container told to exit: restartCount, lastState, CrashLoopBackOff with the kubelet message', () => {
    const p = pod({}, { 'kplane.io/run-ms': '300' });
    const exited = at(p, 500).status;
    assert.equal(exited.phase, 'Running');
    assert.equal(main(exited).state!.terminated!.reason, 'Completed');
    const second = at(p, 1500).status;
    assert.equal(main(second).restartCount, 1);
    assert.ok(main(second).state!.running);
    assert.deepEqual(main(second).lastState!.terminated!.finishedAt, iso(400));
    // Second exit at 1400 + 300; then 10 s of backoff.
    const back = at(p, 3000);
    assert.equal(main(back.status).state!.waiting!.reason, 'CrashLoopBackOff');
    assert.equal(main(back.status).state!.waiting!.message, 'back-off 10s restarting failed container=app pod=job-x_ns(u-1)');
    assert.equal(main(back.status).lastState!.terminated!.exitCode, 0);
    assert.equal(main(back.status).restartCount, 1);
    assert.match(main(back.status).imageID, /@sha256:/, 'a crash-looping container keeps its image id');
    assert.deepEqual(back.backoff, ['app:1']);
    assert.equal(back.nextAt, T0 + 1700 + 10_000);
    assert.equal(main(at(p, 11_800).status).restartCount, 2);
    assert.equal(main(at(p, 13_100).status).state!.waiting!.message, 'back-off 20s restarting failed container=app pod=job-x_ns(u-1)');
  });

  it('doubles the backoff to 5 min, resets it after a long run, and takes its base from the configuration', () => {
    assert.deepEqual([0, 1, 2, 3, 5, 6, 9].map((k) => restartBackoffMs(k)), [1000, 10_000, 20_000, 40_000, 160_000, 300_000, 300_000]);
    assert.equal(restartBackoffMs(4, 11 * 60_000), 1000, 'ran over 10 min: the backoff starts afresh');
    assert.deepEqual([500, 10_000, 80_000, 300_000, 1500, 3_600_000].map(goDuration), ['500ms', '10s', '1m20s', '5m0s', '1.5s', '1h0m0s']);
    const p = pod({}, { 'kplane.io/run-ms': '100' });
    const fast = { defaults: { backoffMs: 200, maxBackoffMs: 400 } };
    // Exit at 200, restart at 400 (first wait min(1 s, base)), exit at 500, wait 200.
    const s = at(p, 650, fast).status;
    assert.equal(main(s).state!.waiting!.message, 'back-off 200ms restarting failed container=app pod=job-x_ns(u-1)');
    assert.equal(main(at(p, 700, fast).status).restartCount, 2);
  });

  it('finds the instance of a container that has crash-looped for days without walking every restart', () => {
    const spec: CycleSpec = { name: 'app', startAt: 0, runMs: 100, exitCode: 1, restart: 'Always', readyAfterMs: 0, backoff: DEFAULT_BACKOFF };
    const id = { uid: 'u', name: 'p', namespace: 'ns' };
    // Waits 1 s, 10 s, 20 s, 40 s, 80 s, 160 s, then 300 s: instance 7 starts at 611 700.
    assert.equal(containerAt(id, spec, 611_650).restartCount, 6);
    assert.equal(containerAt(id, spec, 611_750).restartCount, 7);
    const later = 611_700 + 1000 * 300_100;
    const running = containerAt(id, spec, later + 50);
    assert.deepEqual([running.restartCount, running.state.running?.startedAt], [1007, new Date(later).toISOString().replace(/\.\d{3}Z$/, 'Z')]);
    assert.equal(running.lastState!.terminated!.finishedAt, new Date(later - 300_000).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    const waiting = containerAt(id, spec, later - 100);
    assert.deepEqual([waiting.restartCount, waiting.state.waiting?.reason, waiting.nextAt], [1006, 'CrashLoopBackOff', later]);
    const zero: CycleSpec = { ...spec, runMs: 0, backoff: { baseMs: 0, maxMs: 0 } };
    assert.equal(containerAt(id, zero, 1e12).restartCount, 1e12, 'a 1 ms floor on the wait, and no endless loop');
  });

  it('runs init containers one after the other before the regular containers (Init:0/2 → Init:1/2 → Running)', () => {
    const p = pod({ initContainers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] }, { 'kplane.io/run-ms.a': '500', 'kplane.io/run-ms.b': '300' });
    const creating = at(p, 50).status;
    assert.equal(init(creating, 0).state!.waiting!.reason, 'PodInitializing');
    assert.equal(main(creating).state!.waiting!.reason, 'PodInitializing');
    const first = at(p, 200).status;
    assert.equal(first.phase, 'Pending');
    assert.ok(init(first, 0).state!.running);
    assert.equal(init(first, 1).state!.waiting!.reason, 'PodInitializing');
    assert.equal(first.conditions!.find((c) => c.type === 'Initialized')!.message, 'containers with incomplete status: [a b]');
    const second = at(p, 700).status;
    assert.deepEqual([init(second, 0).state!.terminated!.reason, init(second, 0).ready], ['Completed', true]);
    assert.ok(init(second, 1).state!.running);
    assert.equal(second.conditions!.find((c) => c.type === 'Initialized')!.message, 'containers with incomplete status: [b]');
    const up = at(p, 900);
    assert.equal(up.status.phase, 'Running');
    assert.deepEqual(main(up.status).state, { running: { startedAt: iso(900) } });
    assert.equal(conds(up.status).Initialized, 'True');
    assert.equal(conds(up.status).Ready, 'True');
    assert.equal(up.nextAt, undefined);
  });

  it('fails the pod when an init container fails with restartPolicy Never, and crash-loops it otherwise', () => {
    const spec = { initContainers: [{ name: 'setup', image: 'x' }] };
    const bad = { 'kplane.io/exit-code.setup': '7', 'kplane.io/run-ms.setup': '100' };
    const never = at(pod({ ...spec, restartPolicy: 'Never' }, bad), 300).status;
    assert.equal(never.phase, 'Failed');
    assert.equal(init(never).state!.terminated!.exitCode, 7);
    assert.equal(main(never).state!.waiting!.reason, 'PodInitializing');
    assert.equal(conds(never).Initialized, 'False/ContainersNotInitialized');
    const always = at(pod(spec, bad), 2500).status;
    assert.equal(always.phase, 'Pending');
    assert.equal(init(always).state!.waiting!.reason, 'CrashLoopBackOff');
    assert.equal(init(always).restartCount, 1);
  });

  it('starts a sidecar and keeps it running, then stops it when the Job-style pod completes', () => {
    const p = pod({ restartPolicy: 'Never', initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }] });
    const up = at(p, 500).status;
    assert.ok(init(up).state!.running);
    assert.deepEqual([init(up).started, init(up).ready], [true, true]);
    assert.ok(main(up).state!.running, 'the regular container starts with the sidecar running');
    const done = at(p, 1100);
    assert.equal(done.status.phase, 'Succeeded');
    assert.equal(init(done.status).state!.terminated!.finishedAt, iso(1100));
    assert.equal(conds(done.status).Initialized, 'True/PodCompleted');
    assert.equal(done.nextAt, undefined);
  });
});

describe('spec.activeDeadlineSeconds', () => {
  it('fails a pod still live at the deadline: reason DeadlineExceeded, running containers exit 143', () => {
    const p = pod({ activeDeadlineSeconds: 2 });
    const before = at(p, 1900);
    assert.equal(before.status.phase, 'Running');
    assert.equal(before.nextAt, T0 + 2000);
    const after = at(p, 2500);
    assert.equal(after.status.phase, 'Failed');
    assert.deepEqual([after.status.reason, after.status.message], ['DeadlineExceeded', 'Pod was active on the node longer than the specified deadline']);
    assert.deepEqual(main(after.status).state!.terminated, { exitCode: 143, reason: 'Error', startedAt: iso(100), finishedAt: iso(2000), containerID: main(after.status).containerID });
    assert.equal(conds(after.status).Ready, 'False/PodFailed');
    assert.equal(after.nextAt, undefined);
    assert.notEqual(after.stage, before.stage);
  });

  it('leaves a pod that finished in time alone, and fails one stuck in its init containers', () => {
    const quick = at(pod({ restartPolicy: 'Never', activeDeadlineSeconds: 5 }), 6000).status;
    assert.deepEqual([quick.phase, quick.reason], ['Succeeded', undefined]);
    const stuck = pod({ activeDeadlineSeconds: 1, initContainers: [{ name: 'wait', image: 'x' }] }, { 'kplane.io/run-ms.wait': '60000' });
    const s = at(stuck, 1500).status;
    assert.equal(s.phase, 'Failed');
    assert.equal(init(s).state!.terminated!.exitCode, 143);
    assert.equal(main(s).state!.waiting!.reason, 'PodInitializing');
  });
});

describe('a pod stopped for its deletion', () => {
  it('ends a Job-style pod\'s unfinished work with 143 (Failed), a server with 0 (Succeeded), anything with 137 when killed', () => {
    const job = pod({ restartPolicy: 'Never' }, { 'kplane.io/run-ms': '60000' });
    const live = { ...job, status: at(job, 500).status };
    const stopped = stoppedPodStatus(live, rec(job), T0 + 600, false);
    assert.deepEqual([stopped.phase, main(stopped).state!.terminated!.exitCode, main(stopped).state!.terminated!.reason], ['Failed', 143, 'Error']);
    assert.deepEqual(conds(stopped).Ready, 'False/PodFailed');
    const server = pod();
    const up = { ...server, status: at(server, 500).status };
    const ok = stoppedPodStatus(up, rec(server), T0 + 600, false);
    assert.deepEqual([ok.phase, main(ok).state!.terminated!.exitCode, conds(ok).ContainersReady], ['Succeeded', 0, 'False/PodCompleted']);
    assert.equal(stoppedPodStatus(up, rec(server), T0 + 600, true).phase, 'Failed');
    const crashing = pod({}, { 'kplane.io/run-ms': '100', 'kplane.io/exit-code': '1' });
    const looping = { ...crashing, status: at(crashing, 3000).status };
    assert.equal(main(looping.status!).state!.waiting!.reason, 'CrashLoopBackOff');
    assert.equal(stoppedPodStatus(looping, rec(crashing), T0 + 3100, false).phase, 'Failed', 'its last instance failed');
  });
});

describe('run time and exit code settings', () => {
  it('runs Never/OnFailure pods for defaults.runMs, Always pods for ever unless a rule or an annotation says', () => {
    const config = compileKubeletConfig({ defaults: { runMs: 5000, exitCode: 0 }, rules: [{ selector: 'app=batch', runMs: 50, exitCode: 4 }] });
    const mk = (policy: kinds.PodSpec['restartPolicy'], labels: Record<string, string> = {}, annotations: Record<string, string> = {}) =>
      planFor({ metadata: { labels, annotations }, spec: { restartPolicy: policy, containers: [] } }, config);
    assert.equal(mk('Never').runMs, 5000);
    assert.equal(mk('OnFailure').runMs, 5000);
    assert.equal(mk('Always').runMs, undefined);
    assert.deepEqual([mk('Always', { app: 'batch' }).runMs, mk('Always', { app: 'batch' }).exitCode], [50, 4]);
    assert.equal(mk('Always', {}, { 'kplane.io/run-ms': '70' }).runMs, 70);
    assert.equal(mk('Never', {}, { 'kplane.io/complete-after-ms': '80' }).runMs, 80, 'complete-after-ms is an alias');
    assert.equal(planFor({ spec: { restartPolicy: 'Never', containers: [] } }, compileKubeletConfig()).runMs, 1000);
    assert.deepEqual(mk('Never', {}, { 'kplane.io/run-ms.a': '10', 'kplane.io/exit-code.a': '3', 'kplane.io/exit-code.b': '300', 'kplane.io/exit-code': 'x' }).containers, { a: { runMs: 10, exitCode: 3 } });
    assert.throws(() => compileKubeletConfig({ defaults: { exitCode: 1.5 } }), /defaults\.exitCode: must be a whole number from 0 to 255/);
  });
});
