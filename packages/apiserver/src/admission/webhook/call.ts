/** One call of an admission webhook: the AdmissionReview v1 posted over HTTPS (see ../../webhookutil). */
import { postJson, WebhookRequestError, type WebhookTarget } from '../../webhookutil/client.js';

export type { WebhookTarget } from '../../webhookutil/client.js';

/**
 * A webhook that could not be called or answered badly (kube's ErrCallingWebhook). `code` is
 * the status kube records for it in the webhook metrics: the webhook's HTTP status when it
 * answered with an error, 400 when it could not be called, 503 for an invalid answer.
 */
export class WebhookCallError extends Error {
  constructor(
    readonly webhook: string,
    readonly reason: string,
    readonly code: number = 400,
  ) {
    super(`failed calling webhook "${webhook}": ${reason}`);
  }
}

/** kube's wording of a failed call: `failed to call webhook: …`, or `received invalid webhook response: …`. */
export function webhookCallError(name: string, err: WebhookRequestError): WebhookCallError {
  return new WebhookCallError(name, `${err.invalidResponse ? 'received invalid webhook response' : 'failed to call webhook'}: ${err.message}`, err.statusCode);
}

/**
 * Posts `body` to the target and returns the parsed answer. The CA bundle (base64 PEM, the
 * configuration's caBundle) verifies the server; without one the system's roots do.
 * Failures are WebhookCallErrors worded as kube-apiserver words them.
 */
export async function postReview(name: string, target: WebhookTarget, body: unknown, caBundle: string | undefined, timeoutMs: number): Promise<unknown> {
  try {
    return await postJson(target, body, caBundle, timeoutMs);
  } catch (err) {
    throw err instanceof WebhookRequestError ? webhookCallError(name, err) : err;
  }
}
