/**
 * The API server's Prometheus metrics, served at /metrics (kube-apiserver's names, labels and
 * buckets): requests by verb, resource and code, and admission (phases, plugins, webhooks).
 * Each API server has a registry of its own, so several in one process never mix their series.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { ApiError, type RawRequest, type RawResponse } from '@kplane/api';
import type { AdmissionMetrics } from '../admission/metrics.js';
import type { ParsedPath } from './request-info.js';

/** kube's buckets of admission step and plugin latencies (5 ms … 2.5 s). */
const ADMISSION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
/** kube's buckets of webhook latencies (up to 25 s: webhooks time out after 30 s at most). */
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];
/** kube's buckets of request latencies. */
const REQUEST_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** The subresources kube reports with the verb CONNECT. */
const CONNECT_SUBRESOURCES = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);

/** The API server's metrics: the admission sink plus request accounting and the exposition. */
export interface ApiServerMetrics extends AdmissionMetrics {
  /** This server's registry (one per server). */
  readonly registry: Registry;
  /** Counts one answered resource request (`apiserver_request_total`, `apiserver_request_duration_seconds`). */
  observeRequest(req: RawRequest, parsed: ParsedPath | undefined, code: number, seconds: number): void;
  /** GET /metrics: the Prometheus text exposition. */
  serve(method: string): Promise<RawResponse>;
}

/** A label-values cache in front of a metric, so the hot path skips prom-client's label hashing. */
function children<T>(make: (values: string[]) => T): (...values: string[]) => T {
  const cache = new Map<string, T>();
  return (...values) => {
    const key = values.join('\0');
    let child = cache.get(key);
    if (!child) {
      child = make(values);
      cache.set(key, child);
    }
    return child;
  };
}

/** kube's cleanDryRun: the sorted, deduplicated dryRun values ("All"), "" without any. */
function dryRunLabel(query: Record<string, string> | undefined): string {
  const v = query?.dryRun;
  if (!v) return '';
  return v === 'All' ? 'All' : 'invalid';
}

/** Creates the metrics of one API server, in a registry of its own. */
export function createApiServerMetrics(): ApiServerMetrics {
  const registry = new Registry();
  const requestTotal = new Counter({
    name: 'apiserver_request_total',
    help: '[STABLE] Requests answered, by verb, dry run, group, version, resource, subresource, scope, component and HTTP code.',
    labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: '[STABLE] Time to answer a request in seconds, by verb, dry run, group, version, resource, subresource, scope and component.',
    labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const step = new Histogram({
    name: 'apiserver_admission_step_admission_duration_seconds',
    help: '[STABLE] Time of an admission phase in seconds, by phase (admit or validate), operation and whether it rejected the request.',
    labelNames: ['type', 'operation', 'rejected'],
    buckets: ADMISSION_BUCKETS,
    registers: [registry],
  });
  const controller = new Histogram({
    name: 'apiserver_admission_controller_admission_duration_seconds',
    help: '[STABLE] Time of one admission plugin in seconds, by plugin name, phase, operation and whether it rejected the request.',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: ADMISSION_BUCKETS,
    registers: [registry],
  });
  const webhook = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: '[STABLE] Time of one admission webhook call in seconds, by webhook name, type (admit or validating), operation and whether it rejected the request.',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: WEBHOOK_BUCKETS,
    registers: [registry],
  });
  const webhookRejection = new Counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: '[ALPHA] Requests an admission webhook refused, by webhook name, type, operation, error type (calling_webhook_error, apiserver_internal_error or no_error) and the code it refused with (at most 600).',
    labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
    registers: [registry],
  });
  const webhookRequest = new Counter({
    name: 'apiserver_admission_webhook_request_total',
    help: '[ALPHA] Admission webhook calls, by webhook name, type, operation, code (at most 600) and whether the request was rejected.',
    labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
    registers: [registry],
  });
  const webhookFailOpen = new Counter({
    name: 'apiserver_admission_webhook_fail_open_count',
    help: '[ALPHA] Admission webhook calls that failed and were ignored (failurePolicy Ignore), by webhook name and type.',
    labelNames: ['name', 'type'],
    registers: [registry],
  });

  const requestCount = children((v) => requestTotal.labels(...v));
  const requestTime = children((v) => requestDuration.labels(...v));
  const stepTime = children((v) => step.labels(...v));
  const controllerTime = children((v) => controller.labels(...v));
  const webhookTime = children((v) => webhook.labels(...v));
  const capped = (code: number) => String(Math.min(code, 600));

  return {
    registry,
    observeRequest(req, parsed, code, seconds) {
      if (!parsed || parsed.kind !== 'resource') return;
      const info = parsed.info;
      const method = req.method.toUpperCase();
      // kube's CleanScope: an object (or a create) is "resource", else its namespace or the cluster.
      const scope = info.name || method === 'POST' ? 'resource' : info.namespace ? 'namespace' : 'cluster';
      const q = req.query;
      let verb: string;
      if (info.watchPath || (method === 'GET' && q?.watch && q.watch !== '0' && q.watch !== 'false')) verb = 'WATCH';
      else if (method === 'GET' || method === 'HEAD') verb = scope === 'resource' ? 'GET' : 'LIST';
      else if (method === 'PATCH' && req.headers?.['content-type']?.startsWith('application/apply-patch')) verb = 'APPLY';
      else if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) verb = method;
      else verb = 'other';
      if (info.subresource && CONNECT_SUBRESOURCES.has(info.subresource)) verb = 'CONNECT';
      const labels = [verb, dryRunLabel(q), info.group, info.version, info.resource, info.subresource ?? '', scope, 'apiserver'];
      requestCount(...labels, String(code)).inc();
      requestTime(...labels).observe(seconds);
    },
    observeStep(type, operation, rejected, seconds) {
      stepTime(type, operation, String(rejected)).observe(seconds);
    },
    observeController(name, type, operation, rejected, seconds) {
      controllerTime(name, type, operation, String(rejected)).observe(seconds);
    },
    observeWebhook(name, type, operation, code, rejected, seconds) {
      webhookRequest.labels(name, type, operation, capped(code), String(rejected)).inc();
      webhookTime(name, type, operation, String(rejected)).observe(seconds);
    },
    observeWebhookRejection(name, type, operation, errorType, code) {
      webhookRejection.labels(name, type, operation, errorType, capped(code)).inc();
    },
    observeWebhookFailOpen(name, type) {
      webhookFailOpen.labels(name, type).inc();
    },
    async serve(method) {
      if (method !== 'GET' && method !== 'HEAD') throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      return { status: 200, headers: { 'content-type': registry.contentType }, body: Buffer.from(await registry.metrics()) };
    },
  };
}
