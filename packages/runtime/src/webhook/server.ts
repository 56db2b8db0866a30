/**
 * The webhook server: HTTPS, one handler per path, controller-runtime's paths for a kind's
 * defaulter (/mutate-…) and validator (/validate-…), and /convert for CRD conversion.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import * as prom from '../prom.js';
import type { KubeObject } from '@kplane/api';
import type { KindDescriptor } from '../kinds/descriptors.js';
import {
  defaultingHandler,
  errored,
  reviewAdmission,
  validatingHandler,
  type AdmissionHandler,
  type AdmissionOperation,
  type CustomDefaulter,
  type CustomValidator,
} from './admission.js';
import { reviewConversion, type KindConversion } from './conversion.js';
import { generateWebhookCertificates } from './certs.js';

/** Options of createWebhookServer. */
export interface WebhookServerOptions {
  /** Port to listen on (default 9443, controller-runtime's; 0 picks a free one). */
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Serving certificate and key, PEM. Both absent: a CA and a certificate for localhost/127.0.0.1 are generated. */
  cert?: string;
  key?: string;
  /** The CA that signed `cert`, PEM, when given: what `caBundle` reports. */
  caCert?: string;
  /**
   * A registry (e.g. a manager's `metrics.registry`) to record controller-runtime's webhook
   * metrics in, labelled by path: `controller_runtime_webhook_requests_total{webhook,code}`,
   * `controller_runtime_webhook_requests_in_flight{webhook}`, `controller_runtime_webhook_latency_seconds{webhook}`.
   */
  registry?: Registry;
}

/** The webhook metrics in `registry`, reused when already registered there. */
function webhookMetrics(registry: Registry) {
  const get = <M>(name: string, make: () => M): M => (registry.getSingleMetric(name) as M | undefined) ?? make();
  return {
    total: get('controller_runtime_webhook_requests_total', () => new prom.Counter({ name: 'controller_runtime_webhook_requests_total', help: 'Total number of admission requests by HTTP status code.', labelNames: ['webhook', 'code'], registers: [registry] })),
    inFlight: get('controller_runtime_webhook_requests_in_flight', () => new prom.Gauge({ name: 'controller_runtime_webhook_requests_in_flight', help: 'Current number of admission requests being served.', labelNames: ['webhook'], registers: [registry] })),
    latency: get('controller_runtime_webhook_latency_seconds', () => new prom.Histogram({ name: 'controller_runtime_webhook_latency_seconds', help: 'Histogram of the latency of processing admission requests', labelNames: ['webhook'], registers: [registry] })),
  };
}

/** A webhook the server serves for a kind, as the configurations must register it. */
export interface RegisteredWebhook {
  type: 'mutating' | 'validating';
  /** e.g. "mgreeting-v1.example.com": unique within its configuration. */
  name: string;
  path: string;
  group: string;
  version: string;
  resource: string;
  operations: AdmissionOperation[];
}

/** What forKind registers. */
export interface KindWebhooks<T extends KubeObject> {
  defaulter?: CustomDefaulter<T>;
  validator?: CustomValidator<T>;
}

/** A running (or ready to run) webhook server. */
export interface WebhookServer {
  /** Serves `handler` for AdmissionReviews POSTed to `path`. */
  register(path: string, handler: AdmissionHandler): this;
  /** Serves a kind's defaulter at /mutate-<group>-<version>-<kind> and validator at /validate-… (dots of the group as dashes, the kind lower-case). */
  forKind<T extends KubeObject>(kind: KindDescriptor<T>, webhooks: KindWebhooks<T>): this;
  /** Serves conversions of a kind at /convert (one path for every kind, as controller-runtime). */
  conversion(conversion: KindConversion): this;
  /** Starts listening; resolves with the base URL, https://HOST:PORT. */
  start(): Promise<string>;
  /** Stops listening and closes open connections. */
  stop(): Promise<void>;
  /** The base URL once started. */
  readonly url: string | undefined;
  /** The CA's PEM, base64: a configuration's `clientConfig.caBundle` (undefined when the certificate was given without its CA). */
  readonly caBundle: string | undefined;
  /** The kinds' webhooks registered with forKind, in order. */
  readonly webhooks: readonly RegisteredWebhook[];
  /** Whether a conversion is registered (served at /convert). */
  readonly converts: boolean;
}

/** controller-runtime's generated path: `/mutate-<group with dashes>-<version>-<kind lower-case>`. */
export function webhookPath(type: 'mutate' | 'validate', kind: { group: string; version: string; kind: string }): string {
  return `/${type}-${kind.group.replace(/\./g, '-')}-${kind.version}-${kind.kind.toLowerCase()}`;
}

/** The webhook's name: `m<kind>-<version>.<group>` (`v…` for validating; the core group as `core.k8s.io`). */
function webhookName(prefix: 'm' | 'v', kind: { group: string; version: string; kind: string }): string {
  const group = kind.group.includes('.') ? kind.group : `${kind.group || 'core'}.k8s.io`;
  return `${prefix}${kind.kind.toLowerCase()}-${kind.version}.${group}`;
}

