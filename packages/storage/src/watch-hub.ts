/**
 * Fan-out of committed writes to watchers, and the replay-then-live watch loop every driver uses.
 *
 * Guarantees:
 * - `publish` never blocks and never awaits: each subscription has its own unbounded buffer,
 *   so a slow consumer costs memory, not writer latency.
 * - `runWatch` subscribes before it reads history and drops live events whose revision it has
 *   already yielded, so the stream has no gap and no duplicate across the replay/live seam.
 *
 * Caveats:
 * - Only writes published to this hub are seen live: a second process writing the same
 *   database file is invisible to watchers of this process.
 */
import { CompactedError, type StorageEvent } from './backend.js';

/** A watcher's buffer of live events. */
export interface Subscription {
  /** Takes the oldest buffered event, if any. */
  shift(): StorageEvent | undefined;
  /** Resolves when an event arrives or the subscription closes. */
  wait(): Promise<void>;
  /** True once closed (by the hub, an abort, or unsubscribe). */
  readonly closed: boolean;
  /** Stops delivery and wakes a pending wait. */
  close(): void;
}

/** The fan-out point a driver publishes its committed writes to. */
export interface WatchHub {
  /** Delivers a committed event to every subscription whose prefix matches its key. */
  publish(event: StorageEvent): void;
  /** Starts buffering events under prefix. */
  subscribe(prefix: string): Subscription;
  /** Closes every subscription (their watch loops then return). */
  closeAll(): void;
  /** How many subscriptions are open (for tests and metrics). */
  size(): number;
}

class Buffered implements Subscription {
  /** Buffered events; the slots before `head` were read and are released (undefined). */
  private items: (StorageEvent | undefined)[] = [];
  private head = 0;
  private waiter: (() => void) | undefined;
  closed = false;

  constructor(readonly prefix: string, private readonly onClose: (s: Buffered) => void) {}

  push(event: StorageEvent): void {
    if (this.closed) return;
    this.items.push(event);
    this.wake();
  }

  shift(): StorageEvent | undefined {
    if (this.head >= this.items.length) return undefined;
    const event = this.items[this.head];
    // A read event is released at once: it may be large, and the consumer may hold it no longer.
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
      return event;
    }
    // Drop the consumed part now and then so the array does not grow forever.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return event;
  }

  wait(): Promise<void> {
    if (this.closed || this.head < this.items.length) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.items = [];
    this.head = 0;
    this.onClose(this);
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

/** Creates an empty hub. */
export function createWatchHub(): WatchHub {
  const subs = new Set<Buffered>();
  const remove = (s: Buffered): void => {
    subs.delete(s);
  };
  return {
    publish(event) {
      for (const s of subs) {
        if (event.kv.key.startsWith(s.prefix)) s.push(event);
      }
    },
    subscribe(prefix) {
      const s = new Buffered(prefix, remove);
      subs.add(s);
      return s;
    },
    closeAll() {
      for (const s of [...subs]) s.close();
    },
    size() {
      return subs.size;
    },
  };
}

/** What runWatch needs from a driver. */
export interface WatchSource {
  hub: WatchHub;
  /** The current compacted revision. */
  compactedRevision(): number | Promise<number>;
  /** Up to `limit` logged events under prefix with revision > after, in revision order. */
  readEvents(prefix: string, after: number, limit: number): StorageEvent[] | Promise<StorageEvent[]>;
  /** Throws when the backend is closed. */
  assertOpen(): void;
}

/** Replay batch size: history is read in pages so a long replay does not load all at once. */
const REPLAY_BATCH = 1000;

/**
 * Streams every event under prefix with revision > afterRevision: first from the log, then
 * live. Throws CompactedError (on the first `next`) when afterRevision < the compacted
 * revision, or when compaction overtakes a replay in progress. Returns when the signal
 * aborts, the consumer stops iterating, or the backend closes.
 */
export async function* runWatch(
  source: WatchSource,
  prefix: string,
  afterRevision: number,
  signal?: AbortSignal,
): AsyncGenerator<StorageEvent, void, undefined> {
  source.assertOpen();
  if (signal?.aborted) return;
  const sub = source.hub.subscribe(prefix);
  const onAbort = (): void => sub.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let last = afterRevision;
    for (;;) {
      const compacted = await source.compactedRevision();
      if (last < compacted) throw new CompactedError(last, compacted);
      const batch = await source.readEvents(prefix, last, REPLAY_BATCH);
      for (const event of batch) {
        if (sub.closed) return;
        last = event.revision;
        yield event;
      }
      if (batch.length < REPLAY_BATCH) break;
    }
    for (;;) {
      if (sub.closed) return;
      const event = sub.shift();
      if (event === undefined) {
        await sub.wait();
        continue;
      }
      if (event.revision <= last) continue;
      last = event.revision;
      yield event;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    sub.close();
  }
}
