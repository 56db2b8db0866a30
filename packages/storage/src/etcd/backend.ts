/**
 * The etcd v3 driver: kplane's Backend on an etcd cluster, the store Kubernetes itself runs on.
 *
 * - resourceVersion is etcd's mod revision; the store's revision is etcd's revision (shared by
 *   everything in that etcd).
 * - create is a transaction on create revision == 0; update, delete and deleteWithFinalValue
 *   are transactions on the key's mod revision (Conflict when it moved).
 * - reads and lists are linearizable etcd ranges, at a revision when asked (consistent pages);
 * - watch is an etcd watch from a revision (with previous values and progress notifications);
 * - compact is etcd's compact; reads and watches below it get CompactedError (410).
 * - TTLs are kept as bookkeeping keys written in the key's own transaction and enforced by
 *   `expireKeys` on the backend's clock, so every API server sharing the etcd agrees on them.
 * Key layout: see keys.ts.
 */
import type { Etcd3, ICompare, IDuplexStream, IRequestOp, IResponseOp, ITxnResponse, IKeyValue, IWatchRequest, IWatchResponse } from 'etcd3';
import {
  BackendClosedError,
  CompactedError,
  FutureRevisionError,
  MAX_VALUE_BYTES,
  StorageError,
  ValueTooLargeError,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type RawListResult,
  type StorageEvent,
  type WatchOptions,
  type WriteOptions,
} from '../backend.js';
import { checkValueSize, futureCompaction, keyExists, keyNotFound, revisionMismatch } from '../log.js';
import { classify, connect } from './client.js';
import type { EtcdConnectionOptions } from './options.js';
import { DEFAULT_PREFIX, KeySpace, rangeEnd } from './keys.js';
import { toKeyValue, watchRange, type WatchHandle } from './watch.js';

const EMPTY = Buffer.alloc(0);

/** Options of the etcd driver. */
export interface EtcdBackendOptions extends EtcdConnectionOptions {
  /** What replaces the leading `/registry` of kplane's keys (kube-apiserver's --etcd-prefix); default `/registry`. */
  prefix?: string;
  /** A string put before every key, to keep several stores apart in one etcd (default none). */
  namespace?: string;
  /** The clock TTLs are measured with (ms since the epoch; default Date.now). */
  now?: () => number;
  /** Largest value in UTF-8 bytes (default MAX_VALUE_BYTES); etcd's --max-request-bytes must allow it. */
  maxValueBytes?: number;
  /** How often a watch with `onProgress` asks etcd for a progress notification, in ms (default 5000). */
  progressIntervalMs?: number;
}

const EQUAL = 0;
const GREATER = 1;
const TARGET_VERSION = 0;
const TARGET_CREATE = 1;
const TARGET_MOD = 2;

const buf = (s: string): Buffer => Buffer.from(s, 'utf8');

/** The part of etcd3's connection pool a raw watch stream needs. */
interface WatchPool {
  withConnection(
    service: 'Watch',
    fn: (connection: { client: { watch(metadata: unknown, options: object): IDuplexStream<IWatchRequest, IWatchResponse> }; metadata: unknown }) => IDuplexStream<IWatchRequest, IWatchResponse>,
  ): Promise<IDuplexStream<IWatchRequest, IWatchResponse>>;
}

/** A Backend on etcd. */
export class EtcdBackend implements Backend {
  private readonly client: Etcd3;
  private readonly space: KeySpace;
  private readonly now: () => number;
  private readonly maxValueBytes: number;
  private readonly progressIntervalMs: number;
  private closed = false;
  private knownCompacted = 0;
  private readonly watches = new Set<WatchHandle>();
  /** Final-value keys (by data key) this backend wrote and has not removed yet, with a write generation. */
  private readonly pendingFinals = new Map<string, number>();
  private generation = 0;
  private resumedStreams = 0;
  /** The last write in flight per key (see txn). */
  private readonly keyQueue = new Map<string, Promise<void>>();

  constructor(options: EtcdBackendOptions) {
    this.client = connect(options);
    this.space = new KeySpace(options.namespace ?? '', options.prefix ?? DEFAULT_PREFIX);
    this.now = options.now ?? Date.now;
    this.maxValueBytes = options.maxValueBytes ?? MAX_VALUE_BYTES;
    this.progressIntervalMs = options.progressIntervalMs ?? 5000;
  }

