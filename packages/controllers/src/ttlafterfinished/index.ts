/** The TTL-after-finished controller (kube-controller-manager's ttl-after-finished-controller). */
export { createTtlAfterFinishedController, jobExpiresAt, type TtlAfterFinishedOptions } from './controller.js';
