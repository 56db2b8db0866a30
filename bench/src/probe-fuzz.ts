/**
 * Child-process entry: the long fuzz run of `npm run bench` in a fresh process (in-process API
 * server on memory storage). Arguments: <requests> [seed]. The server's own error log is
 * counted, not printed.
 */
import { checkCanaries, discoverResources, fuzzSeed, plantCanaries, runFuzz, startTestServer } from '@kplane/apiserver/testing';
import { reportFromChild } from './child.js';

/** What the long fuzz run reports. */
export interface FuzzRunResult {
  seed: number;
  requests: number;
  ms: number;
  statuses: Record<number, number>;
  failures: number;
  firstFailures: string[];
  canaryProblems: string[];
  serverErrorLines: number;
}

const count = Number(process.argv[2] ?? 200_000);
const seed = process.argv[3] ? Number(process.argv[3]) >>> 0 : fuzzSeed();

await reportFromChild<FuzzRunResult>(async () => {
  let serverErrorLines = 0;
  console.error = () => void serverErrorLines++;
  const t = await startTestServer();
  try {
    await t.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fuzz' } });
    const snapshot = await plantCanaries(t.server.handle);
    const resources = await discoverResources(t.server.handle);
    const report = await runFuzz({ handle: t.server.handle, resources, seed, count, namespace: 'fuzz' });
    const canaryProblems = await checkCanaries(t.server.handle, snapshot);
    return { seed, requests: report.requests, ms: report.ms, statuses: report.statuses, failures: report.failures.length, firstFailures: report.failures.slice(0, 5).map((f) => f.slice(0, 400)), canaryProblems, serverErrorLines };
  } finally {
    await t.close();
  }
});
