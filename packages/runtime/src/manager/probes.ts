/**
 * The manager's plain-HTTP endpoints, with controller-runtime's conventions: a metrics server
 * (`/metrics`) and a health probe server (`/healthz`, `/readyz` and one path per named check).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A named health check: passes unless it throws, rejects, returns `false` or returns an Error
 * (controller-runtime's `healthz.Checker`, a `func(*http.Request) error`).
 */
export type HealthCheck = (req: IncomingMessage) => unknown;

/** The checks of one endpoint (`/healthz` or `/readyz`), in registration order. */
export type HealthChecks = Map<string, HealthCheck>;

/** A bound server. */
export interface BoundServer {
  /** `http://host:port` (a wildcard bind address is given as 127.0.0.1). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Parses a bind address as controller-runtime takes them: `host:port`, `:port` (every
 * interface), `[v6]:port`. `"0"` or `""` means disabled (undefined). Throws on anything else.
 */
export function parseBindAddress(address: string | undefined, what: string): { host?: string; port: number } | undefined {
  if (address === undefined || address === '' || address === '0') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`invalid ${what} ${JSON.stringify(address)}: want host:port, :port or "0" to disable`);
  const host = m[1] ?? m[2];
  return { host: host === '' ? undefined : host, port };
}

function failed(res: ServerResponse, body: string): void {
  // As Go's http.Error: 500, text/plain, nosniff, a trailing newline.
  res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(`${body}\n`);
}

function ok(res: ServerResponse, body: string, contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(200, { 'content-type': contentType, 'x-content-type-options': 'nosniff' });
  res.end(body);
}

/** Runs one check: undefined when it passed, else the error. */
async function run(check: HealthCheck, req: IncomingMessage): Promise<unknown> {
  try {
    const r = await check(req);
    if (r === false) return new Error('check returned false');
    if (r instanceof Error) return r;
    return undefined;
  } catch (err) {
    return err ?? new Error('check failed');
  }
}

/**
 * Serves one health endpoint as controller-runtime's healthz handler: every check runs;
 * all passing → 200 `ok` (the list with `?verbose`); any failing → 500 listing
 * `[+]name ok` / `[-]name failed: reason withheld` and `healthz check failed`. `?exclude=name`
 * skips a check. `path/name` runs that check alone and shows its error.
 */
async function serveChecks(checks: HealthChecks, rest: string, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const all: HealthChecks = checks.size > 0 ? checks : new Map([['ping', () => undefined]]);
  if (rest !== '') {
    const check = all.get(rest.slice(1));
    if (!check) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
      res.end('404 page not found\n');
      return;
    }
    const err = await run(check, req);
    if (err !== undefined) return failed(res, `internal server error: ${err instanceof Error ? err.message : String(err)}`);
    return ok(res, 'ok');
  }
  const excluded = new Set(url.searchParams.getAll('exclude'));
  let out = '';
  let anyFailed = false;
  for (const [name, check] of all) {
    if (excluded.delete(name)) {
      out += `[+]${name} excluded: ok\n`;
      continue;
    }
    if ((await run(check, req)) !== undefined) {
      out += `[-]${name} failed: reason withheld\n`;
      anyFailed = true;
    } else out += `[+]${name} ok\n`;
  }
  if (excluded.size > 0) out += `warn: some health checks cannot be excluded: no matches for ${[...excluded].sort().map((n) => JSON.stringify(n)).join(',')}\n`;
  if (anyFailed) return failed(res, `${out}healthz check failed`);
  if (!url.searchParams.has('verbose')) return ok(res, 'ok');
  ok(res, `${out}healthz check passed\n`);
}

async function listen(server: Server, bind: { host?: string; port: number }): Promise<BoundServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () => {
      server.off('error', reject);
      server.on('error', (err) => console.error('manager http server:', err));
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const wildcard = bind.host === undefined || bind.host === '0.0.0.0' || bind.host === '::';
  const host = wildcard ? '127.0.0.1' : bind.host!;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Serves `/metrics` (GET) with the Prometheus text of `metrics`. Resolves once listening. */
export function serveMetricsHttp(
  bind: { host?: string; port: number },
  metrics: { metricsText(): Promise<string>; readonly contentType: string },
): Promise<BoundServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return;
    }
    metrics.metricsText().then(
      (text) => ok(res, text, metrics.contentType),
      (err) => failed(res, `error gathering metrics: ${err instanceof Error ? err.message : String(err)}`),
    );
  });
  return listen(server, bind);
}

/** Serves `/healthz[/name]` from `healthz` and `/readyz[/name]` from `readyz`. Resolves once listening. */
export function serveHealthProbes(bind: { host?: string; port: number }, healthz: HealthChecks, readyz: HealthChecks): Promise<BoundServer> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const m = /^\/(healthz|readyz)(\/.*)?$/.exec(url.pathname);
    if (!m) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return;
    }
    serveChecks(m[1] === 'healthz' ? healthz : readyz, m[2] ?? '', url, req, res).catch((err) => {
      if (!res.headersSent) failed(res, String(err));
      else res.destroy();
    });
  });
  return listen(server, bind);
}