  /** Checks the cluster answers, learns its compacted revision, and removes final-value keys a crashed writer left. */
  async open(): Promise<this> {
    await this.currentRevision();
    await this.refreshCompacted();
    const strays = await this.client.kv.range({ key: buf(this.space.finalRoot), range_end: rangeEndOf(this.space.finalRoot), keys_only: true });
    for (const kv of strays.kvs) this.pendingFinals.set(this.space.fromFinalMarker(kv.key.toString('utf8')), 0);
    if (this.pendingFinals.size > 0) await this.txn([], [], []);
    return this;
  }

  /** Counters: watch streams now open, and broken streams resumed since the backend opened. */
  stats(): { watches: number; resumedStreams: number } {
    return { watches: this.watches.size, resumedStreams: this.resumedStreams };
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    const res = await this.call(() => this.client.kv.range({ key: buf(this.space.ttlRoot), count_only: true }));
    return Number(res.header.revision);
  }

  async compactedRevision(): Promise<number> {
    this.assertOpen();
    return this.knownCompacted;
  }

  async get(key: string, revision?: number): Promise<KeyValue | null> {
    this.assertOpen();
    const res = await this.call(() => this.client.kv.range({ key: buf(this.space.toEtcd(key)), revision: revision || 0 }), revision);
    return res.kvs.length ? toKeyValue(this.space, res.kvs[0]) : null;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return this.listWith(prefix, options, (kv) => toKeyValue(this.space, kv));
  }

  /** list with the values as etcd's bytes (no UTF-8 decode). */
  async listRaw(prefix: string, options: ListOptions = {}): Promise<RawListResult> {
    return this.listWith(prefix, options, (kv) => ({ ...toKeyValue(this.space, { ...kv, value: EMPTY }), value: kv.value }));
  }

  private async listWith<T>(prefix: string, options: ListOptions, convert: (kv: IKeyValue) => T): Promise<{ items: T[]; revision: number; more: boolean; remaining?: number }> {
    this.assertOpen();
    const { start, end } = this.space.range(prefix);
    let from = start;
    if (options.startAfter !== undefined) {
      const after = Buffer.concat([buf(this.space.toEtcd(options.startAfter)), Buffer.from([0, 0])]);
      if (Buffer.compare(after, from) > 0) from = after;
    }
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    let revision = options.revision || 0;
    if (end.length > 1 || end[0] !== 0) {
      if (Buffer.compare(from, end) >= 0) {
        const rev = revision || (await this.currentRevision());
        return { items: [], revision: rev, more: false, remaining: 0 };
      }
    }
    const items: T[] = [];
    let more = false;
    let count = 0;
    let hidden = 0;
    // A page may hold final-value keys (filtered out): read on until the page is full.
    for (;;) {
      const want = limit ? limit - items.length : 0;
      const res = await this.call(() => this.client.kv.range({ key: from, range_end: end, revision, limit: want }), options.revision);
      revision = Number(res.header.revision);
      if (options.revision) revision = options.revision;
      if (items.length === 0) count = Number(res.count);
      for (const kv of res.kvs) {
        const etcdKey = kv.key.toString('utf8');
        if (this.space.isFinalValueKey(etcdKey)) hidden++;
        else items.push(convert(kv));
      }
      more = res.more;
      if (!more || !limit || items.length >= limit || res.kvs.length === 0) break;
      from = Buffer.concat([res.kvs[res.kvs.length - 1].key, Buffer.from([0])]);
    }
    const result: { items: T[]; revision: number; more: boolean; remaining?: number } = { items, revision, more };
    if (!more) result.remaining = 0;
    else if (options.countRemaining) result.remaining = Math.max(0, count - items.length - hidden - (await this.hiddenAfter(from, end, revision)));
    return result;
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    const { start, end } = this.space.range(prefix);
    const finals = this.space.finalRoot + this.space.toEtcd(prefix).slice(this.space.namespace.length);
    // One read-only transaction: both counts at the same revision.
    const res = await this.call(() =>
      this.client.kv.txn({
        success: [
          { request_range: { key: start, range_end: end, count_only: true } },
          { request_range: { key: buf(finals), range_end: rangeEndOf(finals), count_only: true } },
        ],
      }),
    );
    return Number(res.responses[0].response_range.count) - Number(res.responses[1].response_range.count);
  }

