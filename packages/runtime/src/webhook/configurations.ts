/**
 * The admissionregistration.k8s.io/v1 configurations (and a CRD's conversion stanza) that point
 * the API server at a running webhook server, as kubebuilder's manifests and envtest's
 * WebhookInstallOptions make them.
 */
import type { CustomResourceConversion, LabelSelector, MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from '../kinds/builtin/index.js';
import type { WebhookServer } from './server.js';

/** Options of webhookConfigurations. */
export interface WebhookConfigurationOptions {
  /** Names of the two configurations (default kubebuilder's: mutating-webhook-configuration, validating-webhook-configuration). */
  mutatingName?: string;
  validatingName?: string;
  /** Base URL the API server reaches the server at (default the server's own `url`). */
  url?: string;
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

function target(server: WebhookServer, options: WebhookConfigurationOptions): { url: string; caBundle?: string } {
  const url = options.url ?? server.url;
  if (!url) throw new Error('webhookConfigurations: the server is not started and no url is given');
  const caBundle = options.caBundle ?? server.caBundle;
  return { url: url.replace(/\/$/, ''), ...(caBundle ? { caBundle } : {}) };
}

/**
 * Builds the Mutating- and ValidatingWebhookConfiguration for every kind registered with the
 * server's forKind: one webhook per kind and type, `clientConfig.url` at its path with the
 * caBundle, a rule for the kind's group, version and resource, sideEffects None,
 * admissionReviewVersions ["v1"], failurePolicy Fail unless told otherwise.
 */
export function webhookConfigurations(server: WebhookServer, options: WebhookConfigurationOptions = {}): WebhookConfigurations {
  const { url, caBundle } = target(server, options);
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
    clientConfig: { url: `${url}${w.path}`, ...(caBundle ? { caBundle } : {}) },
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
 * the caBundle, conversionReviewVersions ["v1"].
 */
export function conversionWebhook(server: WebhookServer, options: Pick<WebhookConfigurationOptions, 'url' | 'caBundle'> = {}): CustomResourceConversion {
  const { url, caBundle } = target(server, options);
  return {
    strategy: 'Webhook',
    webhook: { clientConfig: { url: `${url}/convert`, ...(caBundle ? { caBundle } : {}) }, conversionReviewVersions: ['v1'] },
  };
}
