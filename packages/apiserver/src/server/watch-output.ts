/**
 * The output side of a watch: the chunks encoded for one client, waiting to be written, and
 * how they reach it. In-process clients pull them (an async iterator); the HTTPS server has
 * them pushed: every watch with something to write is flushed in one pass per event-loop turn
 * (one `setImmediate` for all), each writing what it holds as one chunk, so a turn costs one
 * write per watcher however many events it brought, and HTTP/2 sends the turn's DATA frames of
 * a connection together.
 */
import type { WatchEvent } from '@kplane/api';

/** Where a pushed stream writes (the HTTP response). */
export interface PushTarget {
  /** Takes a chunk for the client: false when the client must read first (the stream then waits for `ready()`). */
  write(chunk: Uint8Array): boolean;
  /** The stream is over (called once: after its last write, or after `cancel()`). */
  end(): void;
}

/** What the writer of a pushed stream tells it. */
export interface PushControl {
  /** The client took what was written (its buffer drained): writing goes on. */
  ready(): void;
  /** The client went away: the stream stops, drops what it held, then calls `end()`. */
  cancel(): void;
}

/** The method by which a stream that can be pushed is attached to its target (instead of being iterated). */
export const PUSH_TO: unique symbol = Symbol('kplane.pushTo');

/** A response stream that can also be pushed to a target. */
export interface PushableStream extends AsyncIterable<Uint8Array> {
  [PUSH_TO](target: PushTarget): PushControl;
}

/** Can `stream` be pushed (rather than iterated)? */
export function isPushable(stream: AsyncIterable<Uint8Array> | undefined): stream is PushableStream {
  return !!stream && typeof (stream as Partial<PushableStream>)[PUSH_TO] === 'function';
}

/**
 * `stream` with `onEnd` called once when it is over (read to its end, or its client gone),
 * pushable still when `stream` is.
 */
export function withStreamEnd(stream: AsyncIterable<Uint8Array>, onEnd: () => void): AsyncIterable<Uint8Array> {
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    onEnd();
  };
  const pulled = withIterationEnd(stream, once);
  if (!isPushable(stream)) return pulled;
  const wrapped: PushableStream = {
    [Symbol.asyncIterator]: () => pulled,
    [PUSH_TO]: (target) =>
      stream[PUSH_TO]({
        write: (chunk) => target.write(chunk),
        end: () => {
          once();
          target.end();
        },
      }),
  };
  return wrapped;
}

/** `items` with `onEnd` called when the iteration is over (read to its end, or its reader gone). */
export async function* withIterationEnd<T>(items: AsyncIterable<T>, onEnd: () => void): AsyncGenerator<T> {
  try {
    yield* items;
  } finally {
    onEnd();
  }
}

/** Where the chunks waiting for their clients are counted, over many watches. */
export interface WatchDeliveries {
  queued: number;
}

/**
 * An output's buffer: the producer stops (initial events, or changes from the watch cache,
 * where the watcher's lag is bounded) while this many chunks or bytes wait for the client.
 * Chunks are up to 64 KiB for initial events, one event for changes.
 */
export const WATCH_BUFFER_CHUNKS = 64;
export const WATCH_BUFFER_BYTES = 1024 * 1024;

/** Most bytes of queued events joined into one chunk for the client. */
export const WATCH_BATCH_BYTES = 64 * 1024;

/** Chunks of this many bytes or more are written as they are, never joined with others (a copy costs more than a write). */
export const JOIN_BELOW = 8 * 1024;

/** The tasks of the next flush pass (a Set: a task scheduled twice runs once). */
let due = new Set<() => void>();
let scheduled = false;
/**
 * The chunks joined in this pass, by their first part: watchers that have the same events to
 * write (the same shared encodings, in the same order) write the same joined bytes.
 */
let joins = new Map<Uint8Array, { parts: Uint8Array[]; joined: Uint8Array }[]>();

/** What watches computed in this pass for others to reuse (see `passMemo`). */
let memos = new Map<object, Map<string, unknown>>();

/**
 * A pass is followed by a pause of up to this many times its own duration (capped at
 * MAX_PASS_GAP_MS) before the next: a big fan-out (thousands of watches, each a write per pass)
 * then takes at most a third of the loop, the rest going to requests and to clients reading,
 * and each pass brings more events per write. A pass of a few watches is followed at once.
 */
