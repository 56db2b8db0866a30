/**
 * Child-process entry of the StatefulSet case, on an in-process control plane (`listen: false`,
 * controllers, 3 simulated nodes whose containers start at once). Arguments:
 * `<statefulset|deployment> <replicas> <memory|sqlite> <timeoutMs>`. What the control plane
 * writes to stderr meanwhile is counted, not printed.
 */
import { startControlPlane } from 'kplane';
import { captureStderr, reportFromChild } from './child.js';
import { benchDeploymentScale, scratchDir, type PodsProbeResult } from './pods-bench.js';
import { benchStatefulSetScale } from './statefulset-bench.js';

const [mode, countArg, storageArg, timeoutArg] = process.argv.slice(2);
const replicas = Number(countArg);
const storage = storageArg === 'sqlite' ? 'sqlite' : 'memory';
if ((mode !== 'statefulset' && mode !== 'deployment') || !(replicas > 0)) throw new Error('usage: probe-statefulset.js <statefulset|deployment> <replicas> [memory|sqlite] [timeoutMs]');

const stderr = captureStderr();

await reportFromChild(async (): Promise<PodsProbeResult<unknown>> => {
  const dir = await scratchDir(storage);
  try {
    const cp = await startControlPlane({
      storage,
      listen: false,
      ...(dir.dataDir ? { dataDir: dir.dataDir } : {}),
      controllers: true,
      nodes: 3,
      kubeletConfig: { defaults: { startAfterMs: 0 } },
    });
    const timeoutMs = Number(timeoutArg ?? 300_000);
    const result =
      mode === 'statefulset' ? await benchStatefulSetScale({ client: cp.client, replicas, timeoutMs }) : await benchDeploymentScale({ client: cp.client, replicas, timeoutMs });
    return { result, ...stderr.fields() };
  } finally {
    await dir.remove();
  }
});
