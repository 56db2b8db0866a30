export { createServiceAccountController, SERVICEACCOUNT_QUEUE_NAME, type ServiceAccountControllerOptions } from './controller.js';
export * from './tokens.js';
