/**
 * Test support (not exported from the package): an in-process kplane on memory storage,
 * ConfigMap helpers.
 */
import type { KubeObject, OwnerReference } from '@kplane/api';
import { ApiError } from '@kplane/api';
import type { Client, ResourceClient } from '@kplane/client';
import { eventually } from '@kplane/api/testing';
import { startTestKplane } from '@kplane/apiserver/testing';
import { createGarbageCollector, type GarbageCollector, type GarbageCollectorOptions } from './garbage-collector.js';

/** An API server for one test file. */
export interface TestKplane {
  client: Client;
  configMaps: ResourceClient<KubeObject>;
  close(): Promise<void>;
}

/** Starts a kplane API server on a fresh memory backend. */
export async function startKplane(): Promise<TestKplane> {
  const k = await startTestKplane();
  return {
    client: k.client,
    configMaps: k.client.resource<KubeObject>({ group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' }),
    close: () => k.close(),
  };
}

/** A running collector that can be stopped and started again. */
export interface RunningGc {
  gc: GarbageCollector;
  errors: unknown[];
  /** Starts it (again) and waits until every resource was listed. */
  start(): Promise<void>;
  /** Stops it and waits until it has stopped. */
  stop(): Promise<void>;
}

/** Creates a collector for tests (fast discovery resync, errors collected, not printed). */
export function testGc(client: Client, options: Partial<GarbageCollectorOptions> = {}): RunningGc {
  const errors: unknown[] = [];
  const gc = createGarbageCollector({ client, resyncDiscoveryMs: 200, workers: 4, onError: (err) => errors.push(err), ...options });
  let ctl: AbortController | undefined;
  let run: Promise<void> | undefined;
  return {
    gc,
    errors,
    async start() {
      ctl = new AbortController();
      run = gc.start(ctl.signal);
      await eventually('the collector syncs', () => gc.synced());
    },
    async stop() {
      ctl?.abort();
      await run;
    },
  };
}

/** The object, or undefined on 404. */
export async function getOrNone(api: ResourceClient<KubeObject>, name: string, namespace?: string): Promise<KubeObject | undefined> {
  try {
    return await api.get(name, { namespace });
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

/** An owner reference to `obj`. */
export function refTo(obj: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: obj.apiVersion ?? 'v1', kind: obj.kind ?? 'ConfigMap', name: obj.metadata!.name!, uid: obj.metadata!.uid!, ...extra };
}

/** Creates a namespace. */
export async function createNamespace(client: Client, name: string): Promise<void> {
  await client.resource({ group: '', version: 'v1', resource: 'namespaces', namespaced: false, kind: 'Namespace' }).create({ metadata: { name } });
}

/** Creates a ConfigMap `name` in `namespace` owned by `owners`. */
export function createCm(k: TestKplane, namespace: string, name: string, owners: OwnerReference[] = [], meta: Record<string, unknown> = {}): Promise<KubeObject> {
  return k.configMaps.create({ metadata: { name, namespace, ...(owners.length ? { ownerReferences: owners } : {}), ...meta } });
}
