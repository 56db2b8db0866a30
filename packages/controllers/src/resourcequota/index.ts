export { createResourceQuotaController, quotaUsage, type ResourceQuotaControllerOptions } from './controller.js';