export const PASS_GAP_FACTOR = 2;
/**
 * Passes of at most this many watches are followed at once, however long they took: a pass of
 * one watch writing a megabyte of initial events is long, but pausing after it would only slow
 * that stream (an informer's first list) without giving the loop to anyone else's benefit.
 */
export const GAP_AFTER_WATCHES = 32;
/** Longest pause between two flush passes (ms): what the pause adds to a watch event's latency at most. */
export const MAX_PASS_GAP_MS = 20;
/** The pause (ms) after a pass of `watches` watches that took `passMs`. */
export function gapAfterPass(watches: number, passMs: number): number {
  return watches > GAP_AFTER_WATCHES ? Math.min(MAX_PASS_GAP_MS, PASS_GAP_FACTOR * passMs) : 0;
}

/** When the next pass may run (performance.now()). */
let nextPassAt = 0;

function runFlush(): void {
  const tasks = due;
  due = new Set();
  scheduled = false;
  const started = performance.now();
  try {
    for (const task of tasks) task();
  } finally {
    joins = new Map();
    memos = new Map();
    const ended = performance.now();
    nextPassAt = ended + gapAfterPass(tasks.size, ended - started);
    const told = passDone;
    passDone = [];
    for (const resolve of told) resolve();
  }
}

/** Told when the pending pass has run. */
let passDone: (() => void)[] = [];

/** Resolves once the flush pass scheduled now has run (at the next loop turn when none is). */
export function afterFlush(): Promise<void> {
  return new Promise((resolve) => (scheduled ? passDone.push(resolve) : setImmediate(resolve)));
}

/**
 * A map that lives for the current flush pass, one per `owner`: what one watch works out in a
 * pass (e.g. the chunk of the changes between two positions of a watch cache) that watches
 * in the same position reuse. Emptied when the pass ends.
 */
export function passMemo<T>(owner: object): Map<string, T> {
  let m = memos.get(owner);
  if (!m) memos.set(owner, (m = new Map()));
  return m as Map<string, T>;
}

/** Runs `task` in the next flush pass (one `setImmediate`, or a timer after a long pass, for every watch). */
export function scheduleFlush(task: () => void): void {
  due.add(task);
  if (!scheduled) {
    scheduled = true;
    const wait = nextPassAt - performance.now();
    if (wait >= 1) setTimeout(runFlush, wait);
    else setImmediate(runFlush);
  }
}

/** `parts` as one chunk: the bytes another watcher got for the very same parts in this pass, or a new copy. */
function joinOnce(parts: Uint8Array[], size: number): Uint8Array {
  const first = parts[0]!;
  let seen = joins.get(first);
  if (seen) {
    for (const s of seen) if (s.parts.length === parts.length && s.parts.every((p, i) => p === parts[i])) return s.joined;
  } else joins.set(first, (seen = []));
  const joined = Buffer.concat(parts, size);
  seen.push({ parts, joined });
  return joined;
}

/**
 * The chunks one watch has for its client, in order. Pulled (async iteration) or pushed
 * (`pushTo`); the producer pushes chunks, checks `full`, and is told of room through
 * `below()` or `onRoom`. For an in-process client that takes events as objects, the producer
 * pushes events instead (counted as chunks, of no bytes: their objects are the watch cache's),
 * read in batches with `batches()`.
 */
export class WatchOutbox {
  private readonly items: (Uint8Array | WatchEvent)[] = [];
  private bytes = 0;
  private wake?: () => void;
  private drained?: () => void;
  private closed = false;
  private target?: PushTarget;
  /** The target asked to wait for `ready()`. */
  private blocked = false;
  private ended = false;
  /** In the flush: what is pushed now is written by it. */
  private flushing = false;
  /** Told when the outbox has room again (after being full), for a producer that does not await. */
  onRoom?: () => void;
  /** Told, in the flush pass, before the outbox is written: the producer adds what it has at hand. */
  onFlush?: () => void;
  /** The pass task of this outbox (one reference: scheduled once per pass). */
  private readonly flushTask = (): void => this.flush();

  constructor(private readonly deliveries: WatchDeliveries = { queued: 0 }) {}

