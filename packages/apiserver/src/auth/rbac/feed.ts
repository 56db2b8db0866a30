/**
 * Keeps the RBAC index current: lists Roles, ClusterRoles, RoleBindings and
 * ClusterRoleBindings once, then applies their watch caches' events, as kube-apiserver's RBAC
 * authorizer reads its informers' listers. A watcher the cache closes lists again.
 */
import type { KubeObject } from '@kplane/api';
import type { Registry } from '../../registry/registry.js';
import type { RbacAuthorizer } from './authorizer.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** The four RBAC resources the index follows. */
export const RBAC_RESOURCES = ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'] as const;
export type RbacResource = (typeof RBAC_RESOURCES)[number];

/** A running feed. */
export interface RbacFeed {
  /** Resolves once the index has applied `resource`'s changes up to `revision`. */
  waitFor(resource: RbacResource, revision: number): Promise<void>;
  stop(): void;
}

function apply(index: RbacAuthorizer, resource: RbacResource, obj: KubeObject, deleted: boolean): void {
  const ns = obj.metadata?.namespace ?? '';
  const name = obj.metadata?.name ?? '';
  switch (resource) {
    case 'roles':
      if (deleted) index.deleteRole(ns, name);
      else index.setRole(obj);
      return;
    case 'clusterroles':
      if (deleted) index.deleteClusterRole(name);
      else index.setClusterRole(obj);
      return;
    case 'rolebindings':
      if (deleted) index.deleteBinding(ns, name);
      else index.setBinding(obj);
      return;
    case 'clusterrolebindings':
      if (deleted) index.deleteBinding(undefined, name);
      else index.setBinding({ ...obj, metadata: { ...obj.metadata, namespace: undefined } });
  }
}

/**
 * Lists the RBAC resources into `index` (resolving when all four are in) and follows their
 * watch caches until stopped.
 */
export async function startRbacFeed(registry: Registry, index: RbacAuthorizer): Promise<RbacFeed> {
  const stop = new AbortController();
  const seen = new Map<RbacResource, number>();
  const waiters: { resource: RbacResource; revision: number; resolve: () => void }[] = [];
  const advance = (resource: RbacResource, revision: number) => {
    if ((seen.get(resource) ?? 0) >= revision) return;
    seen.set(resource, revision);
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if (w.resource === resource && w.revision <= revision) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  };

  async function follow(resource: RbacResource): Promise<void> {
    const store = registry.get(RBAC_GROUP, 'v1', resource);
    if (!store) return;
    const known = new Map<string, KubeObject>();
    const relist = async (): Promise<number> => {
      const list = await store.list(undefined);
      const now = new Set<string>();
      for (const o of list.items) {
        const k = `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
        now.add(k);
        known.set(k, o);
        apply(index, resource, o, false);
      }
      for (const [k, o] of known) {
        if (!now.has(k)) {
          known.delete(k);
          apply(index, resource, o, true);
        }
      }
      const rv = Number(list.metadata.resourceVersion);
      advance(resource, rv);
      return rv;
    };
    let rv = await relist();
    void (async () => {
      while (!stop.signal.aborted) {
        try {
          for await (const e of store.cache.watch(rv, stop.signal)) {
            const o = e.object;
            const k = `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
            if (e.type === 'DELETED') known.delete(k);
            else known.set(k, o);
            apply(index, resource, o, e.type === 'DELETED');
            rv = e.revision;
            advance(resource, e.revision);
          }
          if (stop.signal.aborted) return;
        } catch {
          if (stop.signal.aborted) return;
        }
        try {
          rv = await relist();
        } catch {
          // Storage is gone (the server is closing): nothing left to follow.
          return;
        }
      }
    })();
  }

  await Promise.all(RBAC_RESOURCES.map(follow));
  return {
    waitFor(resource, revision) {
      if ((seen.get(resource) ?? 0) >= revision) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ resource, revision, resolve }));
    },
    stop() {
      stop.abort();
      for (const w of waiters.splice(0)) w.resolve();
    },
  };
}
