export * from './client.js';
export * from './errors.js';
export * from './https-transport.js';
export * from './kubeconfig.js';
export * from './paths.js';
export * from './response.js';
export * from './watch-stream.js';
