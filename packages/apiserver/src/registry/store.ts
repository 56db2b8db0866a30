import type { KubeList, KubeObject } from '@kplane/api';
import { ApiError, conflict } from '@kplane/api';
import { KeyNotFoundError, RevisionMismatchError, ValueTooLargeError } from '@kplane/storage';
import type { ResourceType } from './resource.js';
import { WatchCache } from './watch-cache.js';
import { JsonWriter } from './json-writer.js';
import { applyObject } from './apply.js';
import { applyScaleObject, scaleOf, updateScaleObject } from './scale.js';
import { StoreWrites } from './store-write.js';
import { meta, rfc3339, type ApplyOptions, type DeleteOptions, type DeleteResult, type ListOptions, type StoreDeps, type WriteOptions } from './store-types.js';

export {
  LIST_STREAM_PAGE,
  SERVER_FIELD_MANAGER,
  rfc3339,
  type ApplyOptions,
  type DeleteOptions,
  type DeleteResult,
  type FieldValidation,
  type ListForm,
  type ListOptions,
  type StoreDeps,
  type WriteOptions,
} from './store-types.js';
export { allowsUnconditionalUpdate } from './store-write.js';

/**
 * The one generic store behind every resource: metadata, resourceVersion, generation,
 * finalizers and graceful deletion, status and scale subresources, list and watch. What
 * differs between kinds comes from the ResourceType's strategy. Built in layers: StoreCore
 * (store-core.ts: keys, stored form, schema, admission attributes), StoreReads (store-read.ts:
 * GET and LIST), StoreWrites (store-write.ts: create, update, rewrite); this class adds the
 * watch cache, deletion (graceful, finalizers) and the apply and scale entry points.
 */
export class Store extends StoreWrites {
  override readonly cache: WatchCache;

  constructor(type: ResourceType, deps: StoreDeps) {
    super(type, deps);
    this.cache = new WatchCache({
      backend: this.deps.backend,
      prefix: this.prefix,
      decode: (v, r) => this.decode(v, r),
      namespaced: type.namespaced,
      ...deps.watchCache,
      capacity: deps.watchCache?.capacity ?? deps.watchCacheCapacity,
      timers: deps.timers,
    });
  }

  /**
   * The current objects (all of them, no selector) as newline-delimited ADDED watch events,
   * as byte chunks, read `pageSize` objects at a time from one consistent snapshot;
   * `revision` is set once the first page is read. Built from stored JSON like listJson.
   * For a watch's initial events; the caller decides whether it may serve stored JSON.
   */
  async *initialEventLines(namespace: string | undefined, pageSize: number, snapshot: { revision: number }, form: 'object' | 'metadata' = 'object'): AsyncGenerator<Uint8Array> {
    let token: string | undefined;
    do {
      const page = await this.collect(namespace, { limit: pageSize, continue: token }, (kv) => kv);
      snapshot.revision = page.revision;
      token = page.continue;
      const out = new JsonWriter();
      for (const kv of page.items) {
        out.write('{"type":"ADDED","object":');
        if (form === 'metadata') this.writeServedMetadata(out, kv);
        else this.writeServed(out, kv);
        out.write('}\n');
      }
      yield* out.takeChunks();
    } while (token);
  }

  /** Are read-time transforms absent, so that watch events may be built from stored JSON? */
  get servesStoredEvents(): boolean {
    return this.servesStoredJson;
  }

  /**
   * Server-side apply: merges an applied configuration into the object (creating it when
   * absent), records the manager's Apply entry, and refuses conflicting changes to fields other
   * managers own unless forced (409 with one cause per field). See registry/apply.ts.
   */
  apply(namespace: string | undefined, name: string, config: KubeObject, opts: ApplyOptions = {}): Promise<{ object: KubeObject; created: boolean }> {
    return applyObject(this, namespace, name, config, opts);
  }

