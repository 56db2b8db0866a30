/**
 * The shared informer factory: one informer (one list + watch) per resource per process,
 * however many controllers ask for it (client-go's SharedInformerFactory).
 */
import type { KubeObject } from '@kplane/api';
import type { Client, ResourceDescriptor } from '@kplane/client';
import type { Clock } from '../clock.js';
import type { RuntimeMetrics } from '../metrics.js';
import { reportPanic, type PanicHandler } from '../recover.js';
import type { BackoffOptions } from './backoff.js';
import type { KindDescriptor } from '../kinds/descriptors.js';
import { createInformer, type Informer } from './informer.js';

/** Options of createInformerFactory. */
export interface InformerFactoryOptions {
  client: Client;
  /** Time source for backoff and resync (default the real clock). */
  clock?: Clock;
  /** Restricts every informer to one namespace (default: all namespaces). */
  namespace?: string;
  /** Periodic resync of every informer, in ms (default 0: none). */
  resyncMs?: number;
  /** Watcher backoff settings (each informer gets its own backoff). */
  backoff?: BackoffOptions;
  /** Told about list/watch failures (they are retried). */
  onError?: (resource: string, err: unknown) => void;
  /** Told about exceptions caught in event handlers and index functions (default: logged). */
  onPanic?: PanicHandler;
  /** Counts those exceptions (`kplane_informer_callback_panics_total{resource}`). */
  metrics?: Pick<RuntimeMetrics, 'recordInformerPanic'>;
}

/** Hands out shared informers and runs them. */
export interface InformerFactory {
  /**
   * The informer of `resource`: the same object for the same group/version/resource. Typed by
   * a KindDescriptor (built-in or from `defineKind`): `informerFor(Deployments)` is an
   * `Informer<Deployment>`.
   */
  informerFor<T extends KubeObject>(resource: KindDescriptor<T>): Informer<T>;
  /** The informer of an untyped resource; give its object type as `T`. */
  informerFor<T extends KubeObject = KubeObject>(resource: ResourceDescriptor): Informer<T>;
  /**
   * The informer of `resource` if one was asked for already, without creating one; only an
   * informer of the whole resource (a factory restricted to a namespace returns none for a
   * namespaced resource). For a component that can use a cache others need anyway and would
   * otherwise watch on its own (the garbage collector, as kube's ObjectOrMetadataInformerFactory).
   */
  existing<T extends KubeObject = KubeObject>(resource: ResourceDescriptor): Informer<T> | undefined;
  /** Runs every informer created so far, and any created later, until `signal` aborts. */
  start(signal: AbortSignal): void;
  /** Resolves true once every informer created so far has synced; false if `signal` aborts first. */
  waitForCacheSync(signal?: AbortSignal): Promise<boolean>;
  /** Resolves once every started informer has stopped (after the start signal aborted). */
  shutdown(): Promise<void>;
  /** The resources (`group/version/resource`) whose informer has not synced yet. */
  unsynced(): string[];
}

const resourceId = (r: ResourceDescriptor): string => `${r.group}/${r.version}/${r.resource}`;

/**
 * Creates a shared informer factory.
 *
 * Guarantees: `informerFor` returns one informer per group/version/resource, so there is one
 * watch per resource however many callers share it; an informer created after `start` is
 * started at once with the same signal; `start` is idempotent per informer.
 */
export function createInformerFactory(options: InformerFactoryOptions): InformerFactory {
  const informers = new Map<string, Informer<KubeObject>>();
  const runs = new Map<string, Promise<void>>();
  let signal: AbortSignal | undefined;

  const startOne = (id: string, informer: Informer<KubeObject>): void => {
    if (!signal || runs.has(id)) return;
    // run() never rejects; the catch keeps a broken promise from ever becoming an unhandled rejection.
    runs.set(id, informer.run(signal).catch((err) => void reportPanic(options.onPanic, 'informer', err, { resource: id })));
  };

  return {
    informerFor<T extends KubeObject>(resource: ResourceDescriptor): Informer<T> {
      const id = resourceId(resource);
      let informer = informers.get(id);
      if (!informer) {
        informer = createInformer<KubeObject>({
          api: options.client.resource(resource),
          namespace: resource.namespaced ? options.namespace : undefined,
          clock: options.clock,
          resyncMs: options.resyncMs,
          backoff: options.backoff,
          onError: options.onError && ((err) => options.onError!(id, err)),
          resource: id,
          onPanic: options.onPanic,
          metrics: options.metrics,
        });
        informers.set(id, informer);
        startOne(id, informer);
      }
      return informer as unknown as Informer<T>;
    },
    existing<T extends KubeObject>(resource: ResourceDescriptor): Informer<T> | undefined {
      if (resource.namespaced && options.namespace !== undefined) return undefined;
      return informers.get(resourceId(resource)) as unknown as Informer<T> | undefined;
    },
    start(s) {
      signal ??= s;
      for (const [id, informer] of informers) startOne(id, informer);
    },
    async waitForCacheSync(s) {
      const results = await Promise.all([...informers.values()].map((i) => i.waitForSync(s)));
      return results.every(Boolean);
    },
    async shutdown() {
      await Promise.all(runs.values());
    },
    unsynced: () => [...informers].filter(([, i]) => !i.hasSynced()).map(([id]) => id),
  };
}
