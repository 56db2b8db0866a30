import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { RawRequest, RawResponse, Transport } from '@kplane/api';

/** Options of createHttpsTransport. */
export interface HttpsTransportOptions {
  /** Base URL of the API server, e.g. "https://127.0.0.1:6443" (an http:// URL is also accepted). */
  server: string;
  /** PEM CA bundle to trust (default: Node's built-in roots). */
  ca?: Uint8Array | string;
  /** PEM client certificate. */
  cert?: Uint8Array | string;
  /** PEM client key. */
  key?: Uint8Array | string;
  /** Bearer token. */
  token?: string;
  /** A file holding the bearer token; re-read at most once a minute (rotated tokens). */
  tokenFile?: string;
  /** Basic authentication. */
  username?: string;
  password?: string;
  /** Skip verification of the server's certificate (tests and local clusters only). */
  insecureSkipTLSVerify?: boolean;
  /** Server name for SNI and certificate verification, when it differs from the URL's host. */
  tlsServerName?: string;
  /** Sockets per host (default 256: enough for benchmark concurrency plus long-lived watches). */
  maxSockets?: number;
  /** Sent as User-Agent unless the request sets one. */
  userAgent?: string;
  /** Decides which requests get a streamed response; default: {@link isStreamingRequest}. */
  stream?: (req: RawRequest) => boolean;
  /** Clock for the token-file cache (ms since epoch). */
  now?: () => number;
}

/** A Transport over node:https with a keep-alive connection pool. */
export interface HttpsTransport extends Transport {
  /** Closes pooled connections; in-flight requests are destroyed. */
  close(): void;
}

const TOKEN_FILE_TTL_MS = 60_000;

/**
 * Default streaming rule: watches (`watch=true|1`), followed logs (`follow=true`), and any
 * request whose Accept header asks for `stream=watch` get a streamed response.
 */
export function isStreamingRequest(req: RawRequest): boolean {
  const q = req.query ?? {};
  if (q['watch'] === 'true' || q['watch'] === '1' || q['follow'] === 'true') return true;
  return (req.headers?.['accept'] ?? '').includes('stream=watch');
}

function abortError(): Error {
  return new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Creates a Transport that sends requests to `options.server` over HTTPS (or HTTP for an
 * http:// URL) through a keep-alive agent. Streaming requests resolve as soon as the headers
 * arrive, with `stream` yielding body chunks; others resolve with the whole `body`.
 *
 * Guarantees: aborting `signal` destroys the request, rejects a pending promise with an
 * AbortError and ends a stream with an AbortError; ending iteration of a stream early closes
 * its connection. Network errors reject with Node's error (e.g. code ECONNREFUSED).
 */
export function createHttpsTransport(options: HttpsTransportOptions): HttpsTransport {
  const base = new URL(options.server);
  const secure = base.protocol === 'https:';
  if (!secure && base.protocol !== 'http:') throw new Error(`unsupported server URL scheme: ${base.protocol}`);
  const basePath = base.pathname.replace(/\/+$/, '');
  const maxSockets = options.maxSockets ?? 256;
  const agent = secure
    ? new https.Agent({
        keepAlive: true,
        maxSockets,
        maxFreeSockets: maxSockets,
        ca: toPem(options.ca),
        cert: toPem(options.cert),
        key: toPem(options.key),
        rejectUnauthorized: !options.insecureSkipTLSVerify,
        servername: options.tlsServerName,
      })
    : new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  const wantsStream = options.stream ?? isStreamingRequest;
  const now = options.now ?? Date.now;
  let cachedToken: { value: string; at: number } | undefined;

  const authorization = (): string | undefined => {
    if (options.token) return `Bearer ${options.token}`;
    if (options.tokenFile) {
      if (!cachedToken || now() - cachedToken.at >= TOKEN_FILE_TTL_MS) {
        cachedToken = { value: readFileSync(options.tokenFile, 'utf8').trim(), at: now() };
      }
      return `Bearer ${cachedToken.value}`;
    }
    if (options.username !== undefined || options.password !== undefined) {
      return `Basic ${Buffer.from(`${options.username ?? ''}:${options.password ?? ''}`).toString('base64')}`;
    }
    return undefined;
  };

  const send = (req: RawRequest): Promise<RawResponse> => {
    const signal = req.signal;
    if (signal?.aborted) return Promise.reject(abortError());
    const search = req.query && Object.keys(req.query).length > 0 ? `?${new URLSearchParams(req.query).toString()}` : '';
    const headers: Record<string, string | number> = { ...req.headers };
    if (options.userAgent && headers['user-agent'] === undefined) headers['user-agent'] = options.userAgent;
    const auth = headers['authorization'] === undefined ? authorization() : undefined;
    if (auth) headers['authorization'] = auth;
    if (req.body) headers['content-length'] = req.body.byteLength;
    const streaming = wantsStream(req);
    const lib = secure ? https : http;

    return new Promise<RawResponse>((resolve, reject) => {
      const creq = lib.request({
        protocol: base.protocol,
        hostname: base.hostname.replace(/^\[|\]$/g, ''),
        port: base.port || (secure ? 443 : 80),
        method: req.method,
        path: basePath + req.path + search,
        headers,
        agent,
      });
      let settled = false;
      let response: IncomingMessage | undefined;
      const onAbort = (): void => {
        const err = abortError();
        if (response) response.destroy(err);
        creq.destroy(err);
        if (!settled) {
          settled = true;
          reject(err);
        }
      };
      const cleanup = (): void => signal?.removeEventListener('abort', onAbort);
      signal?.addEventListener('abort', onAbort, { once: true });

      creq.on('error', (err) => {
        cleanup();
        if (!settled) {
          settled = true;
          reject(err);
        }
      });
      creq.on('response', (res) => {
        response = res;
        const resHeaders = flattenHeaders(res.headers);
        const status = res.statusCode ?? 0;
        if (streaming) {
          settled = true;
          res.on('close', cleanup);
          resolve({ status, headers: resHeaders, stream: iterate(res) });
          return;
        }
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('error', (err) => {
          cleanup();
          if (!settled) {
            settled = true;
            reject(err);
          }
        });
        res.on('end', () => {
          cleanup();
          if (!settled) {
            settled = true;
            resolve({ status, headers: resHeaders, body: new Uint8Array(Buffer.concat(parts)) });
          }
        });
      });
      creq.end(req.body ? Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength) : undefined);
    });
  };

  const transport = send as HttpsTransport;
  transport.close = () => agent.destroy();
  return transport;
}

/** Yields a response's chunks as Uint8Array; returning early destroys the response. */
async function* iterate(res: IncomingMessage): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of res) yield chunk as Buffer;
  } finally {
    if (!res.complete) res.destroy();
  }
}

function flattenHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function toPem(v: Uint8Array | string | undefined): string | Buffer | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : Buffer.from(v);
}
