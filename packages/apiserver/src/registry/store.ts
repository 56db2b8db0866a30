import { randomUUID } from 'node:crypto';
import type { KubeList, KubeObject, ObjectMeta, SchemaDefinitions, StatusCause, UserInfo } from '@kplane/api';
import {
  ApiError,
  alreadyExists,
  apiVersionOf,
  badRequest,
  conflict,
  gone,
  invalid,
  notFound,
  resolveSchema,
  finalizerWarnings,
  validateObjectMeta,
  validateObjectMetaUpdate,
  qualifiedResource,
  requestEntityTooLarge,
  admitObject,
  cloneBody,
  CauseType,
  jsonEqual,
} from '@kplane/api';
import type { FieldManagerContext } from '@kplane/api';
import type { Backend, KeyValue, RawKeyValue, ListOptions as StorageListOptions, WriteOptions as StorageWriteOptions } from '@kplane/storage';
import { CompactedError, FutureRevisionError, KeyExistsError, KeyNotFoundError, RevisionMismatchError, ValueTooLargeError } from '@kplane/storage';
import type { ResourceType, StrategyContext, WriteRequest } from './resource.js';
import type { Authorizer } from '../auth/types.js';
import { WatchCache, tooLargeResourceVersion, type WatchCacheOptions } from './watch-cache.js';
import type { Timers } from './timers.js';
import type { AdmissionChain } from '../admission/chain.js';
import type { AdmissionAttributes, AdmissionOperation } from '../admission/types.js';
import { decodeContinue, encodeContinue, parseResourceVersion, validateListOptions } from './read-options.js';
import { JsonWriter, objectEnd, objectEndOfBytes, storedHeadLength, storedHeadLengthOfBytes, withResourceVersion } from './json-writer.js';
import { dropEmptyMetadata } from './object-paths.js';
import { fieldManagerContext, sentManagedFields, updateManagedFields } from './field-manager.js';
import { applyObject } from './apply.js';
import { applyScaleObject, scaleOf, updateScaleObject } from './scale.js';
import { compileListFilter, type ListFilter } from './filter.js';

/** How unknown fields in a request body are treated (the fieldValidation query parameter). */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Stored objects read (and encoded) at a time by a streamed LIST (listJsonStream). */
export const LIST_STREAM_PAGE = 500;

/** A stored value as storage hands it back: text, or its UTF-8 bytes (Backend.listRaw). */
type StoredKv = KeyValue | RawKeyValue;

/** What a LIST written from stored JSON holds: the objects, or their PartialObjectMetadata. */
export type ListForm = 'object' | 'metadata';

const valueText = (kv: StoredKv): string => (typeof kv.value === 'string' ? kv.value : Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength).toString('utf8'));

/** The manager of the writes the server's own code makes (no request, no field manager). */
export const SERVER_FIELD_MANAGER = 'kube-apiserver';

/** Options shared by create and update. */
export interface WriteOptions {
  /** Decides the special verbs a strategy checks itself (WriteRequest.authorizer; default: the context's policy). */
  authorizer?: Authorizer;
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  /** Filled with warnings to send back as `Warning` headers. */
  warnings?: string[];
  /** Who writes (for strategies that decide on it, RBAC's escalation checks); undefined: in-process trusted code. */
  user?: UserInfo;
  /** Adds an annotation to the request's audit event (admission webhooks' auditAnnotations). */
  audit?: (key: string, value: string) => void;
  /**
   * The manager recorded in managedFields (fieldManager, or the User-Agent's first segment).
   * Absent: a write of the server's own code, recorded as `kube-apiserver` (the manager
   * kube-apiserver's loopback clients write as).
   */
  fieldManager?: string;
  /** The object's managedFields were set by an apply (the store records no Update entry). */
  applied?: boolean;
}

/** Options of an apply (server-side apply). */
export interface ApplyOptions extends WriteOptions {
  /** Take the fields other managers own (conflicts are then not errors). */
  force?: boolean;
  subresource?: 'status' | '';
}

