/**
 * Benchmark: background deletion of an owner with `n` dependents, against an in-process kplane
 * on memory storage. The API server is loaded only when the benchmark runs (it is a
 * development dependency of this package).
 */
import type { KubeObject } from '@kplane/api';
import { createClient, type Client } from '@kplane/client';
import { createGarbageCollector } from './garbage-collector.js';

/** The figures of one run. */
export interface GarbageCollectorBenchResult {
  dependents: number;
  /** Time to create the owner and its dependents (not the measured part). */
  setupMs: number;
  /** Time from starting the collector until every resource was listed. */
  syncMs: number;
  /** Time from the owner's DELETE until the last dependent was gone. */
  deleteMs: number;
}

const configMaps = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' } as const;
const namespaces = { group: '', version: 'v1', resource: 'namespaces', namespaced: false, kind: 'Namespace' } as const;

async function inBatches(count: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/**
 * Creates an owner ConfigMap with `n` dependent ConfigMaps, starts the garbage collector,
 * deletes the owner (propagationPolicy Background) and measures until every dependent is gone.
 */
export async function benchGarbageCollector(n = 10_000): Promise<GarbageCollectorBenchResult> {
  const { createApiServer } = await import('@kplane/apiserver');
  const { createMemoryBackend } = await import('@kplane/storage');
  const backend = createMemoryBackend();
  const server = createApiServer({ backend });
  await server.start();
  const client: Client = createClient({ transport: (req) => server.handle(req) });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    const ns = 'bench-gc';
    const cms = client.resource<KubeObject>(configMaps);
    const t0 = performance.now();
    await client.resource(namespaces).create({ metadata: { name: ns } });
    const owner = await cms.create({ metadata: { name: 'owner', namespace: ns } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! };
    await inBatches(n, 64, (i) => cms.create({ metadata: { name: `dep-${i}`, namespace: ns, labels: { bench: 'gc' }, ownerReferences: [ref] } }));
    const setupMs = performance.now() - t0;

    const gc = createGarbageCollector({ client, onError: () => undefined });
    const t1 = performance.now();
    running = gc.start(stop.signal);
    while (!gc.synced()) await new Promise((r) => setTimeout(r, 10));
    const syncMs = performance.now() - t1;

    const t2 = performance.now();
    await cms.delete('owner', { namespace: ns });
    for (;;) {
      const left = await cms.list({ namespace: ns, labelSelector: 'bench=gc', limit: 1 });
      if (left.items.length === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const deleteMs = performance.now() - t2;
    return { dependents: n, setupMs, syncMs, deleteMs };
  } finally {
    stop.abort();
    await running;
    await server.close();
    await backend.close();
  }
}