  async create(key: string, value: string, options: WriteOptions = {}): Promise<KeyValue> {
    this.assertOpen();
    checkValueSize(key, value, this.maxValueBytes);
    const k = this.space.toEtcd(key);
    const res = await this.txn(
      [{ key: buf(k), target: TARGET_CREATE, result: EQUAL, create_revision: 0 }],
      [{ request_put: { key: buf(k), value: buf(value) } }, ...this.ttlOps(k, options.ttlSeconds)],
      [],
      key,
    );
    if (!res.succeeded) throw keyExists(key);
    const rev = Number(res.header.revision);
    return { key, value, createRevision: rev, modRevision: rev };
  }

  async update(key: string, value: string, expectedRevision: number, options: WriteOptions = {}): Promise<KeyValue> {
    this.assertOpen();
    checkValueSize(key, value, this.maxValueBytes);
    const k = this.space.toEtcd(key);
    const res = await this.txn(
      this.atRevision(k, expectedRevision),
      [{ request_put: { key: buf(k), value: buf(value), prev_kv: true } }, ...this.ttlOps(k, options.ttlSeconds)],
      [{ request_range: { key: buf(k) } }],
      key,
    );
    if (!res.succeeded) throw this.writeFailure(key, expectedRevision, res);
    const prev = res.responses[0].response_put.prev_kv as IKeyValue;
    return { key, value, createRevision: Number(prev.create_revision), modRevision: Number(res.header.revision) };
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    this.assertOpen();
    const k = this.space.toEtcd(key);
    const compare: ICompare[] =
      expectedRevision === undefined ? [{ key: buf(k), target: TARGET_VERSION, result: GREATER, version: 0 }] : this.atRevision(k, expectedRevision);
    const res = await this.txn(
      compare,
      [{ request_delete_range: { key: buf(k), prev_kv: true } }],
      [{ request_range: { key: buf(k) } }],
      key,
    );
    if (!res.succeeded) throw this.writeFailure(key, expectedRevision ?? 0, res);
    const prev = toKeyValue(this.space, res.responses[0].response_delete_range.prev_kvs[0]);
    return { ...prev, modRevision: Number(res.header.revision) };
  }

  async deleteWithFinalValue(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    this.assertOpen();
    checkValueSize(key, value, this.maxValueBytes);
    const k = this.space.toEtcd(key);
    const res = await this.txn(
      this.atRevision(k, expectedRevision),
      [
        // The final value first: a watcher meets it before the delete it belongs to.
        { request_put: { key: buf(this.space.finalValueKey(k)), value: buf(value) } },
        { request_put: { key: buf(this.space.finalMarkerKey(k)), value: Buffer.alloc(0) } },
        { request_delete_range: { key: buf(k), prev_kv: true } },
      ],
      [{ request_range: { key: buf(k) } }],
      key,
    );
    if (!res.succeeded) throw this.writeFailure(key, expectedRevision, res);
    this.pendingFinals.set(k, ++this.generation);
    const prev = res.responses[2].response_delete_range.prev_kvs[0];
    return { key, value, createRevision: Number(prev.create_revision), modRevision: Number(res.header.revision) };
  }

  async expireKeys(): Promise<number> {
    this.assertOpen();
    const now = this.now();
    const due = await this.call(() => this.client.kv.range({ key: buf(`${this.space.ttlRoot}/`), range_end: buf(this.space.ttlDueEnd(now)) }));
    let deleted = 0;
    const stale: ICompare[] = [];
    const staleOps: IRequestOp[] = [];
    for (const entry of due.kvs) {
      const { key: k } = this.space.fromTtlKey(entry.key.toString('utf8'));
      // The entry holds while the key's last write is the one that wrote it (same revision).
      const out = await this.txn(
        [{ key: buf(k), target: TARGET_MOD, result: EQUAL, mod_revision: entry.mod_revision }],
        [{ request_delete_range: { key: buf(k) } }, { request_delete_range: { key: entry.key } }],
        [],
        this.space.fromEtcd(k),
      );
      if (out.succeeded) deleted++;
      else {
        stale.push({ key: entry.key, target: TARGET_MOD, result: EQUAL, mod_revision: entry.mod_revision });
        staleOps.push({ request_delete_range: { key: entry.key } });
      }
    }
    // Entries of keys written again or deleted since: dropped together, a write per 100
    // (etcd allows 128 operations in a transaction by default).
    for (let i = 0; i < staleOps.length; i += 100) {
      await this.call(() => this.client.kv.txn({ compare: stale.slice(i, i + 100), success: staleOps.slice(i, i + 100) }));
    }
    return deleted;
  }

