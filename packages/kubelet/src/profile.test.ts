import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import { compileKubeletConfig, planFor } from './profile.js';

const pod = (labels: Record<string, string> = {}, annotations: Record<string, string> = {}, ns = 'default'): kinds.Pod => ({
  metadata: { name: 'p', namespace: ns, labels, annotations },
  spec: { containers: [{ name: 'c', image: 'x' }] },
});

describe('pod behaviour', () => {
  it('defaults to a 100 ms start, Ready at once', () => {
    assert.deepEqual(planFor(pod(), compileKubeletConfig()), { startAfterMs: 100, readyAfterMs: 100, failAfterMs: 1000, stopAfterMs: 0 });
  });

  it('applies defaults, then the first matching rule, then annotations', () => {
    const config = compileKubeletConfig({
      apiVersion: 'kplane.io/v1alpha1',
      kind: 'KubeletConfiguration',
      defaults: { startAfterMs: 50 },
      rules: [
        { namespace: 'slow', startAfterMs: 3000 },
        { selector: 'app in (web,api),tier!=cache', readyAfterMs: 2000, fail: 'NotReady' },
        { selector: 'app=web', startAfterMs: 1 },
      ],
    });
    assert.equal(planFor(pod({ app: 'db' }), config).startAfterMs, 50);
    assert.equal(planFor(pod({}, {}, 'slow'), config).startAfterMs, 3000);
    const web = planFor(pod({ app: 'web' }), config);
    assert.deepEqual([web.startAfterMs, web.readyAfterMs, web.fail], [50, 2000, 'NotReady']);
    const annotated = planFor(pod({ app: 'web' }, { 'kplane.io/ready-after-ms': '700', 'kplane.io/fail': 'CrashLoopBackOff', 'kplane.io/fail-after-ms': '20', 'kplane.io/stop-after-ms': 'x' }), config);
    assert.deepEqual([annotated.readyAfterMs, annotated.fail, annotated.failAfterMs, annotated.stopAfterMs], [700, 'CrashLoopBackOff', 20, 0]);
  });

  it('adds readinessProbe.initialDelaySeconds and jitter', () => {
    const p = pod();
    p.spec!.containers[0]!.readinessProbe = { initialDelaySeconds: 3 };
    assert.equal(planFor(p, compileKubeletConfig()).readyAfterMs, 3100);
    const j = planFor(pod({}, { 'kplane.io/jitter-ms': '1000' }), compileKubeletConfig(), () => 0.5);
    assert.deepEqual([j.startAfterMs, j.readyAfterMs], [600, 600]);
  });

  it('rejects bad configuration with the offending path', () => {
    assert.throws(() => compileKubeletConfig({ defaults: { startAfterMs: -1 } }), /defaults\.startAfterMs: must be a number >= 0/);
    assert.throws(() => compileKubeletConfig({ rules: [{ fail: 'Boom' }] }), /rules\[0\]\.fail: must be one of/);
    assert.throws(() => compileKubeletConfig({ rules: [{ selector: 'a in (' }] }), /rules\[0\]\.selector/);
    assert.throws(() => compileKubeletConfig({ stages: [] }), /unknown field "stages"/);
  });
});
