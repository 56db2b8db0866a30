/** Cutting a watch stream short: after some events or some time, cleanly or with a reset. */
import { splitLines } from '../watch-stream.js';
import { connectionError } from './responses.js';
import type { FaultClock } from './clock.js';

/** When and how a watch stream is cut. */
export interface CutOptions {
  /** End after this many events (lines). */
  afterEvents?: number;
  /** End this long after the watch was answered (on `clock`). */
  afterMs?: number;
  /** Throw ECONNRESET instead of ending cleanly. */
  reset?: boolean;
  /** Count only the events after a streaming list's initial-events-end bookmark. */
  afterInitialEvents?: boolean;
  clock: FaultClock;
  /** Called once when the stream stops, to close the server's side. */
  onStop: () => void;
  /** Called when the cut happens (not when the server ended the stream first). */
  onCut?: () => void;
}

const INITIAL_EVENTS_END = Buffer.from('"k8s.io/initial-events-end":"true"');

/**
 * Passes a watch stream's events through until the limit, then ends it (or throws ECONNRESET
 * with `reset`); a stream the server ends first ends as it did.
 */
export async function* cutStream(stream: AsyncIterable<Uint8Array>, o: CutOptions): AsyncGenerator<Uint8Array> {
  const lines = splitLines(stream);
  let started = false;
  let seen = 0;
  let counting = !o.afterInitialEvents;
  let timer: unknown;
  const timeUp =
    o.afterMs === undefined
      ? undefined
      : new Promise<'time'>((resolve) => {
          timer = o.clock.setTimeout(() => resolve('time'), o.afterMs!);
        });
  let cut = false;
  try {
    for (;;) {
      if (o.afterEvents !== undefined && seen >= o.afterEvents) {
        cut = true;
        break;
      }
      const next = lines.next();
      started = true;
      const r = timeUp ? await Promise.race([next, timeUp]) : await next;
      if (r === 'time') {
        next.catch(() => undefined);
        cut = true;
        break;
      }
      if (r.done) return;
      const line = r.value;
      if (counting) seen++;
      else if (Buffer.from(line.buffer, line.byteOffset, line.byteLength).includes(INITIAL_EVENTS_END)) counting = true;
      const out = new Uint8Array(line.byteLength + 1);
      out.set(line);
      out[line.byteLength] = 0x0a;
      yield out;
    }
  } finally {
    if (timer !== undefined) o.clock.clearTimeout(timer);
    o.onStop();
    // A generator that never started passes no return() on to what it reads: cut before the
    // first read, read once (the server side is closed now, so this ends at once), so that
    // closing reaches the source and the server drops what it queued for this watch.
    void (started ? Promise.resolve() : lines.next())
      .then(() => lines.return(undefined))
      .catch(() => undefined);
  }
  if (cut) o.onCut?.();
  if (cut && o.reset) throw connectionError('ECONNRESET');
}
