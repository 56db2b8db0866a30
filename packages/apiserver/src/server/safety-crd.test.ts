/**
 * A pathological regular expression in a CRD (`pattern: ^(a+)+$`, and the same in a CEL
 * `matches()` rule) checked against `aaa…a!` must answer promptly (Kubernetes uses RE2, which
 * runs in linear time), with the 422 Kubernetes gives, while /readyz keeps answering.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import type { RegexProbeResult } from '../testing/regex-probe.js';

/** Runs the probe in a worker; a backtracking engine never returns, so the worker is stopped at the deadline. */
function runProbe(length: number, deadlineMs: number): Promise<RegexProbeResult> {
  const worker = new Worker(new URL('../testing/regex-probe.js', import.meta.url), { workerData: { regexProbe: true, length } });
  return new Promise<RegexProbeResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`a ${length}-character value against ^(a+)+$ did not answer within ${deadlineMs} ms (exponential backtracking)`));
    }, deadlineMs);
    worker.once('message', (m: { result?: RegexProbeResult; error?: string }) => {
      clearTimeout(timer);
      void worker.terminate();
      if (m.result) resolve(m.result);
      else reject(new Error(m.error));
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

it('pattern ^(a+)+$ and CEL matches() against a 40-character aaa…! answer 422 promptly, /readyz answering meanwhile', async () => {
  // The deadline bounds the work, with room for a loaded machine: RE2 needs microseconds, a
  // backtracking engine 2^40 steps.
  const r = await runProbe(40, 30_000);
  assert.equal(r.pattern.status, 422, JSON.stringify(r.pattern.body));
  assert.equal(r.pattern.body.reason, 'Invalid');
  assert.equal(r.pattern.body.details?.causes?.[0]?.field, 'spec.p');
  assert.match(r.pattern.body.message, /spec\.p in body should match '\^\(a\+\)\+\$'/);
  assert.equal(r.cel.status, 422, JSON.stringify(r.cel.body));
  assert.equal(r.cel.body.reason, 'Invalid');
  assert.equal(r.cel.body.details?.causes?.[0]?.field, 'spec.q');
  assert.match(r.cel.body.message, /failed rule: self\.matches\('\^\(a\+\)\+\$'\)/);
  assert.deepEqual(r.readyz, [200, 200]);
});
