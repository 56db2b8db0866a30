import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENDPOINTS_TARGET_RATIO, endpointsInChild, formatEndpoints } from './endpoints-bench.js';

const deployment = { replicas: 5000, readyReplicas: 5000, reached: true, seconds: 50, milestones: [] };

test('formatEndpoints: the baseline, the slices and the ratio against the target', () => {
  const met = formatEndpoints({ result: { deployment, endpoints: { replicas: 5000, seconds: 51, reached: true, readyEndpoints: 5000, sliceWrites: 900, slices: 50 }, ratio: 0.98 }, stderrLines: 0 });
  assert.match(met, /Deployment 0 -> 5000 \(baseline\)/);
  assert.match(met, /Service of 5000 pods/);
  assert.match(met, new RegExp(`>=${ENDPOINTS_TARGET_RATIO}x met \\(0.98x\\)`));
  assert.match(met, /ready endpoints in 50 EndpointSlices; 900 slice writes/);
  const missed = formatEndpoints({ result: { deployment, endpoints: { replicas: 5000, seconds: 300, reached: false, readyEndpoints: 4000, sliceWrites: 10, slices: 40 }, ratio: 0.1 }, stderrLines: 1, firstError: 'boom' });
  assert.match(missed, /MISSED/);
  assert.match(missed, /4000\/5000 at the deadline/);
  assert.match(missed, /1 stderr lines; first failure: boom/);
});

test('the Endpoints case runs in a child: every replica a ready endpoint, ratio against the Deployment', async () => {
  const r = await endpointsInChild(20, 60_000);
  const { deployment, endpoints, ratio } = r.result;
  assert.equal(deployment.reached, true);
  assert.deepEqual([endpoints.reached, endpoints.readyEndpoints, endpoints.slices], [true, 20, 1]);
  assert.ok(endpoints.sliceWrites >= 1);
  assert.ok(Math.abs(ratio - endpoints.readyEndpoints / endpoints.seconds / (deployment.readyReplicas / deployment.seconds)) < 1e-9);
  assert.match(formatEndpoints(r), /Service of 20 pods/);
});
