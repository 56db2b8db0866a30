/**
 * The namespace controller: for every namespace being deleted, empties it and then removes the
 * `kubernetes` finalizer through the finalize subresource, so the API server can drop it
 * (kube-controller-manager's namespace-controller).
 */
import {
  Action,
  Namespaces,
  bucketRateLimiter,
  createController,
  createWorkqueue,
  itemExponentialFailureRateLimiter,
  maxOfRateLimiter,
  type Controller,
  type Manager,
  type Namespace,
} from '@kplane/runtime';
import type { DiscoveryResult } from './discovery.js';
import { createNamespaceDeleter } from './deleter.js';

/** The name of the workqueue (the `name` label of workqueue_* metrics), as in kube-controller-manager. */
export const NAMESPACE_QUEUE_NAME = 'namespace';

/** Options of createNamespaceController. */
export interface NamespaceControllerOptions {
  /** The manager that runs the controller (its client, informers, clock and metrics are used). */
  manager: Manager;
  /**
   * Delay between seeing a namespace change and processing it (default 5000 ms, as
   * kube-controller-manager), so that last-moment creations in the namespace are visible.
   */
  deletionGracePeriodMs?: number;
  /** Namespaces processed at once (default 10, kube-controller-manager's --concurrent-namespace-syncs). */
  workers?: number;
  /** The spec.finalizers token this controller owns (default "kubernetes"). */
  finalizerToken?: string;
  /** Discovery override, for tests. */
  discover?: (signal?: AbortSignal) => Promise<DiscoveryResult>;
  /** Where failures are reported (default: stderr). */
  log?: (message: string) => void;
}

/**
 * Creates the namespace controller and adds it to the manager (it runs while the manager leads).
 *
 * Guarantees:
 * - Only namespaces with a deletionTimestamp are processed; each one is handled by one worker
 *   at a time, `deletionGracePeriodMs` after its latest change.
 * - While content remains, the namespace is checked again after `estimate / 2 + 1` seconds
 *   (8 s when objects wait on finalizers); failures are retried with per-namespace exponential
 *   backoff from 5 ms up to 60 s, so a namespace is retried at least every minute.
 * - Level-driven: on start, every namespace already being deleted is picked up.
 */
export function createNamespaceController(options: NamespaceControllerOptions): Controller {
  const { manager } = options;
  const clock = manager.clock;
  const log = options.log ?? ((m: string) => process.stderr.write(`namespace-controller: ${m}\n`));
  const grace = options.deletionGracePeriodMs ?? 5000;
  const informer = manager.factory.informerFor<Namespace>(Namespaces);
  const deleter = createNamespaceDeleter({
    client: manager.client,
    clock,
    finalizerToken: options.finalizerToken,
    discover: options.discover,
    log,
  });
  const queue = createWorkqueue({
    name: NAMESPACE_QUEUE_NAME,
    clock,
    metrics: manager.metrics,
    rateLimiter: maxOfRateLimiter(itemExponentialFailureRateLimiter(5, 60_000), bucketRateLimiter(10, 100, clock)),
  });
  const enqueue = (ns: Namespace): void => {
    if (!ns.metadata?.deletionTimestamp) return;
    queue.addAfter(ns.metadata.name!, grace);
  };
  const controller = createController({
    name: NAMESPACE_QUEUE_NAME,
    queue,
    clock,
    metrics: manager.metrics,
    informers: [informer],
    maxConcurrentReconciles: options.workers ?? 10,
    sources: [() => informer.addEventHandler({ onAdd: enqueue, onUpdate: (_old, ns) => enqueue(ns) })],
    onError: (request, err) => log(`deletion of namespace ${request.key} failed: ${err instanceof Error ? err.message : String(err)}`),
    async reconcile(request, { signal }) {
      if (!informer.store.get(request.name)) return Action.awaitChange();
      const estimate = await deleter.delete(request.name, signal);
      if (estimate > 0) return Action.requeue((Math.floor(estimate / 2) + 1) * 1000);
      return Action.awaitChange();
    },
  });
  manager.add(controller);
  return controller;
}
