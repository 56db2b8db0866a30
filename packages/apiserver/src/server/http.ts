import type { Server } from 'node:https';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from 'node:http2';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import type { X509Certificate } from 'node:crypto';
import type { RawRequest, RawResponse, UserInfo } from '@kplane/api';
import { requestEntityTooLarge, unauthorized } from '@kplane/api';
import type { Authenticator } from '../auth/types.js';
import { ANONYMOUS, isAnonymous } from '../auth/identity.js';
import { errorResponse } from './handler.js';
import { DEFAULT_LIMITS, InFlightLimiter, resolveLimits, type ServerLimits } from './limits.js';
import { classifyRequest } from './request-info.js';
import { isPushable, PUSH_TO, type PushableStream } from './watch-output.js';

/** Largest request body accepted (kube-apiserver's limit for JSON bodies). */
export const MAX_BODY_BYTES = DEFAULT_LIMITS.maxBodyBytes;

/**
 * Paths anonymous requests may reach (what system:public-info-viewer grants). Until the
 * authorizer decides on anonymous requests, every other path answers them 401.
 */
const PUBLIC_PATHS = /^\/(healthz|livez|readyz|version)(\/.*)?$/;

/** A request over HTTP/1.1 or HTTP/2 (node's compatibility API). */
export type HttpRequest = IncomingMessage | Http2ServerRequest;
/** A response over HTTP/1.1 or HTTP/2 (node's compatibility API). */
type HttpResponse = ServerResponse | Http2ServerResponse;

/** The reason of the abort of a long-running request whose client went away, made once (a DOMException per abort costs its stack). */
const CLIENT_GONE = new DOMException('The client went away', 'AbortError');

/** Streams one HTTP/2 connection may carry at once (kube-apiserver's --http2-max-streams-per-connection default). */
export const HTTP2_MAX_STREAMS_PER_CONNECTION = 1000;

/** Header fields HTTP/2 forbids in a response (connection-specific, RFC 9113 section 8.2.2). */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

function isHttp2(req: HttpRequest): req is Http2ServerRequest {
  return req.httpVersionMajor === 2;
}

/** Response headers fit for the request's protocol (HTTP/2 drops the connection-specific ones). */
function headersFor(req: HttpRequest, headers: Record<string, string>): Record<string, string> {
  if (!isHttp2(req)) return headers;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!CONNECTION_HEADERS.has(k.toLowerCase())) out[k] = v;
  return out;
}

/** Has the response's connection (HTTP/1.1) or stream (HTTP/2) gone away? */
function gone(res: HttpResponse): boolean {
  return 'stream' in res ? res.stream.destroyed : res.destroyed;
}

