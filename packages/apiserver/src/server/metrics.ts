/**
 * The API server's Prometheus metrics, served at /metrics (kube-apiserver's names, labels and
 * buckets): requests by verb, resource and code, and admission (phases, plugins, webhooks).
 * Each API server has a registry of its own, so several in one process never mix their series.
 */
import { createRequire } from 'node:module';
import type { Registry } from 'prom-client';
import { ApiError, type RawRequest, type RawResponse } from '@kplane/api';
import type { AdmissionMetrics } from '../admission/metrics.js';
import { CounterVec, HistogramVec, ScrapedMetric } from './metric-vec.js';
import type { ParsedPath } from './request-info.js';

/**
 * prom-client's Registry class alone: the package's main module also loads the default process
 * metrics, the push gateway and @opentelemetry/api (about 50 ms of every start). Another file
 * layout falls back to the main module.
 */
function registryClass(): typeof Registry {
  const load = createRequire(import.meta.url);
  try {
    const R = load('prom-client/lib/registry') as unknown;
    if (typeof R === 'function') return R as typeof Registry;
  } catch {
    // another layout: the main module below
  }
  return (load('prom-client') as { Registry: typeof Registry }).Registry;
}

/** kube's buckets of admission step and plugin latencies (5 ms … 2.5 s). */
const ADMISSION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
/** kube's buckets of webhook latencies (up to 25 s: webhooks time out after 30 s at most). */
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];
/** kube's buckets of request latencies. */
const REQUEST_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** The subresources the built-in kinds serve (besides a kind's own `extra` ones). */
const SUBRESOURCES = new Set(['status', 'scale', 'binding', 'eviction', 'log', 'exec', 'attach', 'portforward', 'proxy', 'ephemeralcontainers', 'resize', 'token', 'finalize', 'approval']);

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

/** kube's cleanDryRun: the sorted, deduplicated dryRun values ("All"), "" without any. */
function dryRunLabel(query: Record<string, string> | undefined): string {
  const v = query?.dryRun;
  if (!v) return '';
  return v === 'All' ? 'All' : 'invalid';
}

/** Options of createApiServerMetrics. */
export interface ApiServerMetricsOptions {
  /**
   * The served resource of a request path, if any: only requests to served resources and
   * subresources are counted (kube instruments its routes only), so that paths a client makes
   * up never add series.
   */
  served?(group: string, version: string, resource: string): { subresources?: { extra?: readonly string[] } } | undefined;
}

/** Creates the metrics of one API server, in a registry of its own. */
export function createApiServerMetrics(options: ApiServerMetricsOptions = {}): ApiServerMetrics {
  const registry = new (registryClass())();
  const requestTotal = new CounterVec(
    'apiserver_request_total',
    '[STABLE] Requests answered, by verb, dry run, group, version, resource, subresource, scope, component and HTTP code.',
    ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
    registry,
  );
  const requestDuration = new HistogramVec(
    'apiserver_request_duration_seconds',
    '[STABLE] Time to answer a request in seconds, by verb, dry run, group, version, resource, subresource, scope and component.',
    ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    REQUEST_BUCKETS,
    registry,
  );
  const step = new HistogramVec(
    'apiserver_admission_step_admission_duration_seconds',
    '[STABLE] Time of an admission phase in seconds, by phase (admit or validate), operation and whether it rejected the request.',
    ['type', 'operation', 'rejected'],
    ADMISSION_BUCKETS,
    registry,
  );
  const controller = new HistogramVec(
    'apiserver_admission_controller_admission_duration_seconds',
    '[STABLE] Time of one admission plugin in seconds, by plugin name, phase, operation and whether it rejected the request.',
    ['name', 'type', 'operation', 'rejected'],
    ADMISSION_BUCKETS,
    registry,
  );
  const webhook = new HistogramVec(
    'apiserver_admission_webhook_admission_duration_seconds',
    '[STABLE] Time of one admission webhook call in seconds, by webhook name, type (admit or validating), operation and whether it rejected the request.',
    ['name', 'type', 'operation', 'rejected'],
    WEBHOOK_BUCKETS,
    registry,
  );
  const webhookRejection = new CounterVec(
    'apiserver_admission_webhook_rejection_count',
    '[ALPHA] Requests an admission webhook refused, by webhook name, type, operation, error type (calling_webhook_error, apiserver_internal_error or no_error) and the code it refused with (at most 600).',
    ['name', 'type', 'operation', 'error_type', 'rejection_code'],
    registry,
  );
  const webhookRequest = new CounterVec(
    'apiserver_admission_webhook_request_total',
    '[ALPHA] Admission webhook calls, by webhook name, type, operation, code (at most 600) and whether the request was rejected.',
    ['name', 'type', 'operation', 'code', 'rejected'],
    registry,
  );
  const webhookFailOpen = new CounterVec(
    'apiserver_admission_webhook_fail_open_count',
    '[ALPHA] Admission webhook calls that failed and were ignored (failurePolicy Ignore), by webhook name and type.',
    ['name', 'type'],
    registry,
  );
  const conditionErrors = new CounterVec(
    'apiserver_admission_match_condition_evaluation_errors_total',
    '[ALPHA] matchConditions that failed to evaluate, by the webhook or policy name, kind (webhook or policy), type and operation.',
    ['name', 'kind', 'type', 'operation'],
    registry,
  );
  const conditionExclusions = new CounterVec(
    'apiserver_admission_match_condition_exclusions_total',
    '[ALPHA] Requests matchConditions excluded, by the webhook or policy name, kind (webhook or policy), type and operation.',
    ['name', 'kind', 'type', 'operation'],
    registry,
  );
  const conditionTime = new HistogramVec(
    'apiserver_admission_match_condition_evaluation_seconds',
    '[ALPHA] Time to evaluate matchConditions in seconds, by the webhook or policy name, kind (webhook or policy), type and operation.',
    ['name', 'kind', 'type', 'operation'],
    ADMISSION_BUCKETS,
    registry,
  );
  // The process metrics kube-apiserver exposes too (read at scrape time, no timers).
  new ScrapedMetric('process_cpu_seconds_total', 'CPU time (user and system) the process has used, in seconds.', 'counter', () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }, registry);
  new ScrapedMetric('process_resident_memory_bytes', 'Memory the process holds in RAM (RSS), in bytes.', 'gauge', () => process.memoryUsage.rss(), registry);
  const startTime = Math.round(Date.now() / 1000 - process.uptime());
  new ScrapedMetric('process_start_time_seconds', 'When the process started, in seconds since the Unix epoch.', 'gauge', () => startTime, registry);

  const capped = (code: number) => String(Math.min(code, 600));

  return {
    registry,
    observeRequest(req, parsed, code, seconds) {
      if (!parsed || parsed.kind !== 'resource') return;
      const info = parsed.info;
      if (options.served) {
        const type = options.served(info.group, info.version, info.resource);
        if (!type) return;
        if (info.subresource && !SUBRESOURCES.has(info.subresource) && !type.subresources?.extra?.includes(info.subresource)) return;
      }
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
      requestDuration.observe(labels, seconds);
      labels.push(String(code));
      requestTotal.inc(labels);
    },
    observeStep(type, operation, rejected, seconds) {
      step.observe([type, operation, String(rejected)], seconds);
    },
    observeController(name, type, operation, rejected, seconds) {
      controller.observe([name, type, operation, String(rejected)], seconds);
    },
    observeWebhook(name, type, operation, code, rejected, seconds) {
      webhookRequest.inc([name, type, operation, capped(code), String(rejected)]);
      webhook.observe([name, type, operation, String(rejected)], seconds);
    },
    observeWebhookRejection(name, type, operation, errorType, code) {
      webhookRejection.inc([name, type, operation, errorType, capped(code)]);
    },
    observeWebhookFailOpen(name, type) {
      webhookFailOpen.inc([name, type]);
    },
    observeMatchConditions(name, kind, type, operation, outcome, seconds) {
      const labels = [name, kind, type, operation];
      conditionTime.observe(labels, seconds);
      if (outcome === 'error') conditionErrors.inc(labels);
      else if (outcome === 'excluded') conditionExclusions.inc(labels);
    },
    async serve(method) {
      if (method !== 'GET' && method !== 'HEAD') throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      return { status: 200, headers: { 'content-type': registry.contentType }, body: Buffer.from(await registry.metrics()) };
    },
  };
}