  watch(prefix: string, afterRevision: number, signal?: AbortSignal, options: WatchOptions = {}): AsyncIterable<StorageEvent> {
    this.assertOpen();
    return watchRange(
      {
        space: this.space,
        onResume: () => void this.resumedStreams++,
        ...(options.onProgress ? { onProgress: options.onProgress, progressIntervalMs: this.progressIntervalMs } : {}),
        openStream: () => this.openWatchStream(),
        sawCompaction: (rev) => {
          this.knownCompacted = Math.max(this.knownCompacted, rev);
        },
      },
      this.space.range(prefix),
      afterRevision,
      signal,
      (handle) => {
        this.watches.add(handle);
        return () => this.watches.delete(handle);
      },
    );
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    try {
      await this.client.kv.compact({ revision });
      this.knownCompacted = Math.max(this.knownCompacted, revision);
    } catch (err) {
      const kind = classify(err);
      if (kind === 'future') throw futureCompaction(revision, await this.currentRevision());
      if (kind === 'compacted') {
        await this.refreshCompacted();
        return;
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pendingFinals.size > 0) {
      const timeout = new Promise((resolve) => setTimeout(resolve, 2000).unref());
      await Promise.race([this.txn([], [], []).catch(() => undefined), timeout]);
    }
    this.closed = true;
    for (const w of [...this.watches]) w.close();
    this.client.close();
  }

  /**
   * A raw watch stream from the client's connection pool. Not etcd3's WatchClient.watch: that
   * one reports every stream error to the pool as a failure of the member, including the
   * CANCELLED of a watch this driver ends itself, and the pool then closes every connection
   * to that member (all other watches and calls in flight) and counts it towards opening its
   * circuit breaker. A broken stream is resumed by watch.ts instead.
   */
  private openWatchStream(): Promise<IDuplexStream<IWatchRequest, IWatchResponse>> {
    const pool = (this.client as unknown as { pool: WatchPool }).pool;
    return pool.withConnection('Watch', ({ client, metadata }) => client.watch(metadata, {}));
  }

  private assertOpen(): void {
    if (this.closed) throw new BackendClosedError();
  }

  /** Compares that hold when the key exists with this mod revision. */
  private atRevision(k: string, expected: number): ICompare[] {
    return [
      { key: buf(k), target: TARGET_VERSION, result: GREATER, version: 0 },
      { key: buf(k), target: TARGET_MOD, result: EQUAL, mod_revision: expected },
    ];
  }

  /** The TTL entry a write adds (in its own transaction); a write without TTL adds none, which leaves older entries stale. */
  private ttlOps(k: string, ttlSeconds: number | undefined): IRequestOp[] {
    if (ttlSeconds === undefined) return [];
    return [{ request_put: { key: buf(this.space.ttlKey(k, this.now() + ttlSeconds * 1000)), value: Buffer.alloc(0) } }];
  }

  /** Why a guarded write failed, from the failure branch's read of the key. */
  private writeFailure(key: string, expected: number, res: ITxnResponse): Error {
    const range = (res.responses[0] as IResponseOp | undefined)?.response_range;
    if (!range || range.kvs.length === 0) return keyNotFound(key);
    return revisionMismatch(key, expected, toKeyValue(this.space, range.kvs[0]));
  }

  /**
   * Runs a write transaction. Its success branch also removes the final-value keys earlier
   * deletes left (no extra revision: same transaction); with no ops at all it is just that
   * cleanup.
   */
  private async txn(compare: ICompare[], success: IRequestOp[], failure: IRequestOp[], key?: string): Promise<ITxnResponse> {
    if (key === undefined) return this.runTxn(compare, success, failure);
    // Writes to one key reach etcd in call order (as with the other drivers): a write waits
    // for the one before it on the same key.
    const before = this.keyQueue.get(key);
    const run = (before ?? Promise.resolve()).then(
      () => this.runTxn(compare, success, failure, key),
      () => this.runTxn(compare, success, failure, key),
    );
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.keyQueue.set(key, settled);
    void settled.then(() => {
      if (this.keyQueue.get(key) === settled) this.keyQueue.delete(key);
    });
    return run;
  }

  private async runTxn(compare: ICompare[], success: IRequestOp[], failure: IRequestOp[], key?: string): Promise<ITxnResponse> {
    const cleanup: IRequestOp[] = [];
    const taken: Array<[string, number]> = [];
    const written = new Set(success.map((op) => (op.request_put?.key ?? op.request_delete_range?.key)?.toString('utf8')));
    for (const [k, gen] of this.pendingFinals) {
      const finalKey = this.space.finalValueKey(k);
      const marker = this.space.finalMarkerKey(k);
      if (written.has(finalKey) || written.has(marker)) continue;
      cleanup.push({ request_delete_range: { key: buf(finalKey) } }, { request_delete_range: { key: buf(marker) } });
      taken.push([k, gen]);
      if (taken.length >= 50) break;
    }
    if (success.length === 0 && cleanup.length === 0) {
      return { succeeded: true, responses: [], header: { revision: '0' } } as unknown as ITxnResponse;
    }
    const res = await this.call(() => this.client.kv.txn({ compare, success: [...success, ...cleanup], failure }), undefined, key);
    if (res.succeeded) {
      for (const [k, gen] of taken) if (this.pendingFinals.get(k) === gen) this.pendingFinals.delete(k);
    }
    return res;
  }

  /** Runs an etcd call, turning etcd's errors into storage errors. */
  private async call<T>(fn: () => Promise<T>, revision?: number, key?: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const kind = classify(err);
      if (kind === 'compacted' && revision !== undefined) {
        await this.refreshCompacted();
        throw new CompactedError(revision, this.knownCompacted);
      }
      if (kind === 'future' && revision !== undefined) {
        throw new FutureRevisionError(`required revision ${revision} is a future revision (current revision ${await this.currentRevision()})`);
      }
      if (kind === 'too-large') throw new ValueTooLargeError(key ?? '', this.maxValueBytes + 1, this.maxValueBytes);
      throw err;
    }
  }

