/**
 * The admissionregistration.k8s.io/v1 configurations (and a CRD's conversion stanza) that point
 * the API server at a running webhook server, as kubebuilder's manifests and envtest's
 * WebhookInstallOptions make them.
 */
import type { CustomResourceConversion, LabelSelector, MutatingWebhookConfiguration, ValidatingWebhookConfiguration, WebhookClientConfig } from '../kinds/builtin/index.js';
import type { WebhookServer } from './server.js';

/** Options of webhookConfigurations. */
export interface WebhookConfigurationOptions {
  /** Names of the two configurations (default kubebuilder's: mutating-webhook-configuration, validating-webhook-configuration). */
  mutatingName?: string;
  validatingName?: string;
  /** Base URL the API server reaches the server at (default the server's own `url`). */
  url?: string;
  /**
   * Reach the server through a Service instead of a URL: `clientConfig.service` with the path
   * (the certificate must then be valid for `<name>.<namespace>.svc`: generate it with those
   * `hosts`).
   */
  service?: { namespace: string; name: string; port?: number };
  /** caBundle (base64 PEM) (default the server's). */
  caBundle?: string;
  /** Default Fail. */
  failurePolicy?: 'Fail' | 'Ignore';
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  timeoutSeconds?: number;
}

/** The two configurations; a configuration with no webhook is still returned, with `webhooks: []`. */
export interface WebhookConfigurations {
  mutating: MutatingWebhookConfiguration;
  validating: ValidatingWebhookConfiguration;
}

/** The clientConfig of a path: by service when asked, else by url. */
function clientConfigFor(server: WebhookServer, options: WebhookConfigurationOptions): (path: string) => WebhookClientConfig {
  const caBundle = options.caBundle ?? server.caBundle;
  const ca = caBundle ? { caBundle } : {};
  const svc = options.service;
  if (svc) return (path) => ({ service: { namespace: svc.namespace, name: svc.name, path, ...(svc.port !== undefined ? { port: svc.port } : {}) }, ...ca });
  const url = (options.url ?? server.url)?.replace(/\/$/, '');
  if (!url) throw new Error('webhookConfigurations: the server is not started and no url or service is given');
  return (path) => ({ url: `${url}${path}`, ...ca });
}

/**
 * Builds the Mutating- and ValidatingWebhookConfiguration for every kind registered with the
 * server's forKind: one webhook per kind and type, `clientConfig.url` at its path with the
 * caBundle, a rule for the kind's group, version and resource, sideEffects None,
 * admissionReviewVersions ["v1"], failurePolicy Fail unless told otherwise.
 */
export function webhookConfigurations(server: WebhookServer, options: WebhookConfigurationOptions = {}): WebhookConfigurations {
  const clientConfig = clientConfigFor(server, options);
  const common = {
    failurePolicy: options.failurePolicy ?? 'Fail',
    sideEffects: 'None' as const,
    admissionReviewVersions: ['v1'],
    ...(options.namespaceSelector ? { namespaceSelector: options.namespaceSelector } : {}),
    ...(options.objectSelector ? { objectSelector: options.objectSelector } : {}),
    ...(options.timeoutSeconds !== undefined ? { timeoutSeconds: options.timeoutSeconds } : {}),
  };
  const webhook = (w: WebhookServer['webhooks'][number]) => ({
    name: w.name,
    clientConfig: clientConfig(w.path),
    rules: [{ operations: [...w.operations], apiGroups: [w.group], apiVersions: [w.version], resources: [w.resource] }],
    ...common,
  });
  return {
    mutating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: options.mutatingName ?? 'mutating-webhook-configuration' },
      webhooks: server.webhooks.filter((w) => w.type === 'mutating').map((w) => ({ ...webhook(w), reinvocationPolicy: 'Never' as const })),
    },
    validating: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: options.validatingName ?? 'validating-webhook-configuration' },
      webhooks: server.webhooks.filter((w) => w.type === 'validating').map(webhook),
    },
  };
}

/**
 * A CRD's `spec.conversion` pointing at the server's /convert: strategy Webhook, the url with
 * the caBundle (or `service` with path /convert), conversionReviewVersions ["v1"].
 */
export function conversionWebhook(server: WebhookServer, options: Pick<WebhookConfigurationOptions, 'url' | 'caBundle' | 'service'> = {}): CustomResourceConversion {
  return { strategy: 'Webhook', webhook: { clientConfig: clientConfigFor(server, options)('/convert'), conversionReviewVersions: ['v1'] } };
}