/** The largest body read, as controller-runtime's limit (7 MiB). */
const MAX_BODY = 7 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error(`request entity is too large; limit is ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, code: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Creates a webhook server (controller-runtime's webhook.Server): HTTPS with the given or a
 * generated certificate, admission handlers per path, and CRD conversion at /convert.
 */
export function createWebhookServer(options: WebhookServerOptions = {}): WebhookServer {
  if (Boolean(options.cert) !== Boolean(options.key)) throw new Error('createWebhookServer: cert and key go together');
  const tls = options.cert && options.key
    ? { cert: options.cert, key: options.key, caBundle: options.caCert ? Buffer.from(options.caCert).toString('base64') : undefined }
    : generateWebhookCertificates();
  const admission = new Map<string, AdmissionHandler>();
  const conversions: KindConversion[] = [];
  const webhooks: RegisteredWebhook[] = [];
  let server: Server | undefined;
  let url: string | undefined;
  const metrics = options.registry ? webhookMetrics(options.registry) : undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    const isConvert = path === '/convert' && conversions.length > 0;
    const handler = admission.get(path);
    if (!handler && !isConvert) return send(res, 404, '404 page not found\n');
    if (req.method !== 'POST') return send(res, 405, `method ${req.method ?? ''} not allowed: only POST\n`);
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    let body: unknown;
    try {
      if (contentType !== 'application/json') throw new Error(`contentType=${contentType}, expected application/json`);
      body = JSON.parse(await readBody(req));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isConvert) return send(res, 400, `${message}\n`);
      return send(res, 200, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: errored('', 400, message) });
    }
    if (isConvert) return send(res, 200, reviewConversion(body, conversions));
    try {
      send(res, 200, await reviewAdmission(body, handler!));
    } catch (err) {
      const uid = (body as { request?: { uid?: string } })?.request?.uid ?? '';
      send(res, 200, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: errored(uid, 500, err instanceof Error ? err.message : String(err)) });
    }
  };

  const self: WebhookServer = {
    register(path, handler) {
      if (!path.startsWith('/')) throw new Error(`webhook path "${path}" must start with "/"`);
      if (admission.has(path) || path === '/convert') throw new Error(`a webhook is already registered at "${path}"`);
      admission.set(path, handler);
      return self;
    },
    forKind(kind, { defaulter, validator }) {
      if (!defaulter && !validator) throw new Error(`forKind(${kind.kind}): give a defaulter, a validator or both`);
      const base = { group: kind.group, version: kind.version, resource: kind.resource };
      if (defaulter) {
        const path = webhookPath('mutate', kind);
        self.register(path, defaultingHandler(defaulter));
        webhooks.push({ type: 'mutating', name: webhookName('m', kind), path, ...base, operations: ['CREATE', 'UPDATE'] });
      }
      if (validator) {
        const path = webhookPath('validate', kind);
        self.register(path, validatingHandler(validator));
        const operations: AdmissionOperation[] = validator.validateDelete ? ['CREATE', 'UPDATE', 'DELETE'] : ['CREATE', 'UPDATE'];
        webhooks.push({ type: 'validating', name: webhookName('v', kind), path, ...base, operations });
      }
      return self;
    },
    conversion(conversion) {
      if (conversions.some((c) => c.group === conversion.group && c.kind === conversion.kind)) {
        throw new Error(`a conversion of ${conversion.kind}.${conversion.group} is already registered`);
      }
      conversions.push(conversion);
      return self;
    },
    async start() {
      if (server) throw new Error('the webhook server is already started');
      const s = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
        if (metrics) {
          const webhook = new URL(req.url ?? '/', 'https://webhook').pathname;
          const end = metrics.latency.startTimer({ webhook });
          metrics.inFlight.inc({ webhook });
          let done = false;
          const record = (): void => {
            if (done) return;
            done = true;
            end();
            metrics.inFlight.dec({ webhook });
            metrics.total.inc({ webhook, code: String(res.statusCode) });
          };
          // 'finish' comes before the client can have the whole answer; 'close' covers an aborted one.
          res.once('finish', record);
          res.once('close', record);
        }
        handle(req, res).catch((err: unknown) => {
          if (!res.headersSent) send(res, 500, `${err instanceof Error ? err.message : String(err)}\n`);
          else res.destroy();
        });
      });
      const host = options.host ?? '127.0.0.1';
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(options.port ?? 9443, host, () => {
          s.off('error', reject);
          resolve();
        });
      });
      server = s;
      const port = (s.address() as AddressInfo).port;
      url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
      return url;
    },
    async stop() {
      const s = server;
      if (!s) return;
      server = undefined;
      url = undefined;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
    get url() {
      return url;
    },
    get caBundle() {
      return tls.caBundle;
    },
    get webhooks() {
      return webhooks;
    },
    get converts() {
      return conversions.length > 0;
    },
  };
  return self;
}
