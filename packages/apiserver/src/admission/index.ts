export * from './types.js';
export * from './chain.js';
export * from './default-toleration-seconds.js';
export * from './plugins.js';
