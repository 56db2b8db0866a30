/** clientConfig to a target: a URL as given, or a Service resolved through its EndpointSlices (see ../../webhookutil). */
import type { AdmissionObjects } from '../objects.js';
import { resolveWebhookTarget, WebhookRequestError, type ClientConfig } from '../../webhookutil/client.js';
import { webhookCallError, type WebhookTarget } from './call.js';

export type { ClientConfig } from '../../webhookutil/client.js';

/**
 * Resolves where a webhook is called. A service reference becomes
 * https://NAME.NAMESPACE.svc:PORT/PATH (the name the certificate is checked against), dialled at
 * a ready endpoint of the Service's EndpointSlices; failures are WebhookCallErrors.
 */
export async function resolveTarget(webhook: string, config: ClientConfig, timeoutSeconds: number, objects: Pick<AdmissionObjects, 'list'>): Promise<WebhookTarget> {
  try {
    return await resolveWebhookTarget(config, timeoutSeconds, objects);
  } catch (err) {
    throw err instanceof WebhookRequestError ? webhookCallError(webhook, err) : err;
  }
}
