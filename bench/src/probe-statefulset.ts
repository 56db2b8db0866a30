/**
 * Child-process entry of the StatefulSet case, on an in-process control plane (`listen: false`,
 * controllers, 3 simulated nodes whose containers start at once). Arguments:
 * `<statefulset|deployment> <replicas> <memory|sqlite> <timeoutMs>`. What the control plane
 * writes to stderr meanwhile is counted, not printed.
 */
import { startControlPlane } from '@kplane/cli';
import { reportFromChild } from './child.js';
import { benchDeploymentScale, scratchDir, type PodsProbeResult } from './pods-bench.js';
import { benchStatefulSetScale } from './statefulset-bench.js';

const [mode, countArg, storageArg, timeoutArg] = process.argv.slice(2);
const replicas = Number(countArg);
const storage = storageArg === 'sqlite' ? 'sqlite' : 'memory';
if ((mode !== 'statefulset' && mode !== 'deployment') || !(replicas > 0)) throw new Error('usage: probe-statefulset.js <statefulset|deployment> <replicas> [memory|sqlite] [timeoutMs]');

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
    return { result, stderrLines, ...(firstError ? { firstError } : {}) };
  } finally {
    await dir.remove();
  }
});
