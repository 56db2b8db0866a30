import type { KubeObject, RawResponse, WatchEvent } from '@kplane/api';
import { createMemoryBackend, type Backend } from '@kplane/storage';
import { createApiServer, type ApiServer, type ApiServerOptions } from './server/server.js';

export { VirtualTimers, type Timers } from './registry/timers.js';

/** A real in-process API server with a client on it, for testing controllers. */
export { startTestKplane, type TestKplane } from './testing/kplane.js';

/** The seed chapter's Greeting CRD and objects, shared by tests and benchmarks. */
export { greeting, greetingCRD } from './crd/greeting.fixture.js';

/** A JSON answer from the in-process handler. */
export interface JsonAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** An API server on memory storage with a small JSON request helper, for tests. */
export interface TestServer {
  server: ApiServer;
  /** The memory backend the server stores in. */
  backend: Backend;
  /** Sends a request with a JSON (or raw string) body and parses a JSON answer. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>, query?: Record<string, string>): Promise<JsonAnswer>;
  /** Sends a request and returns the raw response (for watches). */
  raw(method: string, path: string, query?: Record<string, string>, headers?: Record<string, string>, signal?: AbortSignal): Promise<RawResponse>;
  close(): Promise<void>;
}

/** Starts an API server on a fresh memory backend. */
export async function startTestServer(
  options: Pick<ApiServerOptions, 'now' | 'bookmarkIntervalMs' | 'watchCacheCapacity' | 'watchCache' | 'timers' | 'authorizationMode' | 'admission' | 'audit'> = {},
): Promise<TestServer> {
  const backend = createMemoryBackend();
  const server = createApiServer({ backend, ...options });
  await server.start();
  return {
    server,
    backend,
    async call(method, path, body, headers = {}, query = {}) {
      const [p, qs] = path.split('?');
      const q = { ...Object.fromEntries(new URLSearchParams(qs ?? '')), ...query };
      const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const r = await server.handle({
        method,
        path: p!,
        query: q,
        headers: { 'content-type': 'application/json', ...headers },
        body: payload,
      });
      // A large LIST comes as a stream; watches are read with raw().
      const watch = q.watch === 'true' || q.watch === '1' || p!.includes('/watch/');
      const bytes = r.body ?? (r.stream && !watch ? await readAllChunks(r.stream) : undefined);
      const text = bytes ? Buffer.from(bytes).toString('utf8') : '';
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: r.status, headers: r.headers, body: parsed };
    },
    async raw(method, path, query = {}, headers = {}, signal) {
      return server.handle({ method, path, query, headers, signal });
    },
    async close() {
      await server.close();
      await backend.close();
    },
  };
}

/** Reads a streamed body whole. */
async function readAllChunks(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of stream) parts.push(chunk);
  return Buffer.concat(parts);
}

/**
 * Reads watch events from a streamed response (or one answered as events, to a request with
 * `objects: true`) until `n` arrived or the time is up.
 */
export async function readEvents(r: RawResponse, n: number, timeoutMs = 2000): Promise<{ type: string; object: KubeObject }[]> {
  const out: { type: string; object: KubeObject }[] = [];
  const it: AsyncIterator<Uint8Array | WatchEvent[]> = (r.events ?? r.stream!)[Symbol.asyncIterator]();
  let buf = '';
  const deadline = Date.now() + timeoutMs;
  while (out.length < n && Date.now() < deadline) {
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([it.next(), new Promise<null>((res) => (timer = setTimeout(() => res(null), Math.max(1, deadline - Date.now()))))]);
    clearTimeout(timer);
    if (next === null || next.done) break;
    if (Array.isArray(next.value)) {
      if (next.value.length === 0) throw new Error('an empty batch of events');
      out.push(...next.value);
      continue;
    }
    buf += Buffer.from(next.value).toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      out.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  }
  await it.return?.();
  return out;
}

/** Canary objects and the seeded request fuzzer shared by the safety tests and the benchmark. */
export * from './testing/admission.js';
export * from './testing/canaries.js';
export * from './testing/fuzz.js';
export * from './testing/expect.js';
export { pathologicalCrd, PATHOLOGICAL, type RegexProbeResult } from './testing/regex-probe.js';
