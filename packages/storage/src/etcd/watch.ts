/**
 * One kplane watch = one etcd watch stream over the prefix's key range, from a revision, with
 * previous values and progress notifications. etcd replays history and then streams live, in
 * revision order without gaps; this turns its events into StorageEvents, buffers them (a slow
 * consumer never slows etcd or writers) and resumes a broken stream from the last revision
 * delivered (another member, same history), so the caller sees no gap and no duplicate.
 */
import type { IEvent, IKeyValue, IWatchResponse, IDuplexStream, IWatchRequest } from 'etcd3';
import { CompactedError, StorageError, type KeyValue, type StorageEvent } from '../backend.js';
import type { KeySpace } from './keys.js';

/** What a watch needs from its backend. */
export interface WatchContext {
  space: KeySpace;
  /** Opens a new etcd watch stream (on any member). */
  openStream(): Promise<IDuplexStream<IWatchRequest, IWatchResponse>>;
  /** Called with the compacted revision etcd reported. */
  sawCompaction(revision: number): void;
  /** Called with each progress notification's revision (no event up to it is still to come). */
  onProgress?(revision: number): void;
  /** With onProgress: how often to ask etcd for a progress notification (ms). */
  progressIntervalMs?: number;
  /** Called when a broken stream is about to be resumed (for stats). */
  onResume?(): void;
}

