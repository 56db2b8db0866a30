/**
 * Child-process entry of the pods cases, on an in-process control plane (`listen: false`).
 * Arguments: `ready <pods> <memory|sqlite>` (benchPodsReady, its own scheduler and kubelet) or
 * `deployment <replicas> <memory|sqlite|storage URL> <timeoutMs> [nodes] [worker]` (controllers and simulated
 * nodes, default 3, in a worker thread with `worker`; progress messages go to the parent as readyReplicas changes). What the control
 * plane writes to stderr meanwhile is counted, not printed.
 */
import { startControlPlane } from 'kplane';
import { benchPodsReady } from '@kplane/kubelet';
import { captureStderr, reportFromChild } from './child.js';
import { benchDeploymentScale, scratchDir, type PodsProbeResult } from './pods-bench.js';

const [mode, countArg, storageArg, timeoutArg, nodesArg, workerArg] = process.argv.slice(2);
const count = Number(countArg);
// A storage URL (etcd://host:port) runs the control plane on that store.
const storage = storageArg?.includes('://') ? (storageArg as `${string}://${string}`) : storageArg === 'sqlite' ? 'sqlite' : 'memory';
if ((mode !== 'ready' && mode !== 'deployment') || !(count > 0)) throw new Error('usage: probe-pods.js <ready|deployment> <count> [memory|sqlite] [timeoutMs] [nodes]');

const stderr = captureStderr();

// The control plane is not stopped: tearing down thousands of pods is not measured, and the
// process exits as soon as the result is sent.
await reportFromChild(async (): Promise<PodsProbeResult<unknown>> => {
  const dir = await scratchDir(storage === 'sqlite' ? 'sqlite' : 'memory');
  try {
    const base = { storage, listen: false, ...(dir.dataDir ? { dataDir: dir.dataDir } : {}) } as const;
    if (mode === 'ready') {
      const cp = await startControlPlane(base);
      const result = await benchPodsReady({ client: cp.client, pods: count });
      return { result, ...stderr.fields() };
    }
    // Pods start at once (no simulated start delay), as in benchPodsReady: this measures the machinery.
    const cp = await startControlPlane({ ...base, controllers: true, controllersInWorker: workerArg === 'worker', nodes: Number(nodesArg ?? 3), kubeletConfig: { defaults: { startAfterMs: 0 } } });
    const result = await benchDeploymentScale({
      client: cp.client,
      replicas: count,
      timeoutMs: Number(timeoutArg ?? 300_000),
      onProgress: (progress) => process.send?.({ progress }),
    });
    return { result, ...stderr.fields() };
  } finally {
    await dir.remove();
  }
});
