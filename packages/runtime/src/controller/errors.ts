/** Errors that stop a controller or a manager (rather than failing one reconcile). */

/** `g/v/r` (an informer's resource id) as Kubernetes names a resource in messages: `deployments.apps`, `pods`. */
function qualified(id: string): string {
  const [group, , resource] = id.split('/');
  return resource === undefined ? id : group ? `${resource}.${group}` : resource;
}

/**
 * The caches did not sync within the cache-sync timeout. `resources` names the ones still
 * syncing (e.g. a CRD not installed, or no permission to list): `failed to wait for caches to
 * sync: timed out waiting for cache to be synced for pods, deployments.apps`.
 */
export class CacheSyncTimeoutError extends Error {
  /** The resources (`g/v/r`) whose cache had not synced. */
  readonly resources: string[];
  constructor(resources: string[], readonly controller?: string) {
    super(
      `failed to wait for ${controller ? `${controller} ` : ''}caches to sync: timed out waiting for cache to be synced for ${resources.map(qualified).join(', ') || 'no resource'}`,
    );
    this.name = 'CacheSyncTimeoutError';
    this.resources = resources;
  }
}

/** The manager lost its leader Lease: its controllers were stopped (controller-runtime's "leader election lost"). */
export class LeaderElectionLostError extends Error {
  constructor(readonly lease: string) {
    super('leader election lost');
    this.name = 'LeaderElectionLostError';
  }
}

/** The manager stopped, but some runnables (reconcilers) were still running when the grace period ended. */
export class GracefulShutdownTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`failed waiting for all runnables to end within grace period of ${timeoutMs / 1000}s: context deadline exceeded`);
    this.name = 'GracefulShutdownTimeoutError';
  }
}
