/**
 * The CRD controller inside the API server: it lists and then follows the
 * customresourcedefinitions watch cache, accepts names (NamesAccepted), establishes the CRD
 * (Established), serves a ResourceType per served version (discovery and OpenAPI follow the
 * registry), and on deletion removes every custom object before releasing the
 * customresourcecleanup finalizer, after which the resource leaves the registry.
 *
 * Guarantees: CRD events are handled one at a time, in order; a CRD's cleanup never runs twice
 * at once. Caveats: instances are deleted through the normal delete path, so objects with
 * finalizers keep the CRD terminating until someone removes them.
 */
import type { KubeObject } from '@kplane/api';
import { ApiError, definitionsChanged } from '@kplane/api';
import type { Backend } from '@kplane/storage';
import type { Registry } from '../registry/registry.js';
import { realTimers, type Timers } from '../registry/timers.js';
import { rfc3339, type Store } from '../registry/store.js';
import { CLEANUP_FINALIZER, crdSpec, type CRDCondition, type CRDNames, type CustomResourceDefinition } from './crd-types.js';
import { holdsCelRules, loadCel } from './cel/load.js';
import { customResourceType } from './resource-type.js';
import type { ServiceLister } from '../webhookutil/client.js';

/** Pause before listing CRDs again after a list failed (ms). */
const RELIST_DELAY_MS = 1000;

/** Options of createCrdController. */
export interface CrdControllerOptions {
  registry: Registry;
  backend: Backend;
  now(): Date;
  /** How often a terminating CRD re-checks for remaining objects (ms, default 250). */
  pollIntervalMs?: number;
  /** Timers of those re-checks and of relisting after a failed list (tests inject virtual ones). */
  timers?: Timers;
  /** Services and EndpointSlices, to resolve conversion webhooks given by `service`. */
  objects?: ServiceLister;
}

/** The running controller. */
export interface CrdController {
  /** Serves the CRDs stored now, then follows changes. Resolves once the stored ones are served. */
  start(): Promise<void>;
  /** Stops following changes. */
  stop(): void;
  /** Resolves when every event received so far has been handled (for tests). */
  idle(): Promise<void>;
}

const CRD_GROUP = 'apiextensions.k8s.io';
const CRD_RESOURCE = 'customresourcedefinitions';

interface Served {
  signature: string;
  group: string;
  plural: string;
  versions: string[];
  definitions: string[];
}

function setCondition(conds: CRDCondition[], c: CRDCondition, now: string): CRDCondition[] {
  const existing = conds.find((x) => x.type === c.type);
  if (existing && existing.status === c.status && existing.reason === c.reason && existing.message === c.message) return conds;
  const next = { ...c, lastTransitionTime: existing && existing.status === c.status ? existing.lastTransitionTime : now };
  return existing ? conds.map((x) => (x.type === c.type ? next : x)) : [...conds, next];
}

