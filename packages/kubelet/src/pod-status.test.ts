import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import { normalizeImage, restartBackoffMs, simulatePod, stoppedPodStatus, type PodRecord } from './pod-status.js';
import type { PodPlan } from './profile.js';

const T0 = Date.parse('2025-03-01T10:00:00Z');

function pod(spec: Partial<kinds.PodSpec> = {}): kinds.Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'ns', uid: 'u-1' },
    spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: 'n0', ...spec },
    status: {
      phase: 'Pending',
      qosClass: 'BestEffort',
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2025-03-01T09:59:59Z' }],
    },
  };
}

function rec(plan: Partial<PodPlan> = {}): PodRecord {
  return { uid: 'u-1', seenAt: T0, hostIP: '172.18.0.2', podIP: '10.128.0.2', plan: { startAfterMs: 100, readyAfterMs: 100, failAfterMs: 1000, stopAfterMs: 0, ...plan } };
}

const cond = (s: kinds.PodStatus, type: string) => s.conditions?.find((c) => c.type === type);

describe('simulatePod', () => {
  it('is ContainerCreating, then Running and Ready with IPs, container ids and the five conditions', () => {
    const p = pod();
    const before = simulatePod(p, rec(), T0 + 50);
    assert.equal(before.stage, 'creating');
    assert.equal(before.nextAt, T0 + 100);
    assert.equal(before.status.phase, 'Pending');
    assert.equal(before.status.podIP, undefined);
    assert.equal(before.status.hostIP, '172.18.0.2');
    assert.deepEqual(before.status.containerStatuses![0]!.state, { waiting: { reason: 'ContainerCreating' } });
    assert.equal(cond(before.status, 'Ready')!.message, 'containers with unready status: [app]');
    assert.equal(cond(before.status, 'PodReadyToStartContainers')!.status, 'False');

    const after = simulatePod(p, rec(), T0 + 100);
    assert.equal(after.stage, 'ready');
    assert.equal(after.nextAt, undefined);
    const s = after.status;
    assert.equal(s.phase, 'Running');
    assert.equal(s.podIP, '10.128.0.2');
    assert.deepEqual(s.podIPs, [{ ip: '10.128.0.2' }]);
    assert.deepEqual(s.hostIPs, [{ ip: '172.18.0.2' }]);
    assert.equal(s.startTime, '2025-03-01T10:00:00Z');
    assert.equal(s.qosClass, 'BestEffort');
    assert.deepEqual(s.conditions!.map((c) => `${c.type}=${c.status}`), ['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True']);
    // PodScheduled keeps the binding's timestamp.
    assert.equal(cond(s, 'PodScheduled')!.lastTransitionTime, '2025-03-01T09:59:59Z');
    const cs = s.containerStatuses![0]!;
    assert.equal(cs.ready, true);
    assert.equal(cs.started, true);
    assert.equal(cs.restartCount, 0);
    assert.equal(cs.image, 'docker.io/library/nginx:latest');
    assert.match(cs.imageID, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.match(cs.containerID!, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.deepEqual(cs.state, { running: { startedAt: '2025-03-01T10:00:00Z' } });
  });

  it('keeps Ready False until readyAfterMs, and keeps lastTransitionTime when a status does not change', () => {
    const r = rec({ readyAfterMs: 5000 });
    const running = simulatePod(pod(), r, T0 + 1000);
    assert.equal(running.stage, 'running');
    assert.equal(running.nextAt, T0 + 5000);
    assert.equal(cond(running.status, 'Ready')!.status, 'False');
    const p2 = { ...pod(), status: running.status };
    const ready = simulatePod(p2, r, T0 + 5000);
    assert.equal(cond(ready.status, 'Ready')!.lastTransitionTime, '2025-03-01T10:00:05Z');
    assert.equal(cond(ready.status, 'PodReadyToStartContainers')!.lastTransitionTime, cond(running.status, 'PodReadyToStartContainers')!.lastTransitionTime);
  });

  it('honours readiness gates', () => {
    const p = pod({ readinessGates: [{ conditionType: 'example.com/lb' }] });
    const s = simulatePod(p, rec(), T0 + 200).status;
    assert.equal(cond(s, 'ContainersReady')!.status, 'True');
    assert.equal(cond(s, 'Ready')!.status, 'False');
    assert.equal(cond(s, 'Ready')!.reason, 'ReadinessGatesNotReady');
    assert.equal(cond(s, 'Ready')!.message, 'corresponding condition of pod readiness gate "example.com/lb" does not exist.');
    p.status!.conditions!.push({ type: 'example.com/lb', status: 'True' });
    const s2 = simulatePod(p, rec(), T0 + 200).status;
    assert.equal(cond(s2, 'Ready')!.status, 'True');
    assert.ok(cond(s2, 'example.com/lb'), 'conditions the kubelet does not own are kept');
  });

  it('crash-loops: Error, restart, Error, CrashLoopBackOff with growing backoff', () => {
    const r = rec({ fail: 'CrashLoopBackOff', failAfterMs: 1000 });
    const at = (ms: number) => simulatePod(pod(), r, T0 + ms);
    assert.equal(at(500).stage, '0:ready');
    const exited = at(1100);
    assert.equal(exited.stage, '0:exited');
    assert.deepEqual(exited.status.containerStatuses![0]!.state!.terminated!.reason, 'Error');
    assert.equal(exited.status.containerStatuses![0]!.state!.terminated!.exitCode, 1);
    // First restart after 1 s.
    const second = at(2100);
    assert.equal(second.stage, '1:ready');
    assert.equal(second.status.containerStatuses![0]!.restartCount, 1);
    assert.equal(second.status.containerStatuses![0]!.lastState!.terminated!.reason, 'Error');
    assert.equal(second.status.phase, 'Running');
    const back = at(2100 + 1000 + 1500);
    assert.equal(back.stage, '1:backoff');
    const w = back.status.containerStatuses![0]!.state!.waiting!;
    assert.equal(w.reason, 'CrashLoopBackOff');
    assert.equal(w.message, 'back-off 10s restarting failed container=app pod=web_ns(u-1)');
    assert.equal(cond(back.status, 'Ready')!.status, 'False');
    assert.equal(at(2100 + 1000 + 10_000).stage, '2:ready');
    assert.deepEqual([0, 1, 2, 3, 10].map((k) => restartBackoffMs(k)), [1000, 10_000, 20_000, 40_000, 300_000]);
  });

  it('fails for good with restartPolicy Never, and completes Jobs', () => {
    const failed = simulatePod(pod({ restartPolicy: 'Never' }), rec({ fail: 'Error', failAfterMs: 300 }), T0 + 500);
    assert.equal(failed.status.phase, 'Failed');
    assert.equal(failed.nextAt, undefined);
    const done = simulatePod(pod({ restartPolicy: 'OnFailure' }), rec({ runMs: 300 }), T0 + 500);
    assert.equal(done.status.phase, 'Succeeded');
    assert.equal(done.status.containerStatuses![0]!.state!.terminated!.reason, 'Completed');
    assert.equal(cond(done.status, 'Ready')!.reason, 'PodCompleted');
  });

  it('shows ErrImagePull then ImagePullBackOff, Pending', () => {
    const r = rec({ fail: 'ImagePullBackOff' });
    const err = simulatePod(pod(), r, T0 + 200);
    assert.equal(err.status.phase, 'Pending');
    assert.equal(err.status.containerStatuses![0]!.state!.waiting!.reason, 'ErrImagePull');
    const back = simulatePod(pod(), r, T0 + 1200);
    assert.deepEqual(back.status.containerStatuses![0]!.state!.waiting, { reason: 'ImagePullBackOff', message: 'Back-off pulling image "nginx"' });
    assert.equal(back.nextAt, undefined);
  });

  it('runs init containers first (Init:0/1 while creating) and sidecars keep running', () => {
    const p = pod({ initContainers: [{ name: 'setup', image: 'busybox' }, { name: 'proxy', image: 'envoy', restartPolicy: 'Always' }] });
    const creating = simulatePod(p, rec(), T0);
    assert.equal(cond(creating.status, 'Initialized')!.message, 'containers with incomplete status: [setup proxy]');
    assert.equal(creating.status.initContainerStatuses![0]!.state!.waiting!.reason, 'PodInitializing');
    const up = simulatePod(p, rec(), T0 + 100).status;
    assert.equal(up.initContainerStatuses![0]!.state!.terminated!.reason, 'Completed');
    assert.ok(up.initContainerStatuses![1]!.state!.running);
    assert.equal(cond(up, 'Initialized')!.status, 'True');
  });

  it('stops containers with exit 0, or 137 when killed at the end of the grace period', () => {
    const p = { ...pod(), status: simulatePod(pod(), rec(), T0 + 200).status };
    const ok = stoppedPodStatus(p, rec(), T0 + 9000, false);
    assert.equal(ok.phase, 'Succeeded');
    assert.equal(ok.containerStatuses![0]!.state!.terminated!.exitCode, 0);
    assert.equal(ok.containerStatuses![0]!.state!.terminated!.finishedAt, '2025-03-01T10:00:09Z');
    assert.equal(cond(ok, 'Ready')!.status, 'False');
    const killed = stoppedPodStatus(p, rec(), T0 + 9000, true);
    assert.equal(killed.phase, 'Failed');
    assert.equal(killed.containerStatuses![0]!.state!.terminated!.exitCode, 137);
  });

  it('normalizes image references as containerd does', () => {
    assert.equal(normalizeImage('nginx'), 'docker.io/library/nginx:latest');
    assert.equal(normalizeImage('nginx:1.27'), 'docker.io/library/nginx:1.27');
    assert.equal(normalizeImage('bitnami/redis'), 'docker.io/bitnami/redis:latest');
    assert.equal(normalizeImage('registry.k8s.io/e2e-test-images/agnhost:2.61'), 'registry.k8s.io/e2e-test-images/agnhost:2.61');
    assert.equal(normalizeImage('localhost:5000/app'), 'localhost:5000/app:latest');
    assert.equal(normalizeImage('busybox@sha256:abc'), 'docker.io/library/busybox@sha256:abc');
  });
});
