/**
 * Child-process entry of the DaemonSet case: `<nodes> <timeoutMs>`. On one in-process control
 * plane (memory storage, controllers, `nodes` simulated nodes whose pods start at once), first a
 * Deployment of `nodes` replicas is scaled from 0, then a DaemonSet is created; both are timed
 * to all their pods Ready. What the control plane writes to stderr is counted, not printed.
 */
import { startControlPlane } from '@kplane/cli';
import { Nodes } from '@kplane/runtime';
import { reportFromChild } from './child.js';
import { benchDaemonSetRollout, type DaemonSetCaseResult } from './daemonset-bench.js';
import { benchDeploymentScale, type PodsProbeResult } from './pods-bench.js';

const [nodesArg, timeoutArg] = process.argv.slice(2);
const nodes = Number(nodesArg);
const timeoutMs = Number(timeoutArg ?? 300_000);
if (!(nodes > 0)) throw new Error('usage: probe-daemonset.js <nodes> [timeoutMs]');

let stderrLines = 0;
let firstError: string | undefined;
const swallow = (chunk: unknown): boolean => {
  const text = String(chunk);
  stderrLines += text.split('\n').filter((l) => l.trim() !== '').length;
  firstError ??= text.split('\n').find((l) => /fail|error/i.test(l))?.slice(0, 240);
  return true;
};
process.stderr.write = swallow as typeof process.stderr.write;
console.error = (...args: unknown[]): void => void swallow(args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : String(a))).join(' '));
console.warn = console.error;

// The control plane is not stopped: the process exits as soon as the result is sent.
await reportFromChild(async (): Promise<PodsProbeResult<DaemonSetCaseResult>> => {
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true, nodes, kubeletConfig: { defaults: { startAfterMs: 0 } } });
  // Not timed: every node registered, then a moment for the nodes' first heartbeats to pass.
  for (let i = 0; (await cp.client.resource(Nodes).list()).items.length < nodes; i++) {
    if (i > 600) throw new Error(`fewer than ${nodes} nodes after 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 3000));
  const deployment = await benchDeploymentScale({ client: cp.client, replicas: nodes, timeoutMs });
  const daemonSet = await benchDaemonSetRollout({ client: cp.client, timeoutMs });
  const result = { nodes, deployment, daemonSet, ratio: daemonSet.seconds / deployment.seconds };
  return { result, stderrLines, ...(firstError ? { firstError } : {}) };
});
