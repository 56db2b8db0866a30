/**
 * Calling a webhook, as admission webhooks and CRD conversion webhooks both do (kube's
 * k8s.io/apiserver/pkg/util/webhook): a clientConfig becomes a target — a URL as given, or a
 * Service resolved through its EndpointSlices — and a JSON body is POSTed to it over HTTPS, the
 * server's certificate verified against the caBundle with the service's DNS name as server name.
 * Failures are WebhookRequestErrors worded as Go's HTTP client and kube's service resolver word
 * them; each caller puts its own prefix before them.
 */
import type { ClientRequest } from 'node:http';
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { ApiError, type KubeObject } from '@kplane/api';

/** A webhook's clientConfig (admissionregistration/v1 and apiextensions/v1 WebhookClientConfig). */
export interface ClientConfig {
  url?: string;
  service?: { namespace?: string; name?: string; path?: string; port?: number };
  caBundle?: string;
}

/** Where a webhook is reached: the URL kube names it by, and the address dialled. */
export interface WebhookTarget {
  /** The URL as errors name it, e.g. "https://hook.default.svc:443/validate?timeout=10s". */
  url: string;
  /** The host name the certificate is checked against. */
  serverName: string;
  /** The address and port dialled. */
  host: string;
  port: number;
  /** The path and query sent. */
  path: string;
}

/** What resolving a service reference reads: Services and EndpointSlices of a namespace. */
export interface ServiceLister {
  /** The objects of a resource in one namespace. */
  list(group: string, version: string, resource: string, namespace: string): Promise<KubeObject[]>;
}

/**
 * A webhook that could not be reached or answered with something other than JSON. `message` is
 * Go's wording (e.g. `Post "https://…": dial tcp 127.0.0.1:9443: connect: connection refused`);
 * `invalidResponse` is set when the call succeeded but the body is not JSON.
 */
export class WebhookRequestError extends Error {
  constructor(
    message: string,
    readonly invalidResponse = false,
    /** The webhook's HTTP status when it answered outside 2xx. */
    readonly statusCode?: number,
  ) {
    super(message);
    this.name = 'WebhookRequestError';
  }
}

type Obj = Record<string, unknown>;
const asArray = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** A ready endpoint of the Service, at the EndpointSlice port named as the Service's port `port`. */
async function endpointFor(objects: ServiceLister, namespace: string, name: string, port: number): Promise<{ host: string; port: number }> {
  const services = await objects.list('', 'v1', 'services', namespace);
  const svc = services.find((s) => s.metadata?.name === name);
  if (!svc) throw new Error(`service "${name}" not found`);
  const svcPort = asArray((svc.spec as Obj | undefined)?.ports).find((p) => p.port === port);
  if (!svcPort) throw new Error(`no service port ${port} found for service "${name}"`);
  const slices: KubeObject[] = (await objects.list('discovery.k8s.io', 'v1', 'endpointslices', namespace)).filter(
    (s) => s.metadata?.labels?.['kubernetes.io/service-name'] === name,
  );
  for (const slice of slices) {
    const slicePort = asArray((slice as Obj).ports).find((p) => (p.name ?? '') === (svcPort.name ?? ''));
    if (typeof slicePort?.port !== 'number') continue;
    for (const ep of asArray((slice as Obj).endpoints)) {
      const ready = (ep.conditions as Obj | undefined)?.ready;
      const address = (ep.addresses as string[] | undefined)?.[0];
      if (ready !== false && address) return { host: address, port: slicePort.port };
    }
  }
  throw new Error(`no endpoints available for service "${name}"`);
}

/**
 * Resolves where a webhook is called, with `?timeout=Ns` added to its path as kube's REST client
 * adds it. A service reference becomes https://NAME.NAMESPACE.svc:PORT/PATH (the name the
 * certificate is checked against), dialled at a ready endpoint of the Service's EndpointSlices;
 * a Service or endpoint that cannot be found is a WebhookRequestError (`Post "URL": service "x"
 * not found`, `… no endpoints available for service "x"`).
 */
