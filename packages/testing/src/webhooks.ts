/**
 * Installing a webhook server's configurations into a test control plane, as envtest's
 * WebhookInstallOptions does: the API server then calls the server for the kinds it serves.
 */
import type { Client } from '@kplane/client';
import {
  kindDescriptor,
  webhookConfigurations,
  type MutatingWebhookConfiguration,
  type ValidatingWebhookConfiguration,
  type WebhookConfigurationOptions,
  type WebhookServer,
} from '@kplane/runtime';

const MutatingWebhookConfigurations = kindDescriptor<MutatingWebhookConfiguration>({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'mutatingwebhookconfigurations',
  kind: 'MutatingWebhookConfiguration',
  namespaced: false,
});
const ValidatingWebhookConfigurations = kindDescriptor<ValidatingWebhookConfiguration>({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  namespaced: false,
});

/** The configurations installWebhooks created (a configuration with no webhook is not created). */
export interface InstalledWebhooks {
  mutating?: MutatingWebhookConfiguration;
  validating?: ValidatingWebhookConfiguration;
  /** Deletes what was created (a configuration already gone is no error). */
  uninstall(): Promise<void>;
}

/**
 * Creates the Mutating- and ValidatingWebhookConfiguration pointing at `server` (started first
 * if it is not) in the control plane, as `webhookConfigurations(server, options)` builds them:
 * envtest's WebhookInstallOptions. Resolves once both exist.
 */
export async function installWebhooks(cp: { client: Client }, server: WebhookServer, options: WebhookConfigurationOptions = {}): Promise<InstalledWebhooks> {
  if (!server.url) await server.start();
  const { mutating, validating } = webhookConfigurations(server, options);
  const created: InstalledWebhooks = {
    async uninstall() {
      const gone = (err: unknown) => {
        if ((err as { code?: number }).code !== 404) throw err;
      };
      if (created.mutating) await cp.client.resource(MutatingWebhookConfigurations).delete(created.mutating.metadata!.name!).catch(gone);
      if (created.validating) await cp.client.resource(ValidatingWebhookConfigurations).delete(created.validating.metadata!.name!).catch(gone);
    },
  };
  if (mutating.webhooks?.length) created.mutating = await cp.client.resource(MutatingWebhookConfigurations).create(mutating);
  if (validating.webhooks?.length) created.validating = await cp.client.resource(ValidatingWebhookConfigurations).create(validating);
  return created;
}
