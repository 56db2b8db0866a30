import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

/** Options of createBareServer. */
export interface BareServerOptions {
  /** Serving certificate and key (PEM); without them the server speaks plain HTTP. */
  tls?: { cert: string; key: string };
  /** The JSON every GET answers with (ideally the very bytes kplane answers for one ConfigMap). */
  getBody: Uint8Array;
}

/** A listening baseline server. */
export interface BareServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The request handler of the baseline: GET answers 200 with the fixed body; POST parses the
 * JSON body, stamps a uid, resourceVersion and creationTimestamp into `metadata`, and answers
 * 201 with it re-serialized; anything else is 404. No routing, auth, validation or storage:
 * this is the most a Node JSON server can do per request.
 */
export function createBareHandler(options: BareServerOptions): http.RequestListener {
  const getBody = Buffer.from(options.getBody);
  let revision = 1;
  const json = (res: http.ServerResponse, status: number, body: Buffer): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  };
  return (req, res) => {
    if (req.method === 'GET') {
      req.resume();
      json(res, 200, getBody);
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      json(res, 404, Buffer.from('{"kind":"Status","status":"Failure","code":404}'));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let obj: { metadata?: Record<string, unknown> };
      try {
        obj = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof obj;
      } catch {
        json(res, 400, Buffer.from('{"kind":"Status","status":"Failure","code":400}'));
        return;
      }
      obj.metadata = {
        ...obj.metadata,
        uid: randomUUID(),
        resourceVersion: String(++revision),
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      };
      json(res, 201, Buffer.from(JSON.stringify(obj)));
    });
  };
}

/** Starts the baseline server (HTTPS when `tls` is given) on 127.0.0.1 and a free port. */
export async function startBareServer(options: BareServerOptions): Promise<BareServer> {
  const handler = createBareHandler(options);
  const server = options.tls
    ? https.createServer({ cert: options.tls.cert, key: options.tls.key, keepAlive: true }, handler)
    : http.createServer({ keepAlive: true }, handler);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