  /**
   * Learns etcd's compacted revision, which its API does not report directly: a read at a
   * revision below it fails, so a binary search over [known, current] finds it (a handful of
   * count-only reads, done when opening and when a read hits compaction).
   */
  private async refreshCompacted(): Promise<void> {
    const probe = async (rev: number): Promise<boolean> => {
      try {
        await this.client.kv.range({ key: buf(this.space.ttlRoot), count_only: true, revision: rev });
        return true;
      } catch (err) {
        if (classify(err) === 'compacted') return false;
        throw err;
      }
    };
    // Reads at `good` work (etcd keeps the compacted revision itself readable), at `bad` fail.
    let bad = Math.max(1, this.knownCompacted);
    if (await probe(bad)) return;
    let good = await this.currentRevision();
    while (good - bad > 1) {
      const mid = Math.floor((bad + good) / 2);
      if (await probe(mid)) good = mid;
      else bad = mid;
    }
    this.knownCompacted = Math.max(this.knownCompacted, good);
  }

  /** Counts final-value keys in [from, end) at revision (for `remaining`). */
  private async hiddenAfter(from: Buffer, end: Buffer, revision: number): Promise<number> {
    if (this.pendingFinals.size === 0) return 0;
    const res = await this.client.kv.range({ key: from, range_end: end, revision, keys_only: true });
    return res.kvs.filter((kv) => this.space.isFinalValueKey(kv.key.toString('utf8'))).length;
  }
}

function rangeEndOf(prefix: string): Buffer {
  return rangeEnd(buf(prefix));
}

/** Opens an etcd backend and checks that the cluster answers. */
export async function createEtcdBackend(options: EtcdBackendOptions): Promise<EtcdBackend> {
  const backend = new EtcdBackend(options);
  try {
    return await backend.open();
  } catch (err) {
    await backend.close().catch(() => undefined);
    if (err instanceof StorageError) throw err;
    throw new StorageError(`cannot reach etcd at ${options.endpoints.join(',')}: ${(err as Error).message}`);
  }
}
