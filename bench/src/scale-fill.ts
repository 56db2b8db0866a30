/**
 * The scale case's fill: copies of a pod and a node that kplane itself stored, written straight
 * into its SQLite database through the storage backend (kplane is stopped meanwhile), each copy
 * with its own name, namespace, node and uid. Creating 150,000 pods through the API over HTTPS
 * takes an hour on a busy 2-core machine; this takes a minute, and gives the server the same
 * stored bytes it would have written itself.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createSqliteBackend } from '@kplane/storage';

/** Writes in flight at once: the sqlite driver commits the writes of one event-loop turn together. */
const BATCH = 5000;

/** What fillThroughStorage wrote. */
export interface FillResult {
  pods: number;
  nodes: number;
  ms: number;
}

/** Parts of a stored value to replace in each copy: a JSON string value and its replacement. */
type Swap = [from: string, to: (i: number) => string];

/** `template` with every swap applied for copy `i` (whole JSON strings only, quotes included). */
function copyOf(template: string, swaps: readonly Swap[], i: number): string {
  let out = template;
  for (const [from, to] of swaps) out = out.replaceAll(`"${from}"`, `"${to(i)}"`);
  return out;
}

/**
 * Adds pods `fromPod`..`pods-1` (pod-i in namespace scale-(i % namespaces), bound to
 * node-(i % nodes)) and nodes `fromNode`..`nodes-1` to the database `dataDir/state.db`, as
 * copies of the stored pod-0 and node-0. The server must not be running.
 */
export async function fillThroughStorage(dataDir: string, o: { pods: number; nodes: number; namespaces: number; fromPod: number; fromNode: number }): Promise<FillResult> {
  const backend = createSqliteBackend({ path: join(dataDir, 'state.db') });
  const t0 = performance.now();
  try {
    const pod = await backend.get('/registry/pods/scale-0/pod-0');
    const node = await backend.get('/registry/minions/node-0');
    if (!pod || !node) throw new Error('the scale fill needs pod scale-0/pod-0 and node node-0 stored first');
    const uidOf = (json: string): string => (JSON.parse(json) as { metadata: { uid: string } }).metadata.uid;
    const podSwaps: Swap[] = [
      ['pod-0', (i) => `pod-${i}`],
      ['scale-0', (i) => `scale-${i % o.namespaces}`],
      ['node-0', (i) => `node-${i % o.nodes}`],
      [uidOf(pod.value), () => randomUUID()],
    ];
    const nodeSwaps: Swap[] = [['node-0', (i) => `node-${i}`], [uidOf(node.value), () => randomUUID()]];
    const write = async (from: number, to: number, key: (i: number) => string, value: (i: number) => string): Promise<void> => {
      for (let i = from; i < to; i += BATCH) {
        const batch: Promise<unknown>[] = [];
        for (let j = i; j < Math.min(to, i + BATCH); j++) batch.push(backend.create(key(j), value(j)));
        await Promise.all(batch);
      }
    };
    await write(o.fromNode, o.nodes, (i) => `/registry/minions/node-${i}`, (i) => copyOf(node.value, nodeSwaps, i));
    await write(o.fromPod, o.pods, (i) => `/registry/pods/scale-${i % o.namespaces}/pod-${i}`, (i) => copyOf(pod.value, podSwaps, i));
  } finally {
    await backend.close();
  }
  return { pods: o.pods - o.fromPod, nodes: o.nodes - o.fromNode, ms: performance.now() - t0 };
}
