/**
 * A Transport carried over a MessagePort: the API server's in-process handler serves on one
 * side (the main thread), clients on the other (a worker thread) send RawRequests as they would
 * in-process. A whole response crosses as one message; a streamed one (watch) as a head, its
 * chunks and an end; the messages of one event-loop turn cross together, as one array; aborting the request's signal ends the stream on the serving side. Named
 * calls (`call`) reach functions the serving side offers (e.g. signing a token with its keys).
 */
import type { MessagePort } from 'node:worker_threads';
import { withoutObjects, type RawRequest, type RawResponse, type Transport } from '@kplane/api';

/** What the client side sends. */
type ToServer =
  | { t: 'req'; id: number; req: Omit<RawRequest, 'signal'> }
  | { t: 'abort'; id: number }
  | { t: 'call'; id: number; name: string; args: unknown[] };

/** What the serving side answers. */
type ToClient =
  | { t: 'res'; id: number; status: number; headers: Record<string, string>; body?: Uint8Array; streamed: boolean }
  | { t: 'chunk'; id: number; data: Uint8Array }
  | { t: 'end'; id: number }
  | { t: 'fail'; id: number; message: string }
  | { t: 'result'; id: number; value: unknown };

/** `data` alone: a view onto part of a larger buffer (a pooled Buffer) is copied, not cloned whole. */
function own(data: Uint8Array): Uint8Array;
function own(data: Uint8Array | undefined): Uint8Array | undefined;
function own(data: Uint8Array | undefined): Uint8Array | undefined {
  if (!data || (data.byteOffset === 0 && data.byteLength === data.buffer.byteLength)) return data;
  // Uint8Array's slice copies (Buffer's own `slice` would be a view of the same memory).
  return Uint8Array.prototype.slice.call(data);
}

