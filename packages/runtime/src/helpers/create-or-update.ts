/**
 * controller-runtime's CreateOrUpdate, plus thin status-subresource writers.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError, type KubeObject } from '@kplane/api';
import type { ResourceClient } from '@kplane/client';

/** What createOrUpdate did ("Deployment default/web has been …"). */
export type OperationResult = 'created' | 'updated' | 'unchanged';

/** Which object createOrUpdate works on. */
export interface ObjectKey {
  name: string;
  /** For namespaced resources; absent means the client's default namespace. */
  namespace?: string;
}

/** Options of createOrUpdate. */
export interface CreateOrUpdateOptions {
  /** Attempts in all when writes hit 409 Conflict / AlreadyExists (default 5, as client-go's DefaultRetry). */
  attempts?: number;
  signal?: AbortSignal;
}

const isConflict = (err: unknown): boolean => err instanceof ApiError && err.code === 409;

function keyOf(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}

/**
 * Reads the object named by `key`, lets `mutate` bring a copy of it (or, when absent, a new
 * `{ metadata: { name, namespace } }`) to the desired state, and writes it only when needed:
 * creates it when absent, updates it when the copy differs (deep equality) from what was read,
 * and otherwise returns 'unchanged'. A 409 (someone wrote in between) starts over from a fresh
 * read, up to `attempts` times. Changes to status are not written (use updateStatus).
 *
 * Errors: the client's ApiError (the last 409 once attempts run out); an Error when `mutate`
 * changes the name or namespace; whatever `mutate` throws.
 */
export async function createOrUpdate<T extends KubeObject>(
  client: ResourceClient<T>,
  key: ObjectKey,
  mutate: (obj: T) => void | Promise<void>,
  options: CreateOrUpdateOptions = {},
): Promise<OperationResult> {
  const attempts = Math.max(1, options.attempts ?? 5);
  const { signal } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      let current: T | undefined;
      try {
        current = await client.get(key.name, { namespace: key.namespace, signal });
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }

      if (current === undefined) {
        const fresh = { metadata: { name: key.name, ...(key.namespace !== undefined ? { namespace: key.namespace } : {}) } } as T;
        const before = keyOf(fresh);
        await mutate(fresh);
        checkKey(before, fresh);
        await client.create(fresh, { namespace: key.namespace, signal });
        return 'created';
      }

      const working = structuredClone(current);
      await mutate(working);
      checkKey(keyOf(current), working);
      if (isDeepStrictEqual(current, working)) return 'unchanged';
      await client.update(working, { namespace: key.namespace, signal });
      return 'updated';
    } catch (err) {
      if (!isConflict(err) || attempt >= attempts) throw err;
    }
  }
}

function checkKey(before: string, obj: KubeObject): void {
  if (keyOf(obj) !== before) throw new Error('MutateFn cannot mutate object name and/or object namespace');
}

/** Writes `obj.status` through the status subresource (PUT …/status, with obj's resourceVersion). */
export function updateStatus<T extends KubeObject>(client: ResourceClient<T>, obj: T): Promise<T> {
  return client.updateStatus(obj);
}

/**
 * Merge-patches the status subresource: sends `{ "status": statusPatch }` as
 * application/merge-patch+json to …/status (null values delete fields, as RFC 7386).
 */
export function patchStatus<T extends KubeObject>(
  client: ResourceClient<T>,
  name: string,
  namespace: string | undefined,
  statusPatch: Record<string, unknown>,
): Promise<T> {
  return client.patch(name, { status: statusPatch }, 'merge', { namespace, subresource: 'status' });
}
