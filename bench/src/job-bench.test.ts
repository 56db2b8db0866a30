import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JOB_TARGET_RATIO, formatJob } from './job-bench.js';

const deployment = { replicas: 1000, readyReplicas: 1000, reached: true, seconds: 10, milestones: [] };

test('formatJob: the baseline, the Job and the ratio against the target', () => {
  const met = formatJob({ result: { job: { completions: 1000, parallelism: 100, seconds: 12.5, reached: true, succeeded: 1000, maxActive: 100 }, deployment, ratio: 0.8 }, stderrLines: 0 });
  assert.match(met, /Deployment 0 -> 1000 \(baseline\)/);
  assert.match(met, /Job 1000 completions, parallelism 100/);
  assert.match(met, new RegExp(`>=${JOB_TARGET_RATIO}x met \\(0.80x\\)`));
  assert.match(met, /most active 100/);
  const missed = formatJob({ result: { job: { completions: 1000, parallelism: 100, seconds: 60, reached: false, succeeded: 400, maxActive: 100 }, deployment, ratio: 0.07 }, stderrLines: 2, firstError: 'boom' });
  assert.match(missed, /MISSED/);
  assert.match(missed, /400\/1000 at the deadline/);
  assert.match(missed, /2 stderr lines; first failure: boom/);
});