/** Options of createHttpsServer. */
export interface HttpsServerOptions {
  handler: (req: RawRequest) => Promise<RawResponse>;
  /** Serving certificate and key (PEM). */
  cert: string;
  key: string;
  /** CA that signs client certificates (PEM). */
  clientCa: string;
  /** Turns each request's credentials (verified client certificate, bearer token) into a user. */
  authenticator: Authenticator;
  /** Body size and in-flight limits; kube-apiserver's defaults otherwise. */
  limits?: Partial<ServerLimits>;
  /**
   * Told of each request refused before the handler (credentials that do not authenticate:
   * `failedAuthentication` set; a body too large, past the in-flight bounds: with its `user`);
   * returns the response to send (the audit adds its event and the Audit-Id header).
   */
  refused?: (req: RawRequest, response: RawResponse, failedAuthentication?: { presentedCertificate: boolean }) => RawResponse;
  /** Serves authenticated protocol upgrades (websocket, SPDY: pods/exec, attach, portforward); the socket is its own. */
  upgrade?: (raw: RawRequest, req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

/** The client certificate of each TLS connection (HTTP/1.1 socket or HTTP/2 session), read and parsed once per connection. */
const peerCertificates = new WeakMap<object, { verified?: X509Certificate[]; error?: string }>();

function peerCertificate(req: HttpRequest): { verified?: X509Certificate[]; error?: string } {
  // An HTTP/2 request's socket is a new proxy per stream: the session is the connection.
  const connection: object = (isHttp2(req) ? req.stream.session : undefined) ?? req.socket;
  let c = peerCertificates.get(connection);
  if (!c) {
    const sock = req.socket as TLSSocket;
    const cert = typeof sock.getPeerX509Certificate === 'function' ? sock.getPeerX509Certificate() : undefined;
    c = !cert ? {} : sock.authorized ? { verified: [cert] } : { error: String(sock.authorizationError ?? 'certificate not verified') };
    peerCertificates.set(connection, c);
  }
  return c;
}

/**
 * Who sent a request: the user its credentials name (verified client certificate, else bearer
 * token), or system:anonymous when it has none. Never read from anything else the client sends.
 * Rejects with a 401 ApiError for credentials that are not valid, and for anonymous requests
 * outside the public paths.
 */
export async function authenticate(req: HttpRequest, authenticator: Authenticator, path: string): Promise<UserInfo> {
  const cert = peerCertificate(req);
  const auth = req.headers.authorization;
  const user =
    (await authenticator.authenticate({
      headers: auth === undefined ? {} : { authorization: auth },
      verifiedChain: cert.verified,
      certificateError: cert.error,
    })) ?? ANONYMOUS;
  if (isAnonymous(user) && !PUBLIC_PATHS.test(path)) throw unauthorized();
  return user;
}

function send(req: HttpRequest, res: HttpResponse, r: RawResponse): void {
  const body = r.body ?? new Uint8Array();
  res.writeHead(r.status, headersFor(req, { ...r.headers, 'content-length': String(body.byteLength) }));
  res.end(body);
}

/** A request body, or how an oversized one ended: read to its end (`drained`) or cut off. */
type BodyResult = { body: Buffer } | { tooLarge: true; drained: boolean };

/**
 * Reads a request body of at most `maxBodyBytes`. An oversized body is read on and thrown away
 * up to `maxDiscardBytes` more, so the client, still sending, gets to read the 413 (a body
 * declared larger than that is not read at all).
 */
function readBody(req: HttpRequest, limits: ServerLimits): Promise<BodyResult> {
  return new Promise((resolve, reject) => {
    const max = limits.maxBodyBytes;
    const bound = max + limits.maxDiscardBytes;
    const declaredHeader = req.headers['content-length'];
    const declared = declaredHeader === undefined ? undefined : Number(declaredHeader);
    if (declared !== undefined && declared > bound) {
      resolve({ tooLarge: true, drained: false });
      return;
    }
    let over = declared !== undefined && declared > max;
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (c: Buffer) => {
      size += c.length;
      if (!over && size > max) {
        over = true;
        chunks.length = 0;
      }
      if (!over) chunks.push(c);
      if (size > bound) {
        cleanup();
        req.pause();
        resolve({ tooLarge: true, drained: false });
      }
    };
    const onEnd = () => {
      cleanup();
      resolve(over ? { tooLarge: true, drained: true } : { body: Buffer.concat(chunks) });
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onClose = () => {
      // The client went away before the end of its body: nothing to answer.
      cleanup();
      reject(new Error('the client closed the connection before sending its whole body'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The path (still percent-encoded, never normalised) and the query string of a request target. */
export function splitTarget(target: string): { path: string; search: string } {
  let t = target;
  const abs = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(t);
  if (abs) t = t.slice(abs[0].length);
  const hash = t.indexOf('#');
  if (hash >= 0) t = t.slice(0, hash);
  const q = t.indexOf('?');
  const path = q >= 0 ? t.slice(0, q) : t;
  return { path: path || '/', search: q >= 0 ? t.slice(q + 1) : '' };
}

function queryOf(search: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(search)) if (!(k in query)) query[k] = v;
  return query;
}

function headersOf(req: HttpRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  // HTTP/2's pseudo-headers (:method, :path, ...) are not header fields; :authority is the Host.
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k[0] !== ':') headers[k] = v;
  const authority = req.headers[':authority'];
  if (headers.host === undefined && typeof authority === 'string') headers.host = authority;
  return headers;
}

/** Turns a node request into a RawRequest and writes the RawResponse back. */
async function serve(options: HttpsServerOptions, limits: ServerLimits, limiter: InFlightLimiter, req: HttpRequest, res: HttpResponse): Promise<void> {
  const { path, search } = splitTarget(req.url ?? '/');
  const query = queryOf(search);
  const method = req.method ?? 'GET';
  const refused = (r: RawResponse, user?: UserInfo): RawResponse => {
    if (!options.refused) return r;
    const raw: RawRequest = { method, path, query, headers: headersOf(req), ...(user ? { user } : {}), remoteAddress: req.socket.remoteAddress };
    return options.refused(raw, r, user ? undefined : { presentedCertificate: !!(req.socket as TLSSocket).getPeerX509Certificate?.() });
  };
  let user: UserInfo;
  try {
    user = await authenticate(req, options.authenticator, path);
  } catch (err) {
    req.resume();
    send(req, res, refused(errorResponse(err)));
    return;
  }
  const requestClass = classifyRequest(method, path, query);
  let release: () => void;
  try {
    release = limiter.acquire(requestClass);
  } catch (err) {
    req.resume();
    send(req, res, refused(withRetryAfter(errorResponse(err)), user));
    return;
  }
  try {
    const read = await readBody(req, limits);
    if ('tooLarge' in read) {
      if (!read.drained && !isHttp2(req)) res.setHeader('connection', 'close');
      send(req, res, refused(errorResponse(requestEntityTooLarge(`Request entity too large: limit is ${limits.maxBodyBytes}`)), user));
      return;
    }
    const raw: RawRequest = { method, path, query, headers: headersOf(req), body: read.body, user, remoteAddress: req.socket.remoteAddress };
    if (requestClass === 'long-running') {
      // Only streams need to learn that the client went away.
      const abort = new AbortController();
      res.on('close', () => abort.abort(CLIENT_GONE));
      raw.signal = abort.signal;
    }
    const r = await options.handler(raw);
    if (!r.stream) {
      send(req, res, r);
      return;
    }
    const { 'transfer-encoding': _te, ...headersOut } = r.headers;
    res.writeHead(r.status, headersFor(req, headersOut));
    // Both protocols' responses flush and write alike (node's HTTP/2 compatibility API).
    const out = res as ServerResponse;
    out.flushHeaders();
    // A client that takes no data for maxWriteStallMs loses its connection (the watcher behind
    // it was closed long before, when it fell behind).
    const stalled = (): (() => void) => {
      const timer = setTimeout(() => res.destroy(), limits.maxWriteStallMs);
      timer.unref();
      return () => clearTimeout(timer);
    };
    if (isPushable(r.stream)) {
      await pushResponse(res, r.stream, limits);
      return;
    }
    try {
      for await (const chunk of r.stream) {
        if (gone(res)) break;
        if (!out.write(chunk)) {
          // Wait for room, or for the client to go away (then the loop ends).
          const cancel = stalled();
          await new Promise<void>((resolve) => {
            const done = () => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          });
          cancel();
        }
      }
    } finally {
      if (!gone(res)) {
        const cancel = stalled();
        res.once('close', cancel);
        res.end(cancel);
      }
    }
  } finally {
    release();
  }
}

/**
 * Writes a pushed stream (a watch) to its response: the stream writes when it has something
 * (in its flush pass), waits for 'drain' when the response's buffer is full, and is cancelled
 * when the client goes away. A client that takes no data for maxWriteStallMs loses its
 * connection. Resolves once the response is over.
 */
function pushResponse(res: HttpResponse, stream: PushableStream, limits: ServerLimits): Promise<void> {
  const out = res as ServerResponse;
  return new Promise<void>((resolve) => {
    let stall: NodeJS.Timeout | undefined;
    const unstall = () => {
      if (stall !== undefined) clearTimeout(stall);
      stall = undefined;
    };
    const control = stream[PUSH_TO]({
      write(chunk) {
        if (gone(res)) return true;
        if (out.write(chunk)) return true;
        stall ??= setTimeout(() => res.destroy(), limits.maxWriteStallMs).unref();
        return false;
      },
      end() {
        res.off('drain', onDrain);
        unstall();
        if (!gone(res)) {
          stall = setTimeout(() => res.destroy(), limits.maxWriteStallMs).unref();
          res.once('close', unstall);
          res.end(unstall);
        }
        resolve();
      },
    });
    const onDrain = () => {
      unstall();
      control.ready();
    };
    res.on('drain', onDrain);
    res.once('close', () => control.cancel());
  });
}

/** Adds the Retry-After header a Status asks for (429 TooManyRequests). */
function withRetryAfter(r: RawResponse): RawResponse {
  const status = JSON.parse(Buffer.from(r.body ?? []).toString('utf8')) as { details?: { retryAfterSeconds?: number } };
  const after = status.details?.retryAfterSeconds;
  return after ? { ...r, headers: { ...r.headers, 'retry-after': String(after) } } : r;
}

/**
 * Answers a CONNECT request or an upgrade request (node hands these to 'connect' and 'upgrade',
 * not 'request'): authenticated like any request, then routed by the handler, which refuses
 * them where no connect subresource (exec, attach, port-forward) is served; the answer is
 * written on the raw socket, which is then closed (no protocol is switched to).
 */
async function serveConnect(options: HttpsServerOptions, req: IncomingMessage, socket: Duplex): Promise<void> {
  socket.on('error', () => {});
  const r = await connectAnswer(options, req);
  const body = Buffer.from(r.body ?? []);
  let head = `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}\r\n`;
  for (const [k, v] of Object.entries(r.headers)) if (k !== 'content-length' && k !== 'connection' && k !== 'transfer-encoding') head += `${k}: ${v}\r\n`;
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

/** The answer to a CONNECT or upgrade request: authenticated, then routed by the handler. */
async function connectAnswer(options: HttpsServerOptions, req: HttpRequest): Promise<RawResponse> {
  try {
    const { path, search } = splitTarget(req.url ?? '/');
    const user = await authenticate(req, options.authenticator, path);
    const method = req.method === 'CONNECT' ? 'CONNECT' : (req.method ?? 'GET');
    return await options.handler({ method, path, query: queryOf(search), headers: headersOf(req), user });
  } catch (err) {
    return errorResponse(err);
  }
}

/**
 * Answers an upgrade request: authenticated like any request (a refusal is written on the raw
 * socket), then handed with its `user` to `options.upgrade`, which owns the socket.
 */
async function serveUpgrade(options: HttpsServerOptions, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  socket.on('error', () => {});
  const { path, search } = splitTarget(req.url ?? '/');
  let user: UserInfo;
  try {
    user = await authenticate(req, options.authenticator, path);
  } catch (err) {
    const r = errorResponse(err);
    const body = Buffer.from(r.body ?? []);
    socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`, 'latin1'), body]));
    return;
  }
  options.upgrade!({ method: req.method ?? 'GET', path, query: queryOf(search), headers: headersOf(req), user }, req, socket, head);
}

/**
 * An HTTPS server for the API, speaking HTTP/2 (ALPN h2, many requests and watches on one
 * connection, as client-go and kubectl use it) and HTTP/1.1 (ALPN http/1.1 or none; protocol
 * upgrades for exec, attach and port-forward are HTTP/1.1 only): TLS with the serving
 * certificate, every request authenticated
 * (a certificate signed by the client CA, a bearer token) and handed to the handler with its
 * `user`; invalid credentials are 401 everywhere, no credentials 401 on every path but /healthz,
 * /livez, /readyz and /version. Bodies over the limit get 413; past
 * the in-flight bounds requests get 429 (watches are not counted); CONNECT gets an answer too.
 * `closeAllConnections()` ends every HTTP/1.1 connection and HTTP/2 session at once.
 */
export function createHttpsServer(options: HttpsServerOptions): Server {
  const limits = resolveLimits(options.limits);
  const limiter = new InFlightLimiter(limits);
  const onRequest = (req: HttpRequest, res: HttpResponse): void => {
    serve(options, limits, limiter, req, res).catch((err) => {
      if (!res.headersSent) send(req, res, errorResponse(err));
      else res.destroy();
    });
  };
  const server = createSecureServer(
    {
      cert: options.cert,
      key: options.key,
      ca: options.clientCa,
      requestCert: true,
      rejectUnauthorized: false,
      allowHTTP1: true,
      settings: { maxConcurrentStreams: HTTP2_MAX_STREAMS_PER_CONNECTION },
    },
    onRequest,
  );
  // Every connection, to end them all on close (node's HTTP/2 server has no closeAllConnections).
  const sockets = new Set<Socket>();
  const sessions = new Set<Http2Session>();
  server.on('secureConnection', (socket: TLSSocket) => {
    // As node's HTTP/1.1 server does (and Go's): small answers and watch events leave at once,
    // not held back by Nagle's algorithm until the client acknowledges the previous segment.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.on('error', () => {});
    session.once('close', () => sessions.delete(session));
  });
  // "Expect: 100-continue": a body that is refused anyway (no credentials, declared too large)
  // is refused before the client sends it.
  server.on('checkContinue', (req: HttpRequest, res: HttpResponse) => {
    void (async () => {
      const { path, search } = splitTarget(req.url ?? '/');
      let refusal: RawResponse | undefined;
      let user: UserInfo | undefined;
      try {
        user = await authenticate(req, options.authenticator, path);
        if (Number(req.headers['content-length'] ?? 0) > limits.maxBodyBytes) {
          refusal = errorResponse(requestEntityTooLarge(`Request entity too large: limit is ${limits.maxBodyBytes}`));
        }
      } catch (err) {
        refusal = errorResponse(err);
      }
      if (refusal && options.refused) {
        const raw: RawRequest = { method: req.method ?? 'GET', path, query: queryOf(search), headers: headersOf(req), ...(user ? { user } : {}), remoteAddress: req.socket.remoteAddress };
        refusal = options.refused(raw, refusal, user ? undefined : { presentedCertificate: !!(req.socket as TLSSocket).getPeerX509Certificate?.() });
      }
      if (refusal) {
        if (!isHttp2(req)) res.setHeader('connection', 'close');
        send(req, res, refusal);
        return;
      }
      res.writeContinue();
      onRequest(req, res);
    })();
  });
  // HTTP/1.1 hands CONNECT over with the socket, HTTP/2 with a response on its stream.
  server.on('connect', (req: HttpRequest, target: Duplex | Http2ServerResponse) => {
    if (isHttp2(req)) void connectAnswer(options, req).then((r) => send(req, target as Http2ServerResponse, r));
    else void serveConnect(options, req, target as Duplex);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void (options.upgrade ? serveUpgrade(options, req, socket, head) : serveConnect(options, req, socket)));
  // Read by node's HTTP/1.1 connection handling.
  Object.assign(server, { keepAliveTimeout: 65_000, headersTimeout: 70_000, requestTimeout: 0 });
  const closeAllConnections = (): void => {
    for (const session of sessions) session.destroy();
    for (const socket of sockets) socket.destroy();
  };
  // The API server's callers use it as node:https's Server (listen, address, close, closeAllConnections).
  return Object.assign(server, { closeAllConnections }) as unknown as Server;
}
