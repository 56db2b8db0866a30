import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { createMemoryBackend, type Backend, type WatchOptions } from '@kplane/storage';
import { WatchCache } from './watch-cache.js';

const PREFIX = '/registry/configmaps/';
const decode = (value: string, revision: number): KubeObject => ({ ...(JSON.parse(value) as KubeObject), metadata: { resourceVersion: String(revision) } });

it('a storage progress notification moves the cache revision on, though nothing under its prefix changed', async () => {
  const memory = createMemoryBackend();
  let progress: ((revision: number) => void) | undefined;
  // A memory store whose watch also reports progress, as the etcd driver does.
  const backend: Backend = Object.assign(Object.create(memory) as Backend, {
    watch(prefix: string, after: number, signal?: AbortSignal, options?: WatchOptions) {
      progress = options?.onProgress;
      return memory.watch(prefix, after, signal);
    },
  });
  const cache = new WatchCache({ backend, prefix: PREFIX, decode, namespaced: true });
  await cache.start();
  await memory.create(`${PREFIX}ns/a`, JSON.stringify({ kind: 'ConfigMap' }));
  const other = await memory.create('/registry/pods/ns/p', '{}');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(cache.revision, 1);
  assert.ok(progress, 'the cache asked storage for progress');
  progress(other.modRevision);
  assert.equal(cache.revision, other.modRevision);
  progress(1);
  assert.equal(cache.revision, other.modRevision, 'progress never moves the revision back');
  cache.stop();
  await memory.close();
});