/** Converts an etcd key-value to the public shape. */
export function toKeyValue(space: KeySpace, kv: IKeyValue): KeyValue {
  return {
    key: space.fromEtcd(kv.key.toString('utf8')),
    value: kv.value.toString('utf8'),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

/**
 * Converts one etcd response's events to StorageEvents: drops bookkeeping keys and gives each
 * delete the final value written beside it in the same transaction (deleteWithFinalValue).
 */
export function toStorageEvents(space: KeySpace, events: IEvent[]): StorageEvent[] {
  const finals = new Map<string, string>();
  for (const ev of events) {
    const key = ev.kv.key.toString('utf8');
    if (space.isFinalValueKey(key) && !isDelete(ev)) finals.set(`${ev.kv.mod_revision}\n${key.slice(0, -1)}`, ev.kv.value.toString('utf8'));
  }
  const out: StorageEvent[] = [];
  for (const ev of events) {
    const etcdKey = ev.kv.key.toString('utf8');
    if (space.isFinalValueKey(etcdKey)) continue;
    const revision = Number(ev.kv.mod_revision);
    const prev = ev.prev_kv ? toKeyValue(space, ev.prev_kv) : undefined;
    if (isDelete(ev)) {
      const final = finals.get(`${revision}\n${etcdKey}`);
      const kv: KeyValue = {
        key: space.fromEtcd(etcdKey),
        value: final ?? prev?.value ?? '',
        createRevision: prev?.createRevision ?? 0,
        modRevision: revision,
      };
      out.push(prev ? { type: 'delete', kv, prevKv: prev, revision } : { type: 'delete', kv, revision });
      continue;
    }
    const kv = toKeyValue(space, ev.kv);
    if (kv.createRevision === kv.modRevision) out.push({ type: 'create', kv, revision });
    else out.push(prev ? { type: 'update', kv, prevKv: prev, revision } : { type: 'update', kv, revision });
  }
  return out;
}

function isDelete(ev: IEvent): boolean {
  return String(ev.type).toUpperCase() === 'DELETE';
}

/** An open watch the backend can close (on backend close). */
export interface WatchHandle {
  close(): void;
}

const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 2000;

/**
 * Streams every event under [start, end) with revision > afterRevision. Throws CompactedError
 * on the first `next` when afterRevision is below etcd's compacted revision (and later, if a
 * resumed stream finds its revision compacted). Returns when the signal aborts, the consumer
 * stops, or `register`'s handle is closed.
 */
export async function* watchRange(
  ctx: WatchContext,
  range: { start: Buffer; end: Buffer },
  afterRevision: number,
  signal: AbortSignal | undefined,
  register: (handle: WatchHandle) => () => void,
): AsyncGenerator<StorageEvent, void, undefined> {
  if (signal?.aborted) return;
  const buffer: StorageEvent[] = [];
  let head = 0;
  let failure: Error | undefined;
  let closed = false;
  let waiter: (() => void) | undefined;
  let last = afterRevision;
  let stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined;
  let retryMs = RETRY_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let progressTimer: NodeJS.Timeout | undefined;

  const wake = (): void => {
    const w = waiter;
    waiter = undefined;
    w?.();
  };
  let unregister = (): void => {};
  const close = (): void => {
    if (closed) return;
    closed = true;
    unregister();
    clearTimeout(retryTimer);
    clearInterval(progressTimer);
    stream?.cancel();
    wake();
  };
  const fail = (err: Error): void => {
    failure ??= err;
    close();
  };

  const open = async (): Promise<void> => {
    if (closed) return;
    let s: IDuplexStream<IWatchRequest, IWatchResponse>;
    try {
      s = await ctx.openStream();
    } catch (err) {
      return retry(err);
    }
    if (closed) {
      s.cancel();
      return;
    }
    stream = s;
    let broken = false;
    const lost = (err?: unknown): void => {
      if (broken || closed) return;
      broken = true;
      retry(err);
    };
    s.on('data', (res: IWatchResponse) => {
      if (closed || broken) return;
      const compacted = Number(res.compact_revision);
      if (compacted > 0) {
        ctx.sawCompaction(compacted);
        fail(new CompactedError(last, compacted));
        return;
      }
      if (res.canceled) {
        fail(new StorageError(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
        return;
      }
      retryMs = RETRY_MIN_MS;
      if (res.events.length === 0) {
        // A progress notification (etcd sends it once the watcher has caught up): every event
        // up to the header's revision has been delivered.
        if (!res.created) ctx.onProgress?.(Number(res.header.revision));
        return;
      }
      for (const event of toStorageEvents(ctx.space, res.events)) {
        if (event.revision <= last) continue;
        last = event.revision;
        buffer.push(event);
      }
      wake();
    });
    s.on('error', (err) => lost(err));
    s.on('end', () => lost());
    if (ctx.onProgress && ctx.progressIntervalMs && !progressTimer) {
      progressTimer = setInterval(() => {
        if (!closed) stream?.write({ progress_request: {} });
      }, ctx.progressIntervalMs);
      progressTimer.unref?.();
    }
    // Start at `last` itself (its events are dropped): etcd then reports compaction exactly
    // when last < the compacted revision, the contract's rule. Revision 0 would mean "now".
    s.write({
      create_request: {
        key: range.start,
        range_end: range.end,
        start_revision: Math.max(1, last),
        prev_kv: true,
        progress_notify: true,
      },
    });
  };

  const retry = (err: unknown): void => {
    stream = undefined;
    if (closed) return;
    if (err && process.env.KPLANE_DEBUG_ETCD) console.error('kplane: etcd watch stream lost, resuming:', err);
    ctx.onResume?.();
    retryTimer = setTimeout(() => void open(), retryMs);
    retryTimer.unref?.();
    retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
  };

  unregister = register({ close });
  const onAbort = (): void => close();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await open();
    for (;;) {
      if (head < buffer.length) {
        const event = buffer[head];
        buffer[head++] = undefined as unknown as StorageEvent;
        if (head === buffer.length) {
          buffer.length = 0;
          head = 0;
        } else if (head > 1024 && head * 2 > buffer.length) {
          buffer.splice(0, head);
          head = 0;
        }
        yield event;
        continue;
      }
      if (failure) throw failure;
      if (closed) return;
      await new Promise<void>((resolve) => {
        waiter = resolve;
      });
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    unregister();
    close();
  }
}
