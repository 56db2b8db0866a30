/**
 * A Transport carried over a MessagePort: the API server's in-process handler serves on one
 * side (the main thread), clients on the other (a worker thread) send RawRequests as they would
 * in-process. A whole response crosses as one message; a streamed one (watch) as a head, its
 * chunks and an end; aborting the request's signal ends the stream on the serving side. Named
 * calls (`call`) reach functions the serving side offers (e.g. signing a token with its keys).
 */
import type { MessagePort } from 'node:worker_threads';
import type { RawRequest, RawResponse, Transport } from '@kplane/api';

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
  return data.slice();
}

/** A received Uint8Array as a Buffer (no copy), as the in-process handler and clients see them. */
function asBuffer(data: Uint8Array): Buffer;
function asBuffer(data: Uint8Array | undefined): Buffer | undefined;
function asBuffer(data: Uint8Array | undefined): Buffer | undefined {
  return data && Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Functions the serving side offers to `call`. */
export type BridgeCalls = Record<string, (...args: never[]) => Promise<unknown>>;

/**
 * Serves the requests that arrive on `port` with `serve`, and the named `calls`. Returns a
 * function that ends every stream in flight and stops listening.
 */
export function serveOverPort(port: MessagePort, serve: Transport, calls: BridgeCalls = {}): () => void {
  const streams = new Map<number, AbortController>();
  const post = (m: ToClient) => port.postMessage(m);
  const fail = (id: number, err: unknown) => post({ t: 'fail', id, message: err instanceof Error ? err.message : String(err) });
  const onRequest = async (id: number, req: Omit<RawRequest, 'signal'>) => {
    const abort = new AbortController();
    streams.set(id, abort);
    try {
      const res = await serve({ ...req, body: asBuffer(req.body), signal: abort.signal });
      post({ t: 'res', id, status: res.status, headers: res.headers, body: own(res.body), streamed: !!res.stream });
      if (res.stream) {
        for await (const data of res.stream) post({ t: 'chunk', id, data: own(data) });
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
  port.on('message', onMessage);
  return () => {
    port.off('message', onMessage);
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
    waiting.resolve(m);
  };
  port.on('message', onMessage);
  const send = (m: ToServer) => port.postMessage(m);
  const transport: Transport = async ({ signal, ...req }) => {
    const id = nextId++;
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const res = (await new Promise<unknown>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ t: 'req', id, req: { ...req, body: own(req.body) } });
    })) as Extract<ToClient, { t: 'res' }>;
    const out: RawResponse = { status: res.status, headers: res.headers, body: asBuffer(res.body) };
    if (res.streamed) {
      const abort = () => {
        send({ t: 'abort', id });
        stream.finish();
        streams.delete(id);
      };
      const stream = new PortStream(abort);
      streams.set(id, stream);
      signal?.addEventListener('abort', abort, { once: true });
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
      port.off('message', onMessage);
      for (const p of pending.values()) p.reject(new Error('the bridge is closed'));
      pending.clear();
      for (const s of streams.values()) s.finish();
      streams.clear();
    },
  };
}
