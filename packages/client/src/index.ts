export * from './client.js';
export * from './https-transport.js';
export * from './kubeconfig.js';
/** Tells a Status (e.g. what `delete` answers once the object is gone) from an object. */
export { isStatus } from './response.js';