  /** Adds a chunk (or an event) for the client. */
  push(item: Uint8Array | WatchEvent): void {
    if (this.closed) return;
    this.items.push(item);
    this.deliveries.queued++;
    if (item instanceof Uint8Array) this.bytes += item.byteLength;
    if (!this.target) this.wake?.();
    else if (!this.flushing) this.schedule();
  }

  /** Does the outbox hold a full buffer (WATCH_BUFFER_CHUNKS chunks or WATCH_BUFFER_BYTES)? */
  get full(): boolean {
    return this.items.length >= WATCH_BUFFER_CHUNKS || this.bytes >= WATCH_BUFFER_BYTES;
  }

  /** Has the outbox been closed (the watch is over, or its client went away)? */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Is the outbox pushed to a target (rather than pulled)? */
  get pushed(): boolean {
    return this.target !== undefined;
  }

  /** Resolves once the outbox is not full (or is closed). */
  async below(): Promise<void> {
    while (!this.closed && this.full) await new Promise<void>((r) => (this.drained = r));
  }

  /** Asks for a flush pass for this outbox (pushed), or wakes its reader (pulled). */
  schedule(): void {
    if (this.target) {
      if (!this.ended) scheduleFlush(this.flushTask);
    } else {
      this.onFlush?.();
      this.wake?.();
    }
  }

  /** Drops what the client left unread when it stopped reading. */
  discard(): void {
    this.closed = true;
    this.deliveries.queued -= this.items.length;
    this.items.length = 0;
    this.bytes = 0;
    this.drained?.();
  }

  /** No more chunks come: the reader (or target) gets what is queued, then the end. */
  close(): void {
    this.closed = true;
    this.wake?.();
    this.drained?.();
    if (this.target) this.schedule();
  }

  /**
   * Takes the next chunk: one as it is (the very bytes other watchers got), or small ones
   * joined up to WATCH_BATCH_BYTES (a chunk of JOIN_BELOW bytes or more is never copied).
   */
  private take(): Uint8Array {
    const items = this.items as Uint8Array[];
    let n = 1;
    let size = items[0]!.byteLength;
    if (size < JOIN_BELOW) {
      for (let next = items[n]; next && next.byteLength < JOIN_BELOW && size + next.byteLength <= WATCH_BATCH_BYTES; next = items[++n]) size += next.byteLength;
    }
    const taken = items.splice(0, n);
    this.deliveries.queued -= n;
    this.bytes -= size;
    return n === 1 ? taken[0]! : joinOnce(taken, size);
  }

  /** Tells the producer there is room. */
  private room(): void {
    if (this.full) return;
    const d = this.drained;
    this.drained = undefined;
    d?.();
    this.onRoom?.();
  }

  /** Writes what is queued to the target until it asks to wait; ends it once closed and empty. */
  private flush(): void {
    if (!this.target || this.ended) return;
    if (!this.blocked) {
      this.flushing = true;
      try {
        this.onFlush?.();
      } finally {
        this.flushing = false;
      }
    }
    while (!this.blocked && this.items.length) {
      if (!this.target.write(this.take())) this.blocked = true;
    }
    if (this.closed && !this.items.length) {
      this.ended = true;
      this.target.end();
      return;
    }
    if (!this.blocked) this.room();
  }

  /** Pushes the outbox to `target` from now on (instead of being iterated). */
  pushTo(target: PushTarget): PushControl {
    this.target = target;
    this.schedule();
    return {
      ready: () => {
        this.blocked = false;
        this.schedule();
      },
      cancel: () => {
        this.discard();
        this.blocked = false;
        this.schedule();
      },
    };
  }

  /** Yields the events that wait for the client (pushed as events, not bytes), all that are at hand in one batch. */
  batches(): AsyncGenerator<WatchEvent[]> {
    return this.drain(() => {
      const batch = this.items.splice(0) as WatchEvent[];
      this.deliveries.queued -= batch.length;
      return batch;
    });
  }

  /** Yields what waits for the client, in chunks as `take` makes them. */
  [Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    return this.drain(() => this.take());
  }

  /** Yields what `next` takes from the queue whenever it holds something, until the outbox is closed and empty. */
  private async *drain<T>(next: () => T): AsyncGenerator<T> {
    for (;;) {
      if (this.items.length) {
        const out = next();
        this.room();
        yield out;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}
