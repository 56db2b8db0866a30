/**
 * Registration of a controller in one chain, as controller-runtime's builder:
 * `for(Kind).owns(Child).watches(Other, map).complete(reconcile)`.
 */
import type { KubeObject } from '@kplane/api';
import { parseApiVersion } from '@kplane/api';
import type { ResourceDescriptor } from '@kplane/client';
import type { Clock } from '../clock.js';
import type { Informer, InformerFactory } from '../informer/index.js';
import type { KindDescriptor } from '../kinds/descriptors.js';
import type { RuntimeMetrics } from '../metrics.js';
import { keyOf, type Request } from './action.js';
import { createController, type Controller, type Reconciler, type Source } from './controller.js';
import type { Predicate, WatchChange } from './predicates.js';
import { objectKey } from '../informer/store.js';
import { catchRejection, isThenable, reportPanic, type PanicHandler } from '../recover.js';

/** Options of a watch in the builder. */
export interface WatchOptions<T extends KubeObject = KubeObject> {
  /** Every predicate must pass for a change to enqueue anything. */
  predicates?: Predicate<T>[];
  /**
   * Batches bursts of changes (ms, default none). A change whose key was last reconciled less
   * than this long ago wakes it at the end of that window instead of at once, so a stream of
   * changes costs at most one reconcile per window and key, while a lone change still wakes
   * the controller at once. No change is lost: each one wakes the key once, at the latest
   * `batchWindowMs` later.
   */
  batchWindowMs?: number;
}

/** Maps a changed object to the requests it should wake (for `watches`). */
export type MapFunc<T extends KubeObject = KubeObject> = (obj: T) => Pick<Request, 'namespace' | 'name'>[];

/** What the builder needs from its surroundings (a manager provides it). */
export interface BuilderContext {
  factory: InformerFactory;
  clock?: Clock;
  metrics?: RuntimeMetrics;
  /** Told about exceptions caught in the controller's predicates, map functions and sources (default: logged). */
  onPanic?: PanicHandler;
  /** Registers the built controller (the manager runs it). */
  register?(controller: Controller): void;
  /** Defaults of the controllers' options (the manager's). */
  defaults?: { maxConcurrentReconciles?: number; cacheSyncTimeoutMs?: number };
}

