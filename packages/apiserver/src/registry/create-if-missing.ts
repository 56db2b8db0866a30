import { ApiError, type KubeObject } from '@kplane/api';
import type { Store } from './store.js';

/**
 * Creates the cluster-scoped `obj` unless it exists (a read first, as kube-apiserver's post-start
 * hooks do: a restart finds them all and writes nothing); a concurrent create is no error.
 */
export async function createIfMissing(store: Store, obj: KubeObject): Promise<void> {
  try {
    await store.get(undefined, obj.metadata!.name!);
    return;
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err;
  }
  try {
    await store.create(undefined, obj);
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 409)) throw err;
  }
}
