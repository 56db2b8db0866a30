export * from './client.js';
export * from './errors.js';
export * from './exec-credentials.js';
export { createFailoverTransport } from './failover.js';
export * from './https-transport.js';
export * from './in-cluster.js';
export * from './kubeconfig.js';
export * from './token-file.js';
/** Tells a Status (e.g. what `delete` answers once the object is gone) from an object. */
export { isStatus } from './response.js';
