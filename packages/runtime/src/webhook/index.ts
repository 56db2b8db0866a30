/** Webhook servers for operators: admission (defaulters, validators), CRD conversion, local TLS and the configurations. */
export {
  createJsonPatch,
  defaultingHandler,
  validatingHandler,
  reviewAdmission,
  type AdmissionHandler,
  type AdmissionOperation,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReview,
  type AdmissionWarnings,
  type CustomDefaulter,
  type CustomValidator,
  type JsonPatchOperation,
} from './admission.js';
export { convertObject, reviewConversion, type ConversionReview, type KindConversion, type VersionConverter } from './conversion.js';
export { generateWebhookCertificates, type WebhookCertificateOptions, type WebhookCertificates } from './certs.js';
export {
  createWebhookServer,
  webhookPath,
  type KindWebhooks,
  type RegisteredWebhook,
  type WebhookServer,
  type WebhookServerOptions,
} from './server.js';
export { conversionWebhook, webhookConfigurations, type WebhookConfigurationOptions, type WebhookConfigurations } from './configurations.js';
