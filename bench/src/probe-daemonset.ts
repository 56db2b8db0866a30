/**
 * Child-process entry of the DaemonSet case: `<nodes> <timeoutMs>`. On one in-process control
 * plane (memory storage, controllers, `nodes` simulated nodes whose pods start at once), first a
 * Deployment of `nodes` replicas is scaled from 0, then a DaemonSet is created; both are timed
 * to all their pods Ready. What the control plane writes to stderr is counted, not printed.
 */
import { startControlPlane } from 'kplane';
import { Nodes } from '@kplane/runtime';
import { captureStderr, reportFromChild } from './child.js';
import { benchDaemonSetRollout, type DaemonSetCaseResult } from './daemonset-bench.js';
import { benchDeploymentScale, type PodsProbeResult } from './pods-bench.js';

const [nodesArg, timeoutArg] = process.argv.slice(2);
const nodes = Number(nodesArg);
const timeoutMs = Number(timeoutArg ?? 300_000);
if (!(nodes > 0)) throw new Error('usage: probe-daemonset.js <nodes> [timeoutMs]');

const stderr = captureStderr();

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
  return { result, ...stderr.fields() };
});