  /** Deletes an object: at once, or by marking it when finalizers or a grace period hold it. */
  async delete(namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.deps.backend.get(key);
      if (!kv) throw this.notFound(name);
      const obj = this.fromKv(kv);
      const m = meta(obj);
      const pre = opts.preconditions;
      if (pre?.uid && pre.uid !== m.uid) {
        throw conflict(this.type.group, this.type.resource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${m.uid}`);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== m.resourceVersion) {
        throw conflict(this.type.group, this.type.resource, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion}`);
      }
      if (!m.deletionTimestamp) this.type.strategy.beforeDelete?.(obj);
      if (this.deps.admission) {
        const attrs = this.admissionAttributes('DELETE', '', undefined, obj, opts);
        await this.deps.admission.admit(attrs);
        await this.deps.admission.validate(attrs);
      }
      const finalizers = [...(m.finalizers ?? [])];
      const policy = opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : undefined);
      if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
      if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
      const grace = this.type.strategy.deletionGracePeriod?.(obj, opts.gracePeriodSeconds) ?? 0;
      let next: KubeObject | undefined;
      if (m.deletionTimestamp) {
        // Already deleting: a shorter grace period may be requested; finalizers stay as they are.
        // An object released but still stored (left so by a crash of older versions between
        // the last finalizer's removal and the delete) goes now, as kube-apiserver recovers it.
        if (finalizers.length === 0 && (this.released(obj) || (grace === 0 && (m.deletionGracePeriodSeconds ?? 0) > 0))) {
          next = undefined;
        } else if (grace < (m.deletionGracePeriodSeconds ?? 0)) {
          next = structuredClone(obj);
          meta(next).deletionGracePeriodSeconds = grace;
        } else {
          return { object: obj, deleted: false };
        }
      } else if (finalizers.length > 0 || grace > 0 || this.type.strategy.deletionHeld?.(obj)) {
        next = structuredClone(obj);
        this.type.strategy.prepareForDelete?.(next);
        const nm = meta(next);
        // Finalizers prepareForDelete added (a CRD's cleanup finalizer) are kept.
        const all = [...(nm.finalizers ?? [])];
        for (const f of finalizers) if (!all.includes(f)) all.push(f);
        if (all.length) nm.finalizers = all;
        else delete nm.finalizers;
        nm.deletionTimestamp = rfc3339(new Date(this.deps.now().getTime() + grace * 1000));
        nm.deletionGracePeriodSeconds = grace;
        if (this.tracksGeneration(next) && nm.generation !== undefined) nm.generation += 1;
      }
      if (opts.dryRun) return { object: next ?? obj, deleted: next === undefined };
      try {
        if (next) {
          const written = await this.deps.backend.update(key, this.encode(next), kv.modRevision, this.storageOptions(next));
          meta(next).resourceVersion = String(written.modRevision);
          return { object: next, deleted: false };
        }
        const gone = await this.deps.backend.delete(key, kv.modRevision);
        m.resourceVersion = String(gone.modRevision);
        await this.type.strategy.afterDelete?.(obj, this.deps.context);
        return { object: obj, deleted: true };
      } catch (err) {
        if ((err instanceof RevisionMismatchError || err instanceof KeyNotFoundError) && attempt < 8) continue;
        if (err instanceof KeyNotFoundError) throw this.notFound(name);
        if (err instanceof ValueTooLargeError) throw this.tooLarge(name, err);
        throw err;
      }
    }
  }

  /** Deletes every object a list would return. */
  async deleteCollection(namespace: string | undefined, listOpts: ListOptions, opts: DeleteOptions): Promise<KubeList> {
    const list = await this.list(namespace, { labelSelector: listOpts.labelSelector, fieldSelector: listOpts.fieldSelector });
    const items: KubeObject[] = [];
    for (const item of list.items) {
      try {
        const r = await this.delete(item.metadata?.namespace, item.metadata!.name!, { ...opts, preconditions: undefined });
        items.push(r.object);
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 404)) throw err;
      }
    }
    return { ...list, items };
  }

  /** Server-side apply of an autoscaling/v1 Scale (see registry/scale.ts); returns the Scale. */
  async applyScale(namespace: string | undefined, name: string, config: KubeObject, opts: ApplyOptions = {}): Promise<KubeObject> {
    return this.toScale(await applyScaleObject(this, namespace, name, config, opts));
  }

  /** Builds the autoscaling/v1 Scale of an object (the scale subresource; see registry/scale.ts). */
  toScale(obj: KubeObject): KubeObject {
    return scaleOf(this, obj);
  }

  /** Writes a Scale back into the object's spec replicas (see registry/scale.ts); returns the Scale. */
  async updateScale(namespace: string | undefined, name: string, mutate: (scale: KubeObject) => KubeObject | Promise<KubeObject>, opts: WriteOptions = {}): Promise<KubeObject> {
    return this.toScale(await updateScaleObject(this, namespace, name, mutate, opts));
  }
}
