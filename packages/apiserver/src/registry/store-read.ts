import type { KubeList, KubeObject } from '@kplane/api';
import { gone } from '@kplane/api';
import type { KeyValue, ListOptions as StorageListOptions } from '@kplane/storage';
import { CompactedError, FutureRevisionError } from '@kplane/storage';
import { tooLargeResourceVersion } from './watch-cache.js';
import { decodeContinue, encodeContinue, parseResourceVersion, validateListOptions } from './read-options.js';
import { JsonWriter, objectEnd, objectEndOfBytes, storedHeadLength, storedHeadLengthOfBytes, withResourceVersion } from './json-writer.js';
import { compileListFilter, type ListFilter } from './filter.js';
import { StoreCore } from './store-core.js';
import { LIST_STREAM_PAGE, type ListForm, type ListOptions, type StoredKv } from './store-types.js';

/**
 * The reads of a Store: GET and LIST, as decoded objects or as JSON written from the stored
 * values (whole, streamed, or in pages), at the resourceVersion asked.
 */
export abstract class StoreReads extends StoreCore {
  /** The JSON of a stored value as served: resourceVersion spliced in, or re-encoded when needed. */
  private servedJson(kv: KeyValue): string {
    if (this.servesStoredJson) {
      const fast = withResourceVersion(kv.value, kv.modRevision);
      if (fast !== undefined) return fast;
    }
    return JSON.stringify(this.fromKv(kv));
  }

  /** Writes the JSON of a stored value as served (see servedJson) without building it as one string. */
  protected writeServed(out: JsonWriter, kv: StoredKv): void {
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
  protected writeServedMetadata(out: JsonWriter, kv: StoredKv): void {
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
  protected async collect<T, K extends StoredKv = KeyValue>(
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
}
