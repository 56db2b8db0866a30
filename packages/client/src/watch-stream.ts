import type { Status, WatchEvent } from '@kplane/api';
import { isAscii } from 'node:buffer';
import { genericServerError } from './response.js';

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines (without the trailing newline), however the bytes are
 * chunked: a line may span many chunks and one chunk may hold many lines. A final line without
 * a newline is yielded at the end. Lines are split on bytes, so multi-byte UTF-8 characters
 * across a chunk boundary are kept whole.
 */
export async function* splitLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingSize = 0;
  for await (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (pendingSize > 0) {
        pending.push(piece);
        yield concat(pending, pendingSize + piece.byteLength);
        pending = [];
        pendingSize = 0;
      } else {
        yield piece;
      }
      start = nl + 1;
    }
    if (start < chunk.byteLength) {
      // Copy: the producer may reuse its buffer after we return control.
      const rest = chunk.slice(start);
      pending.push(rest);
      pendingSize += rest.byteLength;
    }
  }
  if (pendingSize > 0) yield concat(pending, pendingSize);
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** The Status client-go reports when a watch frame cannot be decoded (an ERROR event's object). */
export function watchDecodeErrorStatus(method: string, detail: string): Status {
  const text = `unable to decode an event from the watch stream: ${detail}`;
  const err = genericServerError(500, method, text);
  const status = err.toStatus();
  status.details = { causes: [...(err.details?.causes ?? []), { reason: 'ClientWatchDecoding', message: text }] };
  return status;
}

/** Text of one line of bytes: ASCII (the usual case) is read directly, anything else as UTF-8. */
function lineText(line: Uint8Array): string {
  const b = Buffer.isBuffer(line) ? line : Buffer.from(line.buffer, line.byteOffset, line.byteLength);
  return b.toString(isAscii(b) ? 'latin1' : 'utf8');
}

/**
 * Decodes a newline-delimited JSON watch stream into events, in batches: all the complete
 * lines of each chunk received form one batch (so a consumer pays its per-step costs once per
 * chunk, not once per event). Blank lines are skipped. A frame that is not valid JSON, or not
 * an event (no string `type`), ends the stream with one ERROR event carrying a 500 Status, as
 * client-go's stream watcher does.
 */
export async function* decodeWatchEventBatches<T = unknown>(chunks: AsyncIterable<Uint8Array>, method = 'GET'): AsyncGenerator<WatchEvent<T>[]> {
  let pending: Uint8Array[] = [];
  let pendingSize = 0;
  let batch: WatchEvent<T>[] = [];
  /** Decodes one line into the batch; false when the stream must end. */
  const take = (line: Uint8Array): boolean => {
    const text = lineText(line).trim();
    if (text === '') return true;
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch (err) {
      batch.push({ type: 'ERROR', object: watchDecodeErrorStatus(method, (err as Error).message) as T });
      return false;
    }
    if (typeof event !== 'object' || event === null || typeof (event as { type?: unknown }).type !== 'string') {
      batch.push({ type: 'ERROR', object: watchDecodeErrorStatus(method, 'frame is not a watch event') as T });
      return false;
    }
    batch.push(event as WatchEvent<T>);
    return true;
  };
  for await (const chunk of chunks) {
    let start = 0;
    let ok = true;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (pendingSize > 0) {
        pending.push(piece);
        ok = take(concat(pending, pendingSize + piece.byteLength));
        pending = [];
        pendingSize = 0;
      } else {
        ok = take(piece);
      }
      if (!ok) break;
    }
    if (!ok) {
      yield batch;
      return;
    }
    if (start < chunk.byteLength) {
      // Copy: the producer may reuse its buffer after we return control.
      const rest = chunk.slice(start);
      pending.push(rest);
      pendingSize += rest.byteLength;
    }
    if (batch.length > 0) {
      const out = batch;
      batch = [];
      yield out;
    }
  }
  if (pendingSize > 0) take(concat(pending, pendingSize));
  if (batch.length > 0) yield batch;
}

/** decodeWatchEventBatches, one event at a time. */
export async function* decodeWatchEvents<T = unknown>(chunks: AsyncIterable<Uint8Array>, method = 'GET'): AsyncGenerator<WatchEvent<T>> {
  for await (const batch of decodeWatchEventBatches<T>(chunks, method)) yield* batch;
}
