/**
 * Child-process entry of the pods cases, on an in-process control plane (`listen: false`).
 * Arguments: `ready <pods> <memory|sqlite>` (benchPodsReady, its own scheduler and kubelet) or
 * `deployment <replicas> <memory|sqlite> <timeoutMs> [nodes]` (controllers and simulated nodes,
 * default 3; progress messages go to the parent as readyReplicas changes). What the control
 * plane writes to stderr meanwhile is counted, not printed.
 */
import { startControlPlane } from '@kplane/cli';
import { benchPodsReady } from '@kplane/kubelet';
import { reportFromChild } from './child.js';
import { benchDeploymentScale, scratchDir, type PodsProbeResult } from './pods-bench.js';

const [mode, countArg, storageArg, timeoutArg, nodesArg] = process.argv.slice(2);
const count = Number(countArg);
const storage = storageArg === 'sqlite' ? 'sqlite' : 'memory';
if ((mode !== 'ready' && mode !== 'deployment') || !(count > 0)) throw new Error('usage: probe-pods.js <ready|deployment> <count> [memory|sqlite] [timeoutMs] [nodes]');

let stderrLines = 0;
let firstError: string | undefined;
const swallow = (chunk: unknown): boolean => {
  const text = String(chunk);
  stderrLines += text.split('\n').filter((l) => l.trim() !== '').length;
  const failure = text.split('\n').find((l) => /fail|error/i.test(l));
  firstError ??= failure?.slice(0, 240);
  return true;
};
process.stderr.write = swallow as typeof process.stderr.write;
console.error = (...args: unknown[]): void => void swallow(args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}` : String(a))).join(' '));
console.warn = console.error;

// The control plane is not stopped: tearing down thousands of pods is not measured, and the
// process exits as soon as the result is sent.
await reportFromChild(async (): Promise<PodsProbeResult<unknown>> => {
  const dir = await scratchDir(storage);
  try {
    const base = { storage, listen: false, ...(dir.dataDir ? { dataDir: dir.dataDir } : {}) } as const;
    if (mode === 'ready') {
      const cp = await startControlPlane(base);
      const result = await benchPodsReady({ client: cp.client, pods: count });
      return { result, stderrLines, ...(firstError ? { firstError } : {}) };
    }
    // Pods start at once (no simulated start delay), as in benchPodsReady: this measures the machinery.
    const cp = await startControlPlane({ ...base, controllers: true, nodes: Number(nodesArg ?? 3), kubeletConfig: { defaults: { startAfterMs: 0 } } });
    const result = await benchDeploymentScale({
      client: cp.client,
      replicas: count,
      timeoutMs: Number(timeoutArg ?? 300_000),
      onProgress: (progress) => process.send?.({ progress }),
    });
    return { result, stderrLines, ...(firstError ? { firstError } : {}) };
  } finally {
    await dir.remove();
  }
});