/** metav1.DeleteOptions (the fields kplane honours). */
export interface DeleteOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Who deletes (admission sees it); undefined: in-process trusted code. */
  user?: UserInfo;
  /** Adds an annotation to the request's audit event (admission webhooks' auditAnnotations). */
  audit?: (key: string, value: string) => void;
}

/** Options of list and watch. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

/** Result of delete: the object, and whether it is gone or only marked for deletion. */
export interface DeleteResult {
  object: KubeObject;
  deleted: boolean;
}

/** Dependencies of a store. */
export interface StoreDeps {
  backend: Backend;
  definitions: SchemaDefinitions;
  context: StrategyContext;
  now(): Date;
  /** Refuses a create in a namespace that does not exist or is terminating. */
  checkNamespace?(namespace: string, group: string, resource: string, name: string): Promise<void>;
  /** Events each resource's watch cache keeps (default 100 000). */
  watchCacheCapacity?: number;
  /** Bounds of each resource's watch cache and of its watchers (see WatchCacheOptions). */
  watchCache?: Pick<WatchCacheOptions, 'capacity' | 'maxBytes' | 'watcherMaxEvents' | 'watcherMaxBytes'>;
  /** Timers of freshness waits (tests inject virtual ones). */
  timers?: Timers;
  /** The admission chain every write passes (absent: none). */
  admission?: AdmissionChain;
}

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(n = 5): string {
  let s = '';
  for (let i = 0; i < n; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return s;
}

/** The last second rfc3339 formatted, and its text: writes come many to a second. */
let lastSecond = NaN;
let lastText = '';

/** RFC 3339 with seconds precision, as Kubernetes serialises metav1.Time. */
export function rfc3339(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastSecond) {
    lastText = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
}

function meta(obj: KubeObject): ObjectMeta {
  if (!obj.metadata || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata;
}

function withoutMetaAndStatus(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/**
 * The one generic store behind every resource: metadata, resourceVersion, generation,
 * finalizers and graceful deletion, status and scale subresources, list and watch. What
 * differs between kinds comes from the ResourceType's strategy.
 */
export class Store {
  readonly prefix: string;
  readonly apiVersion: string;
  readonly cache: WatchCache;
  private readonly filterFields: Record<string, (o: KubeObject) => string | undefined>;

  private readonly deps: StoreDeps;

  constructor(
    readonly type: ResourceType,
    deps: StoreDeps,
  ) {
    this.deps = type.storage ? { ...deps, backend: type.storage(deps.backend) } : deps;
    const base = type.storagePrefix ?? `/registry/${type.resource}`;
    this.prefix = base.endsWith('/') ? base : base + '/';
    this.apiVersion = apiVersionOf(type.group, type.version);
    this.filterFields = {
      'metadata.name': (o) => o.metadata?.name,
      ...(type.namespaced ? { 'metadata.namespace': (o: KubeObject) => o.metadata?.namespace } : {}),
      ...(type.strategy.fieldSelectors ?? {}),
    };
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

  /** The schema definitions the store checks bodies against. */
  get definitions(): SchemaDefinitions {
    return this.deps.definitions;
  }

  /** Is object `name` stored? */
  async exists(namespace: string | undefined, name: string): Promise<boolean> {
    return !!(await this.deps.backend.get(this.key(namespace, name)));
  }

  /** Storage key of one object. */
  key(namespace: string | undefined, name: string): string {
    return this.type.namespaced ? `${this.prefix}${namespace}/${name}` : `${this.prefix}${name}`;
  }

  private listPrefix(namespace: string | undefined): string {
    return this.type.namespaced && namespace ? `${this.prefix}${namespace}/` : this.prefix;
  }

  /** Decodes a stored value and stamps its resourceVersion. */
  decode(value: string, revision: number): KubeObject {
    const obj = JSON.parse(value) as KubeObject;
    meta(obj).resourceVersion = String(revision);
    this.type.strategy.decode?.(obj);
    return obj;
  }

  private fromKv(kv: StoredKv): KubeObject {
    return this.decode(valueText(kv), kv.modRevision);
  }

  /** Stored form: apiVersion, kind and metadata first (see withResourceVersion), no resourceVersion. */
  private encode(obj: KubeObject): string {
    const { apiVersion, kind, metadata, ...rest } = obj;
    const { resourceVersion: _rv, ...m } = meta(obj);
    return JSON.stringify({ apiVersion, kind, metadata: m, ...rest });
  }

  /** Can stored JSON be served as it is (no read-time transform)? */
  private get servesStoredJson(): boolean {
    return !this.type.strategy.decode && !this.type.customResource;
  }

  /** The JSON of a stored value as served: resourceVersion spliced in, or re-encoded when needed. */
  private servedJson(kv: KeyValue): string {
    if (this.servesStoredJson) {
      const fast = withResourceVersion(kv.value, kv.modRevision);
      if (fast !== undefined) return fast;
    }
    return JSON.stringify(this.fromKv(kv));
  }

  /** Writes the JSON of a stored value as served (see servedJson) without building it as one string. */
  private writeServed(out: JsonWriter, kv: StoredKv): void {
    const json = kv.value;
    if (typeof json !== 'string') {
      // Stored bytes: copied as they are around the resourceVersion (no UTF-8 decode nor encode).
      const at = this.servesStoredJson ? storedHeadLengthOfBytes(json) : 0;
      if (at === 0) {
        out.write(JSON.stringify(this.fromKv(kv)));
        return;
      }
      out.writeBytes(json, 0, at);
      out.write(`"resourceVersion":"${kv.modRevision}"${json[at] === 0x7d /* } */ ? '' : ','}`);
      out.writeBytes(json, at);
      return;
    }
    const at = this.servesStoredJson ? storedHeadLength(json) : 0;
    if (at === 0) {
      out.write(JSON.stringify(this.fromKv(kv)));
      return;
    }
    out.write(json.slice(0, at));
    out.write(`"resourceVersion":"${kv.modRevision}"${json[at] === '}' ? '' : ','}`);
    out.write(json.slice(at));
  }

  /**
   * Writes the PartialObjectMetadata (meta.k8s.io/v1) of a stored value, its metadata copied
   * from the stored JSON as it is, with the resourceVersion spliced in; falls back to decoding
   * when the stored JSON does not have the expected layout.
   */
  private writeServedMetadata(out: JsonWriter, kv: StoredKv): void {
    const json = kv.value;
    const bytes = typeof json !== 'string';
    const at = !this.servesStoredJson ? 0 : bytes ? storedHeadLengthOfBytes(json) : storedHeadLength(json);
    const end = at === 0 ? 0 : bytes ? objectEndOfBytes(json, at) : objectEnd(json, at);
    if (end === 0) {
      out.write(JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: this.fromKv(kv).metadata ?? {} }));
      return;
    }
    const empty = bytes ? json[at] === 0x7d /* } */ : json[at] === '}';
    out.write(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"${kv.modRevision}"${empty ? '' : ','}`);
    if (bytes) out.writeBytes(json, at, end);
    else out.write(json.slice(at, end));
    out.write('}');
  }

  /** GET as JSON text, without decoding and re-encoding the object when it can be avoided. */
  async getJson(namespace: string | undefined, name: string, resourceVersion?: string): Promise<string> {
    await this.waitForResourceVersion(resourceVersion);
    const kv = await this.deps.backend.get(this.key(namespace, name));
    if (!kv) throw this.notFound(name);
    return this.servedJson(kv);
  }

  /**
   * Waits until storage holds `resourceVersion` (a read's "not older than" bound): at once
   * when it does, else up to 3 s, then 504 Timeout (ResourceVersionTooLarge). "" and "0" mean
   * any version; a version that is not a number is a 400.
   */
  async waitForResourceVersion(resourceVersion: string | undefined): Promise<void> {
    const rv = parseResourceVersion(resourceVersion);
    if (rv > 0) await this.cache.waitForRevision(rv);
  }

  /**
   * LIST as JSON bytes, built from stored JSON without decoding the objects; undefined when
   * a selector needs the decoded objects (the caller then uses list()).
   */
  async listJson(namespace: string | undefined, opts: ListOptions = {}): Promise<Uint8Array | undefined> {
    if (!this.filter(opts).everything) return undefined;
    const page = await this.collect(namespace, opts, (kv) => kv);
    const listMeta: Record<string, string> = { resourceVersion: String(page.revision) };
    if (page.continue) listMeta.continue = page.continue;
    const out = new JsonWriter();
    out.write(`{"apiVersion":${JSON.stringify(this.apiVersion)},"kind":${JSON.stringify(this.type.listKind)},"metadata":${JSON.stringify(listMeta)},"items":[`);
    for (let i = 0; i < page.items.length; i++) {
      if (i > 0) out.write(',');
      this.writeServed(out, page.items[i]!);
    }
    out.write(']}');
    return out.take();
  }

  /**
   * LIST as JSON, written as it is read: `pageSize` stored objects at a time from one
   * consistent snapshot, each page encoded into byte chunks the caller takes before the next
   * page is read (a pull-based stream: a client that stops reading stops the reads). Items are
   * served from stored JSON (as stored bytes where the backend has listRaw); a selector
   * decodes each object to match it, yet writes the stored JSON of those that match. `form`
   * 'metadata' writes a PartialObjectMetadataList (meta.k8s.io/v1). A list that fits in its
   * first page comes back whole (`body`). A client `limit` above the page size is streamed
   * too; its list metadata (resourceVersion, continue), known only at the end, then follows
   * the items.
   */
  async listJsonStream(namespace: string | undefined, opts: ListOptions = {}, pageSize = LIST_STREAM_PAGE, form: ListForm = 'object'): Promise<{ body: Uint8Array } | { stream: AsyncGenerator<Uint8Array> }> {
    const filter = this.filter(opts);
    const accept = filter.everything ? (kv: StoredKv) => kv : (kv: StoredKv) => (filter.matches(this.fromKv(kv)) ? kv : undefined);
    const { backend } = this.deps;
    const read = this.servesStoredJson && backend.listRaw ? (prefix: string, o: StorageListOptions) => backend.listRaw!(prefix, o) : undefined;
    const limited = opts.limit !== undefined && opts.limit > 0;
    let left = limited ? opts.limit! : Infinity;
    const readPage = async (o: ListOptions): Promise<{ items: StoredKv[]; revision: number; continue?: string }> => {
      const page = await this.collect<StoredKv, StoredKv>(namespace, { ...o, limit: Math.min(pageSize, left) }, accept, read);
      left -= page.items.length;
      return page;
    };
    const head = form === 'metadata'
      ? '{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1",'
      : `{"apiVersion":${JSON.stringify(this.apiVersion)},"kind":${JSON.stringify(this.type.listKind)},`;
    const listMeta = (revision: number, token: string | undefined): string => JSON.stringify(token ? { resourceVersion: String(revision), continue: token } : { resourceVersion: String(revision) });
    const out = new JsonWriter();
    let wrote = false;
    const writeItems = (items: StoredKv[]): void => {
      for (const kv of items) {
        if (wrote) out.write(',');
        wrote = true;
        if (form === 'metadata') this.writeServedMetadata(out, kv);
        else this.writeServed(out, kv);
      }
    };
    // The first page sets the list's resourceVersion (and checks the options); later pages
    // read on at its revision through continue tokens, as a paged client would.
    const page = await readPage(opts);
    const { revision } = page;
    let token = page.continue;
    if (!token || left <= 0) {
      out.write(`${head}"metadata":${listMeta(revision, token)},"items":[`);
      writeItems(page.items);
      out.write(']}');
      return { body: out.take() };
    }
    out.write(limited ? `${head}"items":[` : `${head}"metadata":${listMeta(revision, undefined)},"items":[`);
    writeItems(page.items);
    const first = out.takeChunks();
    const stream = (async function* () {
      yield* first;
      while (token && left > 0) {
        const next = await readPage({ continue: token });
        token = next.continue;
        writeItems(next.items);
        yield* out.takeChunks();
      }
      out.write(limited ? `],"metadata":${listMeta(revision, token)}}` : ']}');
      yield* out.takeChunks();
    })();
    return { stream };
  }

  /**
   * LIST as pages of decoded objects that pass the selectors, `pageSize` stored objects read
   * at a time from one consistent snapshot, each page read when the caller asks for it (for
   * encodings built from objects, such as Table). The first page is read before this resolves
   * (so that a bad resourceVersion fails before a response starts); `more` tells whether more
   * pages follow it. With a client `limit`, the pages hold at most that many objects in all,
   * and `continue()` gives the list's continue token once the pages are read (undefined when
   * the list is complete).
   */
  async listPages(namespace: string | undefined, opts: ListOptions, pageSize = LIST_STREAM_PAGE): Promise<{ revision: number; more: boolean; pages: AsyncGenerator<KubeObject[]>; continue(): string | undefined }> {
    const filter = this.filter(opts);
    const accept = (kv: KeyValue): KubeObject | undefined => {
      const obj = this.fromKv(kv);
      return filter.matches(obj) ? obj : undefined;
    };
    const limited = opts.limit !== undefined && opts.limit > 0;
    let left = limited ? opts.limit! : Infinity;
    const read = async (o: ListOptions): Promise<{ items: KubeObject[]; revision: number; continue?: string }> => {
      // A client limit counts the matching objects; without one a page is `pageSize` stored ones.
      if (!limited) {
        const page = await this.collect(namespace, { ...o, limit: pageSize }, (kv) => kv);
        return { ...page, items: page.items.map(accept).filter((obj): obj is KubeObject => obj !== undefined) };
      }
      const page = await this.collect(namespace, { ...o, limit: Math.min(pageSize, left) }, accept);
      left -= page.items.length;
      return page;
    };
    const first = await read(opts);
    let token = first.continue;
    const pages = (async function* () {
      yield first.items;
      while (token && left > 0) {
        const next = await read({ continue: token });
        token = next.continue;
        yield next.items;
      }
    })();
    return { revision: first.revision, more: token !== undefined && left > 0, pages, continue: () => token };
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

  /** The 404 of object `name`. */
  notFound(name: string): ApiError {
    return notFound(this.type.group, this.type.resource, name);
  }

  /** Reads one object, at least as new as `resourceVersion` when one is given; 404 when absent. */
  async get(namespace: string | undefined, name: string, resourceVersion?: string): Promise<KubeObject> {
    await this.waitForResourceVersion(resourceVersion);
    const kv = await this.deps.backend.get(this.key(namespace, name));
    if (!kv) throw this.notFound(name);
    return this.fromKv(kv);
  }

  /** Compiles label and field selectors into one predicate (400 on bad input). */
  filter(opts: ListOptions): ListFilter {
    return compileListFilter(opts.labelSelector, opts.fieldSelector, this.filterFields, this.type);
  }

  /** Lists objects with selectors, pagination and resourceVersion semantics. */
  async list(namespace: string | undefined, opts: ListOptions = {}): Promise<KubeList> {
    const filter = this.filter(opts);
    const page = await this.collect(namespace, opts, (kv) => {
      const obj = this.fromKv(kv);
      return filter.matches(obj) ? obj : undefined;
    });
    const list: KubeList = {
      apiVersion: this.apiVersion,
      kind: this.type.listKind,
      metadata: { resourceVersion: String(page.revision) },
      items: page.items,
    };
    if (page.continue) list.metadata.continue = page.continue;
    return list;
  }

  /** Reads one page of a list: `accept` turns a stored value into an item, or undefined to skip it. */
  private async collect<T, K extends StoredKv = KeyValue>(
    namespace: string | undefined,
    opts: ListOptions,
    accept: (kv: K) => T | undefined,
    read?: (prefix: string, options: StorageListOptions) => Promise<{ items: K[]; revision: number; more: boolean }>,
  ): Promise<{ items: T[]; revision: number; continue?: string }> {
    const { backend } = this.deps;
    let revision = 0;
    let startAfter: string | undefined;
    const prefix = this.listPrefix(namespace);
    validateListOptions(opts);
    if (opts.continue) {
      const t = decodeContinue(opts.continue);
      revision = t.rv;
      startAfter = prefix + t.start;
    } else {
      // Not older than the version asked (Exact: that very version): wait for storage to reach it.
      const rv = parseResourceVersion(opts.resourceVersion);
      if (rv > 0) {
        await this.cache.waitForRevision(rv);
        if (opts.resourceVersionMatch === 'Exact') revision = rv;
      }
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const items: T[] = [];
    let more = false;
    let lastKey: string | undefined;
    try {
      for (;;) {
        // Later reads of a page whose first one fell short (a selector) read at least a few keys
        // each, not one by one; the continue token names the last key looked at, wherever it is.
        const batch = limit ? Math.max(limit - items.length, Math.min(limit, 100)) : 0;
        const listOptions = { revision: revision || undefined, limit: batch || undefined, startAfter };
        const page = read ? await read(prefix, listOptions) : ((await backend.list(prefix, listOptions)) as unknown as { items: K[]; revision: number; more: boolean });
        if (!revision) revision = page.revision;
        for (const kv of page.items) {
          lastKey = kv.key;
          const item = accept(kv);
          if (item !== undefined) items.push(item);
          if (limit && items.length >= limit) break;
        }
        if (limit && items.length >= limit) {
          more = page.more || lastKey !== page.items[page.items.length - 1]?.key;
          break;
        }
        if (!page.more || page.items.length === 0) break;
        startAfter = page.items[page.items.length - 1]!.key;
      }
    } catch (err) {
      // Only a continue token made up by hand names a revision storage has not reached.
      if (err instanceof FutureRevisionError) throw tooLargeResourceVersion(revision, await backend.currentRevision());
      if (err instanceof CompactedError) {
        if (opts.continue) {
          throw gone('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
        }
        throw gone(`The resourceVersion for the provided list is too old.`);
      }
      throw err;
    }
    return { items, revision, continue: more && lastKey ? encodeContinue(revision, lastKey.slice(prefix.length)) : undefined };
  }

  private resolvedSchema?: ReturnType<typeof resolveSchema>;
  /** The kind's schema, resolved. */
  schema() {
    // A store lives as long as its kind's definition: a changed CRD registers a new store.
    this.resolvedSchema ??= resolveSchema({ $ref: `#/components/schemas/${this.type.schemaName}` }, this.deps.definitions);
    return this.resolvedSchema;
  }

  /** Checks apiVersion/kind of a body, prunes unknown fields per fieldValidation. */
  admitBody(obj: KubeObject, opts: WriteOptions, expectedKind = this.type.kind, expectedApiVersion = this.apiVersion): void {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw badRequest('the body of the request must be a JSON object');
    if (obj.kind !== undefined && obj.kind !== expectedKind) {
      throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${expectedKind})`);
    }
    if (obj.apiVersion !== undefined && obj.apiVersion !== expectedApiVersion) {
      throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expectedApiVersion})`);
    }
    obj.kind = expectedKind;
    obj.apiVersion = expectedApiVersion;
    dropEmptyMetadata(obj);
    const schema = expectedKind === this.type.kind ? this.schema() : resolveSchema({ $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' }, this.deps.definitions);
    admitObject(obj, schema, this.deps.definitions, {
      kind: expectedKind,
      version: expectedApiVersion.split('/').pop()!,
      fieldValidation: opts.fieldValidation,
      warnings: opts.warnings,
      customResource: this.type.customResource && expectedKind === this.type.kind,
    });
  }

  private validate(obj: KubeObject, old: KubeObject | undefined, warnings?: string[], req?: WriteRequest): void {
    const m = meta(obj);
    const nameValidator = this.type.strategy.nameValidator;
    const customResource = this.type.customResource;
    const causes: StatusCause[] = old
      ? [...validateObjectMeta(m, { namespaced: this.type.namespaced, isCreate: false, nameValidator, customResource }), ...validateObjectMetaUpdate(m, meta(old))]
      : validateObjectMeta(m, { namespaced: this.type.namespaced, isCreate: true, nameValidator, customResource });
    causes.push(...(this.type.strategy.validate?.(obj, old, warnings, req) ?? []));
    if (causes.length) throw invalid(this.type.group, this.type.kind, m.name ?? m.generateName ?? '', causes);
    // A valid custom resource: kube-apiserver warns about the finalizers it adds without a domain.
    if (customResource && warnings) warnings.push(...finalizerWarnings(m.finalizers, old ? meta(old).finalizers : undefined));
  }

  /**
   * Runs both admission phases for a write the store does not make through create, update or
   * delete: a subresource whose body is another kind (pods/binding, pods/eviction). `object` is
   * the request's body, of `kind`; the mutating steps may change it.
   */
  async admitSubresource(
    operation: AdmissionOperation,
    subresource: string,
    namespace: string | undefined,
    name: string,
    object: KubeObject,
    kind: { group: string; version: string; kind: string },
    opts: { dryRun?: boolean; user?: UserInfo } = {},
  ): Promise<void> {
    const chain = this.deps.admission;
    if (!chain) return;
    const { group, version, resource } = this.type;
    const attrs: AdmissionAttributes = {
      operation,
      kind,
      resource: { group, version, resource },
      subresource,
      namespace: this.type.namespaced ? (namespace ?? '') : '',
      name,
      object,
      dryRun: !!opts.dryRun,
      user: opts.user,
    };
    await chain.admit(attrs);
    await chain.validate(attrs);
  }

  /** The attributes the admission chain sees of a write of this resource. */
  private admissionAttributes(
    operation: AdmissionOperation,
    subresource: string,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    opts: { dryRun?: boolean; user?: UserInfo; warnings?: string[]; audit?: (key: string, value: string) => void },
  ): AdmissionAttributes {
    const m = (object ?? oldObject)?.metadata ?? {};
    const { group, version, kind, resource } = this.type;
    return {
      operation,
      kind: { group, version, kind },
      resource: { group, version, resource },
      subresource,
      namespace: this.type.namespaced ? (m.namespace ?? '') : '',
      name: m.name ?? '',
      object,
      oldObject,
      dryRun: !!opts.dryRun,
      user: opts.user,
      warnings: opts.warnings,
      audit: opts.audit,
    };
  }

  private tracksGeneration(obj: KubeObject): boolean {
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
        const kv = await this.deps.backend.create(this.key(m.namespace, m.name!), this.encode(obj), this.storageOptions(obj));
        m.resourceVersion = String(kv.modRevision);
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
  private released(obj: KubeObject): boolean {
    const m = meta(obj);
    return !!m.deletionTimestamp && (m.finalizers ?? []).length === 0 && !m.deletionGracePeriodSeconds && !this.type.strategy.deletionHeld?.(obj);
  }

  /** The storage options of a write of obj: the kind's TTL, if it has one. */
  private storageOptions(obj: KubeObject): StorageWriteOptions | undefined {
    const ttlSeconds = this.type.strategy.ttlSeconds?.(obj, this.deps.context);
    return ttlSeconds === undefined ? undefined : { ttlSeconds };
  }

  /** 413 for an object too large to store (etcd refuses it too; kube-apiserver passes that on as a 500). */
  private tooLarge(name: string, err: ValueTooLargeError): ApiError {
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
   * Server-side apply: merges an applied configuration into the object (creating it when
   * absent), records the manager's Apply entry, and refuses conflicting changes to fields other
   * managers own unless forced (409 with one cause per field). See registry/apply.ts.
   */
  apply(namespace: string | undefined, name: string, config: KubeObject, opts: ApplyOptions = {}): Promise<{ object: KubeObject; created: boolean }> {
    return applyObject(this, namespace, name, config, opts);
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

/**
 * Does an update without a resourceVersion (or with "0") go through unconditionally? As
 * kube-apiserver's strategies answer AllowUnconditionalUpdate: yes for most built-in kinds; no
 * for custom resources, CustomResourceDefinitions and the kinds whose strategy says so.
 */
export function allowsUnconditionalUpdate(type: ResourceType): boolean {
  if (type.customResource) return false;
  return type.strategy.allowUnconditionalUpdate ?? true;
}
