/**
 * Micro-benchmark of the workqueue hot path (not a test). Prints add/get/done operations per
 * second for a few access patterns. Run after building: `node dist/bench-workqueue.js`.
 */
import { createFakeClock } from './clock.js';
import { createMetrics } from './metrics.js';
import { createWorkqueue, type Workqueue } from './workqueue/workqueue.js';

const KEYS = 10_000;
const keys = Array.from({ length: KEYS }, (_, i) => `namespace-${i % 50}/object-${i}`);

function report(label: string, ops: number, ms: number): void {
  const perSec = (ops / ms) * 1000;
  console.log(`${label.padEnd(52)} ${(perSec / 1e6).toFixed(2).padStart(7)} M ops/s  (${ops} ops in ${ms.toFixed(0)} ms)`);
}

/** Batches of `batch` distinct keys: add all, then tryGet + done each. 3 ops per key. */
function syncBatches(q: Workqueue, rounds: number, batch = KEYS): number {
  for (let r = 0; r < rounds; r++) {
    const base = (r * batch) % KEYS;
    for (let i = 0; i < batch; i++) q.add(keys[(base + i) % KEYS]);
    for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) q.done(k);
  }
  return rounds * batch * 3;
}

/** Adds with heavy duplication (each key added 4 times per round): collapse path. */
function duplicateAdds(q: Workqueue, rounds: number): number {
  for (let r = 0; r < rounds; r++) {
    for (let d = 0; d < 4; d++) for (let i = 0; i < KEYS; i++) q.add(keys[i]);
    for (let k = q.tryGet(); k !== undefined; k = q.tryGet()) q.done(k);
  }
  return rounds * KEYS * 6;
}

/** Async workers awaiting get() while a producer adds (yielding every 1000 adds). */
async function asyncWorkers(q: Workqueue, items: number, workers: number): Promise<number> {
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
    q.add(keys[i % KEYS]);
    if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  q.shutDown(); // workers still take what is queued, then see shutdown
  await Promise.all(running);
  return items + processed * 2;
}

async function time(label: string, fn: () => number | Promise<number>): Promise<void> {
  const started = performance.now();
  const ops = await fn();
  report(label, ops, performance.now() - started);
}

async function main(): Promise<void> {
  const clock = createFakeClock();
  // Warm up the JIT.
  syncBatches(createWorkqueue({ clock }), 20);
  await asyncWorkers(createWorkqueue({ clock }), 50_000, 4);

  await time('add/tryGet/done, batches of 100 keys', () => syncBatches(createWorkqueue({ clock }), 20_000, 100));
  await time('add/tryGet/done, batches of 10k keys', () => syncBatches(createWorkqueue({ clock }), 200));
  await time('add x4 (duplicates collapse)/tryGet/done', () => duplicateAdds(createWorkqueue({ clock }), 100));
  await time('add/await get()/done, 8 async workers', () => asyncWorkers(createWorkqueue({ clock }), 1_000_000, 8));
  await time('with metrics (named queue), batches of 100 keys', () =>
    syncBatches(createWorkqueue({ clock, name: 'bench', metrics: createMetrics() }), 2_000, 100),
  );
  await time('with metrics (named queue), batches of 10k keys', () =>
    syncBatches(createWorkqueue({ clock, name: 'bench', metrics: createMetrics() }), 20),
  );
}

await main();