/** Misuse of the builder, collected and reported by complete(). */
export class BuilderError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid controller: ${problems.join('; ')}`);
    this.name = 'BuilderError';
  }
}

interface Watch {
  resource: ResourceDescriptor;
  predicates: Predicate[];
  batchWindowMs?: number;
  toKeys(obj: KubeObject): string[];
}

const id = (r: ResourceDescriptor) => `${r.group}/${r.version}/${r.resource}`;

/** Reports an exception caught in a controller's own callbacks and counts it in reconcile_panics_total. */
type PanicSink = (callback: 'predicate' | 'map', err: unknown, key: string) => void;

/**
 * The event handler of one watch. A predicate or map function that throws is reported and
 * counted; the change it was judging wakes nothing (for a map function: only the object it
 * threw on contributes no key), and the next change is handled as usual.
 */
function source(informer: Informer, w: Watch, panicked: PanicSink): Source {
  return (enqueue) => {
    const fire = (change: WatchChange, objs: KubeObject[]) => {
      let pass: boolean;
      try {
        pass = w.predicates.every((p) => {
          const verdict: unknown = p(change);
          if (isThenable(verdict)) {
            catchRejection(verdict, () => undefined); // reported once, as the TypeError below
            throw new TypeError('predicate returned a Promise (predicates must be synchronous)');
          }
          return verdict;
        });
      } catch (err) {
        panicked('predicate', err, objectKey(change.object));
        return;
      }
      if (!pass) return;
      const keys = new Set<string>();
      for (const o of objs) {
        try {
          for (const k of w.toKeys(o)) keys.add(k);
        } catch (err) {
          panicked('map', err, objectKey(o));
        }
      }
      for (const k of keys) enqueue(k, w.batchWindowMs);
    };
    return informer.addEventHandler({
      onAdd: (object) => fire({ type: 'create', object }, [object]),
      onUpdate: (old, object) => fire({ type: 'update', old, object }, [old, object]),
      onDelete: (object) => fire({ type: 'delete', object }, [object]),
    });
  };
}

/** Builds one controller. */
export class ControllerBuilder {
  private primary?: { resource: ResourceDescriptor; kind?: string; predicates: Predicate[] };
  private readonly sources: Watch[] = [];
  private readonly problems: string[] = [];
  private name?: string;
  private maxConcurrentReconciles: number;
  private cacheSyncTimeoutMs?: number;

  constructor(private readonly context: BuilderContext) {
    this.maxConcurrentReconciles = context.defaults?.maxConcurrentReconciles ?? 1;
    this.cacheSyncTimeoutMs = context.defaults?.cacheSyncTimeoutMs;
  }

  /** Names the controller (default: the For kind in lower case). Names label metrics and queues. */
  named(name: string): this {
    if (!/^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/i.test(name)) this.problems.push(`controller name "${name}" must be alphanumeric with - _ .`);
    this.name = name;
    return this;
  }

  /**
   * The kind this controller reconciles: its changes enqueue its own key. Call exactly once.
   * A KindDescriptor (built-in or from `defineKind`) types the predicates' objects.
   */
  for<T extends KubeObject>(resource: KindDescriptor<T> | (ResourceDescriptor & { kind?: string }), options: WatchOptions<T> = {}): this {
    if (this.primary) this.problems.push('for() may only be called once');
    this.primary = { resource, kind: resource.kind, predicates: (options.predicates ?? []) as Predicate[] };
    this.sources.push({
      resource,
      predicates: (options.predicates ?? []) as Predicate[],
      batchWindowMs: options.batchWindowMs,
      toKeys: (o) => [keyOf(o.metadata?.namespace, o.metadata!.name!)],
    });
    return this;
  }

  /**
   * A kind this controller creates: a change to an object enqueues the key of its controller
   * owner when that owner is of the For kind.
   */
  owns<T extends KubeObject>(resource: KindDescriptor<T> | ResourceDescriptor, options: WatchOptions<T> = {}): this {
    this.sources.push({
      resource,
      predicates: (options.predicates ?? []) as Predicate[],
      batchWindowMs: options.batchWindowMs,
      toKeys: (o) => {
        const p = this.primary;
        if (!p) return [];
        const owner = o.metadata?.ownerReferences?.find((r) => r.controller === true);
        if (!owner) return [];
        if (parseApiVersion(owner.apiVersion).group !== p.resource.group) return [];
        if (p.kind && owner.kind !== p.kind) return [];
        return [keyOf(p.resource.namespaced ? o.metadata?.namespace : undefined, owner.name)];
      },
    });
    return this;
  }

  /** Any other kind: `map` tells which requests a change should wake (typed by a KindDescriptor). */
  watches<T extends KubeObject>(resource: KindDescriptor<T> | ResourceDescriptor, map: MapFunc<T>, options: WatchOptions<T> = {}): this {
    this.sources.push({
      resource,
      predicates: (options.predicates ?? []) as Predicate[],
      batchWindowMs: options.batchWindowMs,
      toKeys: (o) => {
        const requests: unknown = map(o as T);
        if (isThenable(requests)) {
          catchRejection(requests, () => undefined); // reported once, as the TypeError below
          throw new TypeError('map function returned a Promise, not an array of requests (map functions must be synchronous)');
        }
        if (!Array.isArray(requests)) throw new TypeError(`map function returned ${requests === null ? 'null' : typeof requests}, not an array of requests`);
        return (requests as Pick<Request, 'namespace' | 'name'>[]).map((r) => keyOf(r.namespace, r.name));
      },
    });
    return this;
  }

  /**
   * Options of the controller: `maxConcurrentReconciles` (workers; one key is still never
   * reconciled twice at once) and `cacheSyncTimeoutMs` (see ControllerOptions); both default
   * to the manager's.
   */
  withOptions(options: { maxConcurrentReconciles?: number; cacheSyncTimeoutMs?: number }): this {
    if (options.maxConcurrentReconciles !== undefined) {
      if (!Number.isInteger(options.maxConcurrentReconciles) || options.maxConcurrentReconciles < 1) {
        this.problems.push('maxConcurrentReconciles must be a whole number of at least 1');
      } else this.maxConcurrentReconciles = options.maxConcurrentReconciles;
    }
    if (options.cacheSyncTimeoutMs !== undefined) {
      if (!(options.cacheSyncTimeoutMs > 0)) this.problems.push('cacheSyncTimeoutMs must be more than 0');
      else this.cacheSyncTimeoutMs = options.cacheSyncTimeoutMs;
    }
    return this;
  }

  /** Checks the registration, creates the controller and registers it with the manager. Throws BuilderError on misuse. */
  complete(reconcile: Reconciler): Controller {
    const problems = [...this.problems];
    if (!this.primary) problems.push('for() must be called once with the kind to reconcile');
    if (typeof reconcile !== 'function') problems.push('complete() needs a reconcile function');
    if (this.primary && this.sources.some((w, i) => i > 0 && id(w.resource) === id(this.primary!.resource))) {
      problems.push(`${this.primary.resource.resource} is both the For kind and an owned or watched kind`);
    }
    if (this.sources.some((w) => this.sources.filter((x) => id(x.resource) === id(w.resource)).length > 1) && !problems.some((p) => p.includes('both'))) {
      problems.push('a kind is watched twice');
    }
    if (this.primary && !this.primary.kind && this.sources.length > 1) {
      problems.push('for() needs a descriptor with its kind to match owner references of owned objects');
    }
    if (problems.length) throw new BuilderError(problems);
    const { factory } = this.context;
    const name = this.name ?? (this.primary!.kind ?? this.primary!.resource.resource).toLowerCase();
    const { metrics, onPanic } = this.context;
    const panicked: PanicSink = (callback, err, key) => {
      try {
        metrics?.recordPanic(name);
      } catch {
        // A failing metric must not hide the panic.
      }
      reportPanic(onPanic, callback, err, { controller: name, key });
    };
    const informers: Informer[] = [];
    const sources: Source[] = [];
    for (const w of this.sources) {
      const informer = factory.informerFor(w.resource);
      if (!informers.includes(informer)) informers.push(informer);
      sources.push(source(informer, w, panicked));
    }
    const controller = createController({
      name,
      reconcile,
      informers,
      sources,
      maxConcurrentReconciles: this.maxConcurrentReconciles,
      cacheSyncTimeoutMs: this.cacheSyncTimeoutMs,
      clock: this.context.clock,
      metrics,
      onPanic,
    });
    this.context.register?.(controller);
    return controller;
  }
}
