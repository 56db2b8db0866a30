import { randomUUID } from 'node:crypto';
import type { KubeObject, ObjectMeta, FieldManagerContext } from '@kplane/api';
import { ApiError, alreadyExists, badRequest, cloneBody, conflict, invalid, qualifiedResource, requestEntityTooLarge, CauseType, jsonEqual } from '@kplane/api';
import type { KeyValue, WriteOptions as StorageWriteOptions } from '@kplane/storage';
import { KeyExistsError, KeyNotFoundError, RevisionMismatchError, ValueTooLargeError } from '@kplane/storage';
import type { ResourceType, WriteRequest } from './resource.js';
import { fieldManagerContext, sentManagedFields, updateManagedFields } from './field-manager.js';
import { StoreReads } from './store-read.js';
import { rememberWritten } from './written-json.js';
import { meta, rfc3339, SERVER_FIELD_MANAGER, type WriteOptions } from './store-types.js';

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return s;
}

function withoutMetaAndStatus(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/**
 * The writes of a Store: create, update (PUT, patches, and the writes of apply and scale)
 * and rewrite, with their admission, validation, managedFields and storage writes.
 */
export abstract class StoreWrites extends StoreReads {
  protected tracksGeneration(obj: KubeObject): boolean {
    const g = this.type.strategy.generation;
    return g === undefined ? obj.spec !== undefined : g;
  }

  /** Creates an object in namespace (undefined for cluster-scoped kinds). */
  async create(namespace: string | undefined, obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const sentManaged = sentManagedFields(obj);
    this.admitBody(obj, opts);
    let m = meta(obj);
    if (this.type.namespaced) {
      if (m.namespace && namespace && m.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      m.namespace = namespace ?? m.namespace;
    } else delete m.namespace;
    const generated = !m.name && !!m.generateName;
    if (generated) m.name = m.generateName + randomSuffix();
    if (this.type.subresources?.status && this.type.strategy.resetStatusOnCreate !== false) delete obj.status;
    for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'selfLink']) delete m[k];
    this.type.strategy.defaults?.(obj);
    await this.deps.admission?.admit(this.admissionAttributes('CREATE', '', obj, undefined, opts));
    // A mutating step (a webhook's patch) may have replaced the metadata object.
    m = meta(obj);
    if (!opts.applied) m.managedFields = this.recordUpdate(undefined, obj, sentManaged, opts, '');
    if (m.managedFields?.length === 0) delete m.managedFields;
    this.type.strategy.admit?.(obj, undefined, opts.user, this.deps.context);
    const req: WriteRequest = { user: opts.user, subresource: '', now: this.deps.now(), authorizer: opts.authorizer ?? this.deps.context.policy };
    // The uid exists before admission and validation, as kube's BeforeCreate fills it (a Job's selector is made from it).
    m.uid = randomUUID();
    this.type.strategy.admitCreate?.(obj, req);
    await this.type.strategy.beforeValidate?.(obj);
    this.validate(obj, undefined, opts.warnings, req);
    await this.deps.admission?.validate(this.admissionAttributes('CREATE', '', obj, undefined, opts));
    if (this.type.namespaced && this.deps.checkNamespace) await this.deps.checkNamespace(m.namespace!, this.type.group, this.type.resource, m.name!);
    m.creationTimestamp = rfc3339(this.deps.now());
    if (this.tracksGeneration(obj)) m.generation = 1;
    const key = this.key(m.namespace, m.name!);
    if (opts.dryRun) {
      if (await this.deps.backend.get(key)) throw alreadyExists(this.type.group, this.type.resource, m.name!);
      // Show what a real create would allocate, keeping nothing.
      const dry = { ...this.deps.context, dryRun: true };
      await this.type.strategy.prepareForCreate?.(obj, dry);
      await this.type.strategy.afterDelete?.(obj, dry);
      return obj;
    }
    await this.type.strategy.prepareForCreate?.(obj, this.deps.context);
    // A generated name that collides is drawn again (kube-apiserver retries up to 7 times).
    for (let attempt = 0; ; attempt++) {
      try {
        const json = this.encode(obj);
        const kv = await this.deps.backend.create(this.key(m.namespace, m.name!), json, this.storageOptions(obj));
        m.resourceVersion = String(kv.modRevision);
        // The answer is the stored JSON (as a GET serves it), not the object encoded again.
        if (this.servesStoredJson) rememberWritten(obj, json, kv.modRevision);
        return obj;
      } catch (err) {
        if (err instanceof KeyExistsError && generated && attempt < 7) {
          m.name = m.generateName + randomSuffix();
          continue;
        }
        // Nothing was stored: give back what prepareForCreate allocated.
        await this.type.strategy.afterDelete?.(obj, this.deps.context);
        if (err instanceof ValueTooLargeError) throw this.tooLarge(m.name!, err);
        if (err instanceof KeyExistsError) throw alreadyExists(this.type.group, this.type.resource, m.name!);
        throw err;
      }
    }
  }

  /**
   * Reads the stored object, lets `mutate` produce the new one, and writes it guarded by the
   * revision read, retrying on conflicts when the caller did not pin a resourceVersion.
   */
  async guaranteedUpdate(
    namespace: string | undefined,
    name: string,
    mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    opts: WriteOptions & { subresource?: string } = {},
  ): Promise<KubeObject> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.deps.backend.get(key);
      if (!kv) throw this.notFound(name);
      const current = this.fromKv(kv);
      // A second decode is the caller's copy: cheaper than cloning the decoded object. A mutate
      // that takes no argument (an update replacing the object wholesale) needs none.
      const next = await mutate(mutate.length === 0 ? current : this.fromKv(kv));
      // A resourceVersion left in the new object pins the write to it; none means unconditional.
      const pinned = next?.metadata?.resourceVersion;
      if (pinned && pinned !== current.metadata!.resourceVersion) {
        throw conflict(this.type.group, this.type.resource, name);
      }
      if (next && typeof next === 'object' && !Array.isArray(next)) meta(next).resourceVersion = current.metadata!.resourceVersion;
      const result = await this.prepareUpdate(next, current, opts, () => this.fromKv(kv));
      if (result === current) return current;
      const afterUpdate = this.type.strategy.afterUpdate;
      if (opts.dryRun) {
        await afterUpdate?.(result, current, { ...this.deps.context, dryRun: true }, false);
        return result;
      }
      try {
        const written = await this.write(key, result, kv.modRevision);
        await afterUpdate?.(result, current, this.deps.context, true);
        return written;
      } catch (err) {
        await afterUpdate?.(result, current, this.deps.context, false);
        if (err instanceof RevisionMismatchError || err instanceof KeyNotFoundError) {
          if (pinned || attempt >= 8) {
            if (err instanceof KeyNotFoundError) throw this.notFound(name);
            throw conflict(this.type.group, this.type.resource, name);
          }
          continue;
        }
        throw err;
      }
    }
  }

  /**
   * Writes an updated object; a deleting object whose last finalizer went is removed in the
   * same storage write (its final value, without finalizers, is what watchers see deleted).
   */
  private async write(key: string, obj: KubeObject, expected: number): Promise<KubeObject> {
    const m = meta(obj);
    try {
      if (this.released(obj)) {
        let kv: KeyValue;
        try {
          kv = await this.deps.backend.deleteWithFinalValue(key, this.encode(obj), expected);
        } catch (err) {
          // Another request removed the last finalizer first: the object is gone either way.
          if (err instanceof KeyNotFoundError) return obj;
          throw err;
        }
        m.resourceVersion = String(kv.modRevision);
        await this.type.strategy.afterDelete?.(obj, this.deps.context);
        return obj;
      }
      const kv = await this.deps.backend.update(key, this.encode(obj), expected, this.storageOptions(obj));
      m.resourceVersion = String(kv.modRevision);
      return obj;
    } catch (err) {
      if (err instanceof ValueTooLargeError) throw this.tooLarge(m.name ?? '', err);
      throw err;
    }
  }

  /** Is obj deleting with nothing left to hold it (no finalizers, no grace period)? Then it goes. */
  protected released(obj: KubeObject): boolean {
    const m = meta(obj);
    return !!m.deletionTimestamp && (m.finalizers ?? []).length === 0 && !m.deletionGracePeriodSeconds && !this.type.strategy.deletionHeld?.(obj);
  }

  /** The storage options of a write of obj: the kind's TTL, if it has one. */
  protected storageOptions(obj: KubeObject): StorageWriteOptions | undefined {
    const ttlSeconds = this.type.strategy.ttlSeconds?.(obj, this.deps.context);
    return ttlSeconds === undefined ? undefined : { ttlSeconds };
  }

  /** 413 for an object too large to store (etcd refuses it too; kube-apiserver passes that on as a 500). */
  protected tooLarge(name: string, err: ValueTooLargeError): ApiError {
    return requestEntityTooLarge(
      `Request entity too large: ${qualifiedResource(this.type.group, this.type.resource)} "${name}" is ${err.size} bytes when stored, over the limit of ${err.limit} bytes`,
    );
  }

  /** Applies the update rules to `next` against `current`; returns `current` itself when nothing changed. */
  private async prepareUpdate(next: KubeObject, current: KubeObject, opts: WriteOptions & { subresource?: string }, fresh: () => KubeObject = () => structuredClone(current)): Promise<KubeObject> {
    // Read before admission, which drops an empty list (`managedFields: []` resets them).
    const sentManaged = sentManagedFields(next);
    this.admitBody(next, opts);
    const m = meta(next);
    const cm = meta(current);
    if (m.name !== undefined && m.name !== cm.name) {
      throw badRequest(`the name of the object (${m.name}) does not match the name on the URL (${cm.name})`);
    }
    if (this.type.namespaced && m.namespace !== undefined && m.namespace !== cm.namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    let obj = next;
    const sub = opts.subresource ?? '';
    if (sub === 'status' || (sub && this.type.subresources?.extra?.includes(sub))) {
      obj = { ...fresh(), status: next.status };
      if (next.status === undefined) delete obj.status;
    } else {
      if (this.type.subresources?.status) {
        if (current.status === undefined) delete obj.status;
        else obj.status = structuredClone(current.status);
      }
      m.name = cm.name;
      if (this.type.namespaced) m.namespace = cm.namespace;
      else delete m.namespace;
      // A uid in the body is a precondition (controllers patch ownerReferences with one).
      if (m.uid !== undefined && m.uid !== '' && m.uid !== cm.uid) {
        throw conflict(this.type.group, this.type.resource, cm.name!, `Precondition failed: UID in precondition: ${String(m.uid)}, UID in object meta: ${cm.uid}`);
      }
      m.uid = cm.uid;
      m.creationTimestamp = cm.creationTimestamp;
      if (cm.deletionTimestamp) {
        m.deletionTimestamp = cm.deletionTimestamp;
        m.deletionGracePeriodSeconds = cm.deletionGracePeriodSeconds;
      } else {
        delete m.deletionTimestamp;
        delete m.deletionGracePeriodSeconds;
      }
      if (cm.generation !== undefined) m.generation = cm.generation;
      else delete m.generation;
      this.type.strategy.defaults?.(obj);
      if (cm.generation !== undefined && !jsonEqual(withoutMetaAndStatus(obj), withoutMetaAndStatus(current))) {
        m.generation = cm.generation + 1;
      }
    }
    await this.deps.admission?.admit(this.admissionAttributes('UPDATE', sub, obj, current, opts));
    const om = meta(obj);
    om.resourceVersion = cm.resourceVersion;
    if (opts.applied) {
      if (next.metadata?.managedFields) om.managedFields = next.metadata.managedFields;
    } else {
      om.managedFields = this.recordUpdate(current, obj, sentManaged, opts, sub);
    }
    if (om.managedFields?.length === 0) delete om.managedFields;
    const req: WriteRequest = { user: opts.user, subresource: sub, now: this.deps.now(), authorizer: opts.authorizer ?? this.deps.context.policy };
    this.type.strategy.admitUpdate?.(obj, current, req);
    await this.type.strategy.beforeValidate?.(obj);
    this.validate(obj, current, opts.warnings, req);
    await this.deps.admission?.validate(this.admissionAttributes('UPDATE', sub, obj, current, opts));
    if (jsonEqual(obj, current)) return current;
    this.type.strategy.admit?.(obj, current, opts.user, this.deps.context);
    await this.type.strategy.prepareForUpdate?.(obj, current, opts.dryRun ? { ...this.deps.context, dryRun: true } : this.deps.context);
    return obj;
  }

  /** The managedFields of a write that is not an apply (see updateManagedFields). */
  private recordUpdate(current: KubeObject | undefined, obj: KubeObject, sent: KubeObject, opts: WriteOptions, subresource: string): ObjectMeta['managedFields'] {
    return updateManagedFields(current, obj, sent, this.fieldManagerContext(opts, subresource), `${qualifiedResource(this.type.group, this.type.resource)} "${meta(obj).name ?? ''}"`);
  }

  /** What the field manager needs to know of a write (for the store and its apply). */
  fieldManagerContext(opts: WriteOptions, subresource: string): FieldManagerContext {
    const scope = { definitions: this.deps.definitions, schema: this.schema(), apiVersion: this.apiVersion, hasStatus: !!this.type.subresources?.status, time: rfc3339(this.deps.now()) };
    return fieldManagerContext(scope, opts.fieldManager ?? SERVER_FIELD_MANAGER, subresource);
  }

  /**
   * Rewrites a stored object with `mutate`, without the update rules (validation, immutable
   * fields, generation): for system subresources that make their own checks, such as
   * pods/binding setting spec.nodeName. Retries on concurrent writes with a fresh copy.
   */
  async rewrite(namespace: string | undefined, name: string, mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>, opts: { dryRun?: boolean } = {}): Promise<KubeObject> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.deps.backend.get(key);
      if (!kv) throw this.notFound(name);
      const next = await mutate(this.fromKv(kv));
      if (opts.dryRun) return next;
      try {
        return await this.write(key, next, kv.modRevision);
      } catch (err) {
        if (err instanceof RevisionMismatchError && attempt < 8) continue;
        if (err instanceof KeyNotFoundError) throw this.notFound(name);
        if (err instanceof RevisionMismatchError) throw conflict(this.type.group, this.type.resource, name);
        throw err;
      }
    }
  }

  /** Replaces an object (PUT); `subresource` "status" writes only the status. */
  async update(namespace: string | undefined, name: string, obj: KubeObject, opts: WriteOptions & { subresource?: string } = {}): Promise<KubeObject> {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw badRequest('the body of the request must be a JSON object');
    const bodyName = obj.metadata?.name;
    if (bodyName !== undefined && bodyName !== name) {
      throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    }
    // An update without a resourceVersion (or with "0") is unconditional where the kind's strategy
    // allows it, as kube-apiserver's does for most built-in kinds, and retried on conflicts, each
    // attempt on a copy of the body; elsewhere it is refused as kube-apiserver does. A pinned one
    // is tried once.
    const rv = obj.metadata?.resourceVersion;
    const pinned = !!rv && rv !== '0';
    if (!pinned) {
      if (!allowsUnconditionalUpdate(this.type)) {
        throw invalid(this.type.group, this.type.resource, name, [
          { reason: CauseType.Invalid, message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' },
        ]);
      }
      if (rv === '0') obj = { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } };
    }
    return this.guaranteedUpdate(namespace, name, () => (pinned ? obj : cloneBody(obj)), opts);
  }
}

/**
 * Does an update without a resourceVersion (or with "0") go through unconditionally? As
 * kube-apiserver's strategies answer AllowUnconditionalUpdate: yes for most built-in kinds; no
 * for custom resources, CustomResourceDefinitions and the kinds whose strategy says so.
 */
export function allowsUnconditionalUpdate(type: ResourceType): boolean {
  if (type.customResource) return false;
  return type.strategy.allowUnconditionalUpdate ?? true;
}
