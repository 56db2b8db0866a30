/**
 * APIService auto-registration, as kube-apiserver's autoregister and CRD registration
 * controllers do: one Local APIService per served group/version, named `<version>.<group>`.
 * Built-in group/versions are synced once at start (label
 * `kube-aggregator.kubernetes.io/automanaged: onstart`), with kube-apiserver's group and version
 * priorities; those of CustomResourceDefinitions continuously (`true`, priorities 1000 and 100),
 * created when a CRD starts serving a version and deleted when it stops.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError, type KubeObject } from '@kplane/api';
import type { Registry } from '../registry/registry.js';

/** The label that says how an APIService is auto-managed. */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/**
 * kube-apiserver's group and version priorities of the built-in group/versions kplane serves
 * (group/version → [groupPriorityMinimum, versionPriority]). apiregistration.k8s.io is not
 * listed: kube-apiserver registers no APIService for the aggregator's own group.
 */
export const BUILTIN_PRIORITIES: Readonly<Record<string, readonly [number, number]>> = {
  v1: [18000, 1],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  // metrics-server's APIService (served here by kplane itself).
  'metrics.k8s.io/v1beta1': [100, 100],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
};

interface Desired {
  name: string;
  mode: 'onstart' | 'true';
  spec: { group: string; version: string; groupPriorityMinimum: number; versionPriority: number };
}

/** The APIServices the served group/versions call for, by name. */
function desiredAPIServices(registry: Registry): Map<string, Desired> {
  const out = new Map<string, Desired>();
  for (const group of registry.groups()) {
    for (const version of registry.versions(group)) {
      const stores = registry.groupVersion(group, version);
      const builtin = stores.some((s) => !s.type.customResource);
      const name = `${version}.${group}`;
      if (builtin) {
        // As kube-apiserver, a built-in group/version without a known priority gets none.
        const p = BUILTIN_PRIORITIES[group ? `${group}/${version}` : version];
        if (p) out.set(name, { name, mode: 'onstart', spec: { group, version, groupPriorityMinimum: p[0], versionPriority: p[1] } });
      } else {
        out.set(name, { name, mode: 'true', spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 100 } });
      }
    }
  }
  return out;
}

/** What an APIService's spec must equal for its desired one (the fields auto-registration sets). */
function specMatches(current: KubeObject, desired: Desired): boolean {
  const spec = (current.spec ?? {}) as Record<string, unknown>;
  return isDeepStrictEqual(spec, desired.spec);
}

/** A running auto-registration. */
export interface AutoRegistration {
  /** Syncs once now (and waits for it); later syncs follow registry changes. */
  start(): Promise<void>;
  /** Stops following the registry. */
  stop(): void;
  /** Resolves once every sync asked for so far has run (for tests). */
  idle(): Promise<void>;
}

/**
 * Creates the auto-registration of APIServices on `registry` (which must serve apiservices).
 * Errors of a sync are reported through `onError` and retried at the next registry change.
 */
export function createAutoRegistration(registry: Registry, onError: (err: unknown) => void = () => undefined): AutoRegistration {
  let chain: Promise<void> = Promise.resolve();
  let started = false;
  let atStart = new Set<string>();
  let unsubscribe: (() => void) | undefined;

  async function sync(first: boolean): Promise<void> {
    const store = registry.get('apiregistration.k8s.io', 'v1', 'apiservices');
    if (!store) return;
    const desired = desiredAPIServices(registry);
    const current = new Map((await store.list(undefined)).items.map((o) => [o.metadata!.name!, o]));
    if (first) atStart = new Set(current.keys());
    for (const d of desired.values()) {
      const cur = current.get(d.name);
      try {
        if (!cur) {
          if (d.mode === 'onstart' && !first) continue;
          await store.create(undefined, { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: d.name, labels: { [AUTOMANAGED_LABEL]: d.mode } }, spec: { ...d.spec } });
          continue;
        }
        const mode = cur.metadata?.labels?.[AUTOMANAGED_LABEL];
        if (mode !== 'onstart' && mode !== 'true') continue; // not ours to manage
        if (mode === 'onstart' && (!first || !atStart.has(d.name))) continue;
        if (d.mode === 'onstart' && !first) continue;
        if (specMatches(cur, d)) continue;
        await store.update(undefined, d.name, { ...cur, spec: { ...(cur.spec as object), ...d.spec } });
      } catch (err) {
        if (err instanceof ApiError && (err.code === 409 || err.code === 404)) continue; // changed meanwhile: the next sync sees it
        onError(err);
      }
    }
    // Auto-managed APIServices of group/versions no longer served go.
    for (const [name, cur] of current) {
      if (desired.has(name)) continue;
      const mode = cur.metadata?.labels?.[AUTOMANAGED_LABEL];
      if (mode !== 'true' && !(mode === 'onstart' && first)) continue;
      try {
        await store.delete(undefined, name, { preconditions: { uid: cur.metadata?.uid } });
      } catch (err) {
        if (err instanceof ApiError && (err.code === 409 || err.code === 404)) continue;
        onError(err);
      }
    }
  }

  const schedule = (first: boolean): Promise<void> => {
    chain = chain.then(() => sync(first)).catch(onError);
    return chain;
  };

  return {
    async start() {
      if (started) return;
      started = true;
      unsubscribe = registry.onChange(() => void schedule(false));
      await schedule(true);
    },
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
    idle: () => chain,
  };
}
