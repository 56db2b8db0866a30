/**
 * Workqueue throughput: add, get and done operations per second of `createWorkqueue()` from
 * @kplane/runtime, for the patterns a controller produces (after the runtime's own
 * micro-benchmark). Every add, get (or tryGet) and done counts as one operation.
 */
import { createMetrics, createWorkqueue, type Workqueue } from '@kplane/runtime';
import { formatTable } from './report.js';

/** `count` keys shaped like a controller's (`namespace/name`, 50 namespaces). */
export function makeKeys(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `namespace-${i % 50}/object-${i}`);
}

/**
 * `rounds` batches of `batch` distinct keys: add them all, then tryGet + done until empty.
 * Returns the operations done (3 per key) and throws if a key was lost.
 */
export function syncBatches(q: Workqueue, keys: readonly string[], rounds: number, batch: number): number {
  let ops = 0;
  for (let r = 0; r < rounds; r++) {
    const base = (r * batch) % keys.length;
    for (let i = 0; i < batch; i++) q.add(keys[(base + i) % keys.length]!);
    let got = 0;
    for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) {
      q.done(k);
      got++;
    }
    if (got !== Math.min(batch, keys.length)) throw new Error(`batch of ${batch} keys gave back ${got}`);
    ops += batch + got * 2;
  }
  return ops;
}

/**
 * `workers` async loops awaiting `get()` and calling `done` while a producer adds `items`
 * keys (cycling through `keys`, so a key re-added while queued collapses), yielding to the
 * event loop every 1000 adds. Returns the operations done: every add plus a get and a done
 * per key handed out.
 */
export async function asyncWorkers(q: Workqueue, keys: readonly string[], items: number, workers: number): Promise<number> {
  let processed = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const r = await q.get();
      if (r.shutdown) return;
      processed++;
      q.done(r.key);
    }
  };
  const running = Array.from({ length: workers }, worker);
  for (let i = 0; i < items; i++) {
    q.add(keys[i % keys.length]!);
    if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  q.shutDown(); // the workers still drain what is queued, then see shutdown
  await Promise.all(running);
  return items + processed * 2;
}

/**
 * Each key added four times before the queue is drained (duplicates collapse while queued),
 * `rounds` times. Returns the operations done: every add plus a tryGet and a done per key
 * handed out; throws if a key was lost or handed out twice.
 */
export function duplicateAdds(q: Workqueue, keys: readonly string[], rounds: number): number {
  let ops = 0;
  for (let r = 0; r < rounds; r++) {
    for (let d = 0; d < 4; d++) for (const k of keys) q.add(k);
    let got = 0;
    for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) {
      q.done(k);
      got++;
    }
    if (got !== keys.length) throw new Error(`${keys.length} keys added 4 times gave back ${got}`);
    ops += keys.length * 4 + got * 2;
  }
  return ops;
}

/** One workqueue pattern's result. */
export interface WorkqueueRow {
  name: string;
  ops: number;
  ms: number;
  /** For information: the target is not read on this line. */
  info?: boolean;
}

/**
 * Runs the patterns on fresh default queues (`createWorkqueue()`, no metrics) after a JIT
 * warm-up, then, for information, duplicate adds and a named queue with Prometheus metrics.
 * `scale` multiplies the amount of work (1 = about a second or two on one core).
 */
export async function benchWorkqueue(scale = 1, now: () => number = () => performance.now()): Promise<WorkqueueRow[]> {
  const keys = makeKeys(10_000);
  const n = (x: number): number => Math.max(1, Math.round(x * scale));
  syncBatches(createWorkqueue(), keys, n(20), 10_000);
  await asyncWorkers(createWorkqueue(), keys, n(50_000), 4);
  const rows: WorkqueueRow[] = [];
  const time = async (name: string, fn: () => number | Promise<number>, info = false): Promise<void> => {
    const t0 = now();
    const ops = await fn();
    rows.push({ name, ops, ms: now() - t0, ...(info ? { info } : {}) });
  };
  await time('add, tryGet, done: batches of 100 keys', () => syncBatches(createWorkqueue(), keys, n(10_000), 100));
  await time('add, tryGet, done: batches of 10,000 keys', () => syncBatches(createWorkqueue(), keys, n(100), 10_000));
  await time('add, await get(), done: 8 async workers', () => asyncWorkers(createWorkqueue(), keys, n(1_000_000), 8));
  await time('add x4 (duplicates collapse), tryGet, done', () => duplicateAdds(createWorkqueue(), keys, n(50)), true);
  const named = () => createWorkqueue({ name: 'bench', metrics: createMetrics() });
  await time('with metrics (named queue): batches of 100 keys', () => syncBatches(named(), keys, n(1_000), 100), true);
  return rows;
}

/** The workqueue table: pattern, M ops/s, operations, ms, and the target reading per line. */
export function formatWorkqueue(rows: readonly WorkqueueRow[], targetOpsPerSec: number): string {
  const body = rows.map((r) => {
    const perSec = r.ms > 0 ? (r.ops * 1000) / r.ms : 0;
    const reading = r.info ? 'info' : `>=${(targetOpsPerSec / 1e6).toFixed(1)}M ${perSec >= targetOpsPerSec ? 'met' : 'MISSED'}`;
    return [r.name, (perSec / 1e6).toFixed(2), String(r.ops), r.ms.toFixed(0), reading];
  });
  return formatTable([['pattern', 'M ops/s', 'ops', 'ms', 'target'], ...body], [1, 2, 3]);
}