export async function resolveWebhookTarget(config: ClientConfig, timeoutSeconds: number, objects: ServiceLister): Promise<WebhookTarget> {
  // Go's Duration.String(): "30s", "1.5s", under a second "50ms".
  const query = `timeout=${timeoutSeconds < 1 && timeoutSeconds > 0 ? `${Math.round(timeoutSeconds * 1000)}ms` : `${timeoutSeconds}s`}`;
  if (config.url) {
    const u = new URL(config.url);
    u.search = u.search ? `${u.search}&${query}` : query;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    return { url: u.toString(), serverName: host, host, port: Number(u.port || 443), path: `${u.pathname}${u.search}` };
  }
  const svc = config.service ?? {};
  const namespace = svc.namespace ?? '';
  const name = svc.name ?? '';
  const port = svc.port ?? 443;
  const path = `${svc.path || '/'}?${query}`;
  const serverName = `${name}.${namespace}.svc`;
  const url = `https://${serverName}:${port}${path}`;
  try {
    const ep = await endpointFor(objects, namespace, name, port);
    return { url, serverName, host: ep.host, port: ep.port, path };
  } catch (err) {
    const why = err instanceof ApiError || err instanceof Error ? err.message : String(err);
    throw new WebhookRequestError(`Post "${url}": ${why}`);
  }
}

/** Go's wording of a connection or TLS failure, as net/http reports it. */
function goError(err: NodeJS.ErrnoException, target: WebhookTarget): string {
  const addr = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${target.host}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${target.serverName}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return err.message;
  }
}

/**
 * Connections to webhooks stay open between calls, as kube-apiserver's webhook clients keep
 * theirs: one TLS handshake per connection rather than per call (Node pools them by address,
 * server name and CA; idle ones do not keep the process alive and close after a minute).
 */
const keepAlive = new Agent({ keepAlive: true, timeout: 60_000 });

/** Errors of a kept-alive connection the server closed just as it was reused: the call is sent again on a new one. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * POSTs `body` as JSON to the target and returns the parsed answer, on a kept-alive connection.
 * The CA bundle (base64 PEM, a clientConfig's caBundle) verifies the server; without one the
 * system's roots do. After `timeoutMs` the call is abandoned (`context deadline exceeded`).
 * Failures are WebhookRequestErrors: `Post "URL": …` for transport and TLS failures, a status
 * outside 2xx (with its statusCode) or an empty body as kube's REST client words them, and a
 * body that is not JSON (invalidResponse).
 */
export function postJson(target: WebhookTarget, body: unknown, caBundle: string | undefined, timeoutMs: number): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  const failed = (why: string, statusCode?: number) => new WebhookRequestError(`Post "${target.url}": ${why}`, false, statusCode);
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    let req: ClientRequest;
    const send = (retry: boolean) => {
      req = request(
        {
          host: target.host,
          port: target.port,
          path: target.path,
          method: 'POST',
          // Node checks the certificate against `servername` (SNI) when set, else against the host.
          servername: isIP(target.serverName) ? undefined : target.serverName,
          ca: caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined,
          headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': payload.length },
          agent: keepAlive,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) => done(() => reject(failed(goError(err, target)))));
          res.on('end', () =>
            done(() => {
              const text = Buffer.concat(chunks).toString('utf8');
              const code = res.statusCode ?? 0;
              if (code < 200 || code > 299) {
                reject(failed(`the server responded with the status code ${code} but did not return more information`, code));
                return;
              }
              if (text.length === 0) {
                reject(new WebhookRequestError(`0-length response with status code: ${code} and content type: ${res.headers['content-type'] ?? ''}`));
                return;
              }
              try {
                resolve(JSON.parse(text));
              } catch (err) {
                reject(new WebhookRequestError((err as Error).message, true));
              }
            }),
          );
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (retry && !settled && req.reusedSocket && STALE_CONNECTION.has(err.code ?? '')) return send(false);
        done(() => reject(failed(goError(err, target))));
      });
      req.end(payload);
    };
    const timer = setTimeout(() => {
      done(() => reject(failed('context deadline exceeded')));
      req.destroy();
    }, timeoutMs);
    send(true);
  });
}
