import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { RawRequest, RawResponse, Transport } from '@kplane/api';
import { createFileTokenSource, type NowSource } from './token-file.js';
import { createFailoverTransport } from './failover.js';

/** Options of createHttpsTransport. */
export interface HttpsTransportOptions {
  /** Base URL of the API server, e.g. "https://127.0.0.1:6443" (an http:// URL is also accepted). */
  server: string;
  /**
   * Every API server of the cluster, when there are several (`server` among them): requests
   * fail over across them, as `createFailoverTransport` does.
   */
  servers?: readonly string[];
  /** PEM CA bundle to trust (default: Node's built-in roots). */
  ca?: Uint8Array | string;
  /** PEM client certificate. */
  cert?: Uint8Array | string;
  /** PEM client key. */
  key?: Uint8Array | string;
  /** Bearer token. */
  token?: string;
  /**
   * A file holding the bearer token, re-read once a minute on the clock (rotated tokens). With
   * `token` as well, the file wins and `token` is used only when the file cannot be read.
   */
  tokenFile?: string;
  /**
   * Credentials obtained per request (an exec credential plugin): used when none of token,
   * tokenFile, basic authentication or a client certificate is given, as client-go does.
   */
  credentials?: CredentialProvider;
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
  /** The same as a clock object (a runtime Clock fits); wins over `now`. */
  clock?: NowSource;
}

/** Credentials for one request. */
export interface Credential {
  token?: string;
  /** PEM client certificate and key (both or neither). */
  cert?: string;
  key?: string;
}

/** Hands out credentials, and is told when the server refused the ones it gave (401). */
export interface CredentialProvider {
  get(): Promise<Credential>;
  /** The server answered 401 to a request made with `used`: obtain new ones unless already done. */
  refresh?(used: Credential): Promise<void>;
}

/** A Transport over node:https with a keep-alive connection pool. */
export interface HttpsTransport extends Transport {
  /** Closes pooled connections; in-flight requests are destroyed. */
  close(): void;
}

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
 * With `servers` (more than one), requests fail over across them (createFailoverTransport).
 */
export function createHttpsTransport(options: HttpsTransportOptions): HttpsTransport {
  if (options.servers && options.servers.length > 1) {
    const { servers, server: _first, ...each } = options;
    return createFailoverTransport(servers, each);
  }
  const base = new URL(options.server);
  const secure = base.protocol === 'https:';
  if (!secure && base.protocol !== 'http:') throw new Error(`unsupported server URL scheme: ${base.protocol}`);
  const basePath = base.pathname.replace(/\/+$/, '');
  const maxSockets = options.maxSockets ?? 256;
  const makeAgent = (cert: Uint8Array | string | undefined, key: Uint8Array | string | undefined): http.Agent =>
    secure
      ? new https.Agent({
          keepAlive: true,
          maxSockets,
          maxFreeSockets: maxSockets,
          ca: toPem(options.ca),
          cert: toPem(cert),
          key: toPem(key),
          rejectUnauthorized: !options.insecureSkipTLSVerify,
          servername: options.tlsServerName,
        })
      : new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  const agent = makeAgent(options.cert, options.key);
  // The agent of the client certificate a credential provider gave last (rotated with it).
  let certAgent: { cert: string; key: string; agent: http.Agent } | undefined;
  const agentFor = (cred: Credential | undefined): http.Agent => {
    if (!cred?.cert || !cred.key) return agent;
    if (certAgent?.cert !== cred.cert || certAgent.key !== cred.key) {
      // A new certificate: new connections (client-go closes every connection on rotation).
      certAgent?.agent.destroy();
      certAgent = { cert: cred.cert, key: cred.key, agent: makeAgent(cred.cert, cred.key) };
    }
    return certAgent.agent;
  };
  const wantsStream = options.stream ?? isStreamingRequest;
  const clock = options.clock ?? { now: options.now ?? Date.now };
  const tokenFile = options.tokenFile ? createFileTokenSource(options.tokenFile, { clock }) : undefined;
  const hasStaticAuth =
    !!options.token || !!options.tokenFile || options.username !== undefined || options.password !== undefined || options.cert !== undefined;
  const provider = hasStaticAuth ? undefined : options.credentials;

  const authorization = (): string | undefined => {
    if (tokenFile) {
      try {
        return `Bearer ${tokenFile.token()}`;
      } catch (err) {
        if (options.token) return `Bearer ${options.token}`;
        throw err;
      }
    }
    if (options.token) return `Bearer ${options.token}`;
    if (options.username !== undefined || options.password !== undefined) {
      return `Basic ${Buffer.from(`${options.username ?? ''}:${options.password ?? ''}`).toString('base64')}`;
    }
    return undefined;
  };

  const send = async (req: RawRequest): Promise<RawResponse> => {
    if (!provider || req.headers?.['authorization'] !== undefined) return sendWith(req, undefined);
    let cred: Credential;
    try {
      cred = await provider.get();
    } catch (err) {
      throw new Error(`getting credentials: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const res = await sendWith(req, cred);
    if (res.status === 401 && provider.refresh) {
      // As client-go: obtain new credentials for the next request; this one still fails.
      await provider.refresh(cred).catch((err: unknown) => console.error('refreshing credentials:', err instanceof Error ? err.message : err));
    }
    return res;
  };

  const sendWith = (req: RawRequest, cred: Credential | undefined): Promise<RawResponse> => {
    const signal = req.signal;
    if (signal?.aborted) return Promise.reject(abortError());
    const search = req.query && Object.keys(req.query).length > 0 ? `?${new URLSearchParams(req.query).toString()}` : '';
    const headers: Record<string, string | number> = { ...req.headers };
    if (options.userAgent && headers['user-agent'] === undefined) headers['user-agent'] = options.userAgent;
    let auth: string | undefined;
    try {
      auth = headers['authorization'] !== undefined ? undefined : cred ? (cred.token ? `Bearer ${cred.token}` : undefined) : authorization();
    } catch (err) {
      return Promise.reject(err);
    }
    if (auth) headers['authorization'] = auth;
    const reqAgent = agentFor(cred);
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
        agent: reqAgent,
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
  transport.close = () => {
    agent.destroy();
    certAgent?.agent.destroy();
  };
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
