import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { timingSafeEqual } from 'node:crypto';
import type { RawRequest, RawResponse } from '@kplane/api';
import { requestEntityTooLarge, unauthorized } from '@kplane/api';
import { errorResponse } from './handler.js';

/** Largest request body accepted (kube-apiserver's limit for JSON bodies). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Paths anyone may read without credentials (system:public-info-viewer). */
const PUBLIC_PATHS = /^\/(healthz|livez|readyz|version)(\/.*)?$/;

/** Options of createHttpsServer. */
export interface HttpsServerOptions {
  handler: (req: RawRequest) => Promise<RawResponse>;
  /** Serving certificate and key (PEM). */
  cert: string;
  key: string;
  /** CA that signs client certificates (PEM). */
  clientCa: string;
  /** Bearer tokens accepted, each mapped to a user name. */
  tokens: Map<string, string>;
}

function tokenMatches(given: string, tokens: Map<string, string>): string | undefined {
  const g = Buffer.from(given);
  for (const [t, user] of tokens) {
    const b = Buffer.from(t);
    if (b.length === g.length && timingSafeEqual(b, g)) return user;
  }
  return undefined;
}

/** The client-certificate identity of each TLS connection, read once per connection. */
const certIdentity = new WeakMap<TLSSocket, string | null>();

/** Who made a request, or undefined when unauthenticated. */
export function authenticate(req: IncomingMessage, tokens: Map<string, string>): string | undefined {
  const auth = req.headers.authorization;
  if (auth && /^bearer /i.test(auth)) return tokenMatches(auth.slice(7).trim(), tokens);
  const sock = req.socket as TLSSocket;
  let user = certIdentity.get(sock);
  if (user === undefined) {
    user = null;
    if (sock.authorized) {
      const cn = sock.getPeerCertificate()?.subject?.CN;
      if (cn) user = Array.isArray(cn) ? cn[0]! : cn;
    }
    certIdentity.set(sock, user);
  }
  return user ?? undefined;
}

function send(res: ServerResponse, r: RawResponse): void {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw requestEntityTooLarge(`the request body is larger than the limit of ${MAX_BODY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES) throw requestEntityTooLarge(`the request body is larger than the limit of ${MAX_BODY_BYTES} bytes`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Turns a node request into a RawRequest and writes the RawResponse back. */
async function serve(options: HttpsServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://localhost');
  if (!PUBLIC_PATHS.test(url.pathname) && authenticate(req, options.tokens) === undefined) {
    req.resume();
    send(res, errorResponse(unauthorized()));
    return;
  }
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (err) {
    res.setHeader('connection', 'close');
    send(res, errorResponse(err));
    req.resume();
    return;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
  const raw: RawRequest = { method: req.method ?? 'GET', path: url.pathname, query, headers, body };
  if (query.watch !== undefined || url.pathname.includes('/watch/')) {
    // Only streams need to learn that the client went away.
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    raw.signal = abort.signal;
  }
  const r = await options.handler(raw);
  if (!r.stream) {
    send(res, r);
    return;
  }
  const { 'transfer-encoding': _te, ...headersOut } = r.headers;
  res.writeHead(r.status, headersOut);
  res.flushHeaders();
  try {
    for await (const chunk of r.stream) {
      if (res.destroyed) break;
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    }
  } finally {
    res.end();
  }
}

/**
 * An HTTPS server for the API: TLS with the serving certificate, clients authenticated by a
 * certificate signed by the client CA or by a bearer token; every path but /healthz, /livez,
 * /readyz and /version needs credentials (401 otherwise).
 */
export function createHttpsServer(options: HttpsServerOptions): Server {
  const server = createServer(
    {
      cert: options.cert,
      key: options.key,
      ca: options.clientCa,
      requestCert: true,
      rejectUnauthorized: false,
      keepAlive: true,
    },
    (req, res) => {
      serve(options, req, res).catch((err) => {
        if (!res.headersSent) send(res, errorResponse(err));
        else res.destroy();
      });
    },
  );
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  server.requestTimeout = 0;
  return server;
}