/** A received Uint8Array as a Buffer (no copy), as the in-process handler and clients see them. */
function asBuffer(data: Uint8Array): Buffer;
function asBuffer(data: Uint8Array | undefined): Buffer | undefined;
function asBuffer(data: Uint8Array | undefined): Buffer | undefined {
  return data && Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Posts messages on `port` in batches: the messages of one turn of the event loop cross as one
 * array (one structured clone and one wake-up of the other thread instead of one per message),
 * the buffers this side copied transferred rather than copied again.
 */
function batchedPost<M>(port: MessagePort): (m: M, transfer?: ArrayBuffer) => void {
  let batch: M[] | undefined;
  let transfers: ArrayBuffer[] = [];
  const flush = () => {
    const messages = batch!;
    const list = transfers;
    batch = undefined;
    transfers = [];
    port.postMessage(messages, list);
  };
  return (m, transfer) => {
    if (transfer) transfers.push(transfer);
    if (batch) {
      batch.push(m);
      return;
    }
    batch = [m];
    setImmediate(flush);
  };
}

/** `own(data)` and, when that made a copy, its buffer, which may be transferred. */
function owned(data: Uint8Array): [Uint8Array, ArrayBuffer | undefined];
function owned(data: Uint8Array | undefined): [Uint8Array | undefined, ArrayBuffer | undefined];
function owned(data: Uint8Array | undefined): [Uint8Array | undefined, ArrayBuffer | undefined] {
  const out = own(data);
  return [out, out !== data && out ? (out.buffer as ArrayBuffer) : undefined];
}

/** Functions the serving side offers to `call`. */
export type BridgeCalls = Record<string, (...args: never[]) => Promise<unknown>>;

/**
 * Serves the requests that arrive on `port` with `serve`, and the named `calls`. Returns a
 * function that ends every stream in flight and stops listening.
 */
export function serveOverPort(port: MessagePort, serve: Transport, calls: BridgeCalls = {}): () => void {
  const streams = new Map<number, AbortController>();
  const post = batchedPost<ToClient>(port);
  const fail = (id: number, err: unknown) => post({ t: 'fail', id, message: err instanceof Error ? err.message : String(err) });
  const onRequest = async (id: number, req: Omit<RawRequest, 'signal'>) => {
    const abort = new AbortController();
    streams.set(id, abort);
    try {
      // The other thread reads bytes (objects do not cross threads).
      const res = await serve({ ...withoutObjects(req), body: asBuffer(req.body), signal: abort.signal });
      const [body, moved] = owned(res.body);
      post({ t: 'res', id, status: res.status, headers: res.headers, body, streamed: !!res.stream }, moved);
      if (res.stream) {
        for await (const chunk of res.stream) {
          const [data, copy] = owned(chunk);
          post({ t: 'chunk', id, data }, copy);
        }
        post({ t: 'end', id });
      }
    } catch (err) {
      fail(id, err);
    } finally {
      streams.delete(id);
    }
  };
  const onMessage = (m: ToServer) => {
    if (m.t === 'req') void onRequest(m.id, m.req);
    else if (m.t === 'abort') streams.get(m.id)?.abort();
    else {
      const fn = calls[m.name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
      if (!fn) return fail(m.id, new Error(`no function ${m.name} on this bridge`));
      fn(...m.args).then((value) => post({ t: 'result', id: m.id, value }), (err) => fail(m.id, err));
    }
  };
  const onBatch = (ms: ToServer[]) => {
    for (const m of ms) onMessage(m);
  };
  port.on('message', onBatch);
  return () => {
    port.off('message', onBatch);
    for (const abort of streams.values()) abort.abort();
    streams.clear();
  };
}

/** A stream fed by messages: chunks queue until read; `end` or `fail` finishes it. */
class PortStream implements AsyncIterable<Uint8Array> {
  private readonly queue: Uint8Array[] = [];
  private done = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;
  constructor(private readonly onReturn: () => void) {}
  push(data: Uint8Array): void {
    this.queue.push(data);
    this.wake?.();
  }
  finish(error?: Error): void {
    this.done = true;
    this.error = error;
    this.wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    try {
      for (;;) {
        const next = this.queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.done) {
          if (this.error) throw this.error;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      if (!this.done) this.onReturn();
    }
  }
}

/** The client side of a bridge: a Transport, the named calls, and `close()` (ends what is pending). */
export interface PortClient {
  transport: Transport;
  call<T>(name: string, ...args: unknown[]): Promise<T>;
  close(): void;
}

/** A client of the bridge `serveOverPort` serves on the other end of `port`. */
export function clientOverPort(port: MessagePort): PortClient {
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const streams = new Map<number, PortStream>();
  const onMessage = (m: ToClient) => {
    if (m.t === 'chunk') return streams.get(m.id)?.push(asBuffer(m.data));
    if (m.t === 'end') {
      streams.get(m.id)?.finish();
      streams.delete(m.id);
      return;
    }
    const waiting = pending.get(m.id);
    pending.delete(m.id);
    if (m.t === 'fail') {
      if (waiting) return waiting.reject(new Error(m.message));
      streams.get(m.id)?.finish(new Error(m.message));
      streams.delete(m.id);
      return;
    }
    if (!waiting) return;
    if (m.t === 'result') return waiting.resolve(m.value);
    // The stream is in place before the next message of the same batch (its first chunk) is read.
    const stream = m.streamed ? new PortStream(() => abortStream(m.id)) : undefined;
    if (stream) streams.set(m.id, stream);
    waiting.resolve({ res: m, stream });
  };
  const abortStream = (id: number) => {
    send({ t: 'abort', id });
    streams.get(id)?.finish();
    streams.delete(id);
  };
  const onBatch = (ms: ToClient[]) => {
    for (const m of ms) onMessage(m);
  };
  port.on('message', onBatch);
  const send = batchedPost<ToServer>(port);
  const transport: Transport = async ({ signal, objects: _objects, ...req }) => {
    const id = nextId++;
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const { res, stream } = (await new Promise<unknown>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      const [body, moved] = owned(req.body);
      send({ t: 'req', id, req: { ...req, body } }, moved);
    })) as { res: Extract<ToClient, { t: 'res' }>; stream?: PortStream };
    const out: RawResponse = { status: res.status, headers: res.headers, body: asBuffer(res.body) };
    if (stream) {
      signal?.addEventListener('abort', () => abortStream(id), { once: true });
      out.stream = stream;
    }
    return out;
  };
  return {
    transport,
    call: (name, ...args) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        send({ t: 'call', id, name, args });
      }),
    close() {
      port.off('message', onBatch);
      for (const p of pending.values()) p.reject(new Error('the bridge is closed'));
      pending.clear();
      for (const s of streams.values()) s.finish();
      streams.clear();
    },
  };
}