/** Conflicts between this CRD's names and the accepted names of other CRDs in its group. */
function nameConflict(crd: KubeObject, all: Iterable<KubeObject>): { reason: string; message: string } | undefined {
  const spec = crdSpec(crd);
  for (const other of all) {
    if (other.metadata?.name === crd.metadata?.name) continue;
    const os = crdSpec(other);
    if (os.group !== spec.group) continue;
    const on: CRDNames = (other.status as { acceptedNames?: CRDNames } | undefined)?.acceptedNames ?? os.names;
    const taken = new Set([on.plural, on.singular, ...(on.shortNames ?? [])].filter(Boolean));
    if (spec.names.singular && taken.has(spec.names.singular)) return { reason: 'SingularConflict', message: `"${spec.names.singular}" is already in use` };
    for (const s of spec.names.shortNames ?? []) if (taken.has(s)) return { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
    if (spec.names.kind && (spec.names.kind === on.kind || spec.names.kind === on.listKind)) return { reason: 'KindConflict', message: `"${spec.names.kind}" is already in use` };
    if (spec.names.listKind && (spec.names.listKind === on.kind || spec.names.listKind === on.listKind)) return { reason: 'ListKindConflict', message: `"${spec.names.listKind}" is already in use` };
  }
  return undefined;
}

/** Creates the CRD controller of an API server. */
export function createCrdController(options: CrdControllerOptions): CrdController {
  const { registry, now } = options;
  const served = new Map<string, Served>();
  const known = new Map<string, KubeObject>();
  const cleaning = new Set<string>();
  const abort = new AbortController();
  let chain: Promise<void> = Promise.resolve();
  const crdStore = (): Store => registry.get(CRD_GROUP, 'v1', CRD_RESOURCE)!;

  function unserve(name: string): void {
    const s = served.get(name);
    if (!s) return;
    served.delete(name);
    for (const d of s.definitions) delete registry.definitions[d];
    definitionsChanged(registry.definitions);
    for (const v of s.versions) registry.remove(s.group, v, s.plural);
  }

  async function serve(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata!.name!;
    const spec = crdSpec(crd);
    const signature = JSON.stringify([crd.spec, crd.status?.acceptedNames]);
    if (served.get(name)?.signature === signature) return;
    const previous = served.get(name);
    const versions = spec.versions.filter((v) => v.served);
    const entry: Served = { signature, group: spec.group, plural: spec.names.plural, versions: [], definitions: [] };
    // The versions' CEL rules are compiled as they are served: the CEL library first, if any has some.
    if (holdsCelRules(versions)) await loadCel();
    for (const v of versions) {
      const { type, definitions } = customResourceType(crd, v, { objects: options.objects });
      Object.assign(registry.definitions, definitions);
      definitionsChanged(registry.definitions);
      entry.definitions.push(...Object.keys(definitions));
      const store = registry.add(type);
      await store.cache.start();
      entry.versions.push(v.name);
    }
    if (previous) {
      for (const v of previous.versions) if (!entry.versions.includes(v) || previous.plural !== entry.plural) registry.remove(previous.group, v, previous.plural);
      for (const d of previous.definitions) if (!entry.definitions.includes(d)) delete registry.definitions[d];
      definitionsChanged(registry.definitions);
    }
    served.set(name, entry);
  }

  async function writeStatus(name: string, mutate: (crd: CustomResourceDefinition) => void): Promise<CustomResourceDefinition | undefined> {
    try {
      return (await crdStore().guaranteedUpdate(undefined, name, (current) => {
        const next = structuredClone(current) as CustomResourceDefinition;
        mutate(next);
        return next;
      }, { subresource: 'status' })) as CustomResourceDefinition;
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409 || err.code === 422)) return undefined;
      throw err;
    }
  }

  async function reconcile(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata!.name!;
    if (crd.metadata?.deletionTimestamp) {
      if ((crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER) && !cleaning.has(name)) void cleanup(crd);
      return;
    }
    const spec = crdSpec(crd);
    const conflict = nameConflict(crd, known.values());
    const ts = rfc3339(now());
    const status = crd.status ?? {};
    let conds = status.conditions ?? [];
    conds = conflict
      ? setCondition(conds, { type: 'NamesAccepted', status: 'False', ...conflict }, ts)
      : setCondition(conds, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, ts);
    if (!conflict) conds = setCondition(conds, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, ts);
    const accepted = conflict ? status.acceptedNames : spec.names;
    let current = crd;
    if (JSON.stringify(conds) !== JSON.stringify(status.conditions ?? []) || JSON.stringify(accepted) !== JSON.stringify(status.acceptedNames)) {
      const written = await writeStatus(name, (c) => {
        c.status = { ...(c.status ?? {}), conditions: conds, ...(accepted ? { acceptedNames: accepted } : {}) };
      });
      if (!written) return;
      current = written;
    }
    if (!conflict) await serve(current);
  }

  async function cleanup(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata!.name!;
    cleaning.add(name);
    try {
      const setTerminating = (reason: string, message: string) =>
        writeStatus(name, (c) => {
          const st = c.status ?? (c.status = {});
          st.conditions = setCondition(st.conditions ?? [], { type: 'Terminating', status: 'True', reason, message }, rfc3339(now()));
        });
      await setTerminating('InstanceDeletionInProgress', 'CustomResource deletion is in progress');
      const spec = crdSpec(crd);
      const store = served.get(name)?.versions.map((v) => registry.get(spec.group, v, spec.names.plural)).find((s) => s !== undefined);
      for (;;) {
        if (abort.signal.aborted) return;
        let remaining: number;
        if (store) {
          const list = await store.list(undefined);
          for (const item of list.items) {
            if (item.metadata?.deletionTimestamp) continue;
            await store.delete(item.metadata?.namespace, item.metadata!.name!, {}).catch((err) => {
              if (!(err instanceof ApiError && err.code === 404)) throw err;
            });
          }
          remaining = (await store.list(undefined)).items.length;
        } else {
          const prefix = `/registry/${spec.group}/${spec.names.plural}/`;
          for (const kv of (await options.backend.list(prefix)).items) await options.backend.delete(kv.key).catch(() => undefined);
          remaining = await options.backend.count(prefix);
        }
        if (remaining === 0) break;
        await setTerminating('InstanceDeletionCheck', `could not confirm zero CustomResources remaining: ${remaining} remaining`);
        await new Promise<void>((r) => (options.timers ?? realTimers).setTimeout(r, options.pollIntervalMs ?? 250, { keepAlive: true }));
      }
      await setTerminating('InstanceDeletionCompleted', `removed all instances`);
      await crdStore().guaranteedUpdate(undefined, name, (current) => {
        const next = structuredClone(current);
        next.metadata!.finalizers = (next.metadata!.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
        return next;
      }).catch((err) => {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      });
    } catch (err) {
      console.error(`kplane: cleaning up CustomResourceDefinition ${name}:`, err);
    } finally {
      cleaning.delete(name);
    }
  }

  function enqueue(fn: () => Promise<void>): void {
    chain = chain.then(fn).catch((err) => console.error('kplane: CRD controller:', err));
  }

  return {
    async start() {
      const store = crdStore();
      // Lists the CRDs, forgets those gone since the last list, reconciles the rest; returns the
      // list's resourceVersion to watch from.
      const relist = async (): Promise<number> => {
        const list = await store.list(undefined);
        const names = new Set(list.items.map((item) => item.metadata!.name!));
        for (const name of [...known.keys()]) {
          if (names.has(name)) continue;
          known.delete(name);
          enqueue(async () => unserve(name));
        }
        for (const item of list.items) known.set(item.metadata!.name!, item);
        for (const item of list.items) enqueue(() => reconcile(item as CustomResourceDefinition));
        return Number(list.metadata.resourceVersion);
      };
      let from = await relist();
      await chain;
      void (async () => {
        // A watch that ends (the watch cache restarted, or this follower fell out of its
        // window) is followed by a new list and watch, as an informer relists: CRDs keep being
        // served whatever happens to one watch.
        while (!abort.signal.aborted) {
          try {
            for await (const e of store.cache.watch(from, abort.signal)) {
              const obj = e.object as CustomResourceDefinition;
              const name = obj.metadata!.name!;
              if (e.type === 'DELETED') {
                known.delete(name);
                enqueue(async () => unserve(name));
              } else {
                known.set(name, obj);
                enqueue(() => reconcile(obj));
              }
            }
          } catch (err) {
            if (abort.signal.aborted) return;
            console.error('kplane: CRD controller watch ended, listing again:', err instanceof Error ? err.message : err);
          }
          while (!abort.signal.aborted) {
            try {
              from = await relist();
              break;
            } catch (err) {
              console.error('kplane: CRD controller list failed:', err);
              await new Promise<void>((resolve) => (options.timers ?? realTimers).setTimeout(resolve, RELIST_DELAY_MS));
            }
          }
        }
      })();
    },
    stop() {
      abort.abort();
    },
    idle: () => chain,
  };
}
