export * from './types.js';
export * from './chain.js';
export * from './default-toleration-seconds.js';
export * from './plugins.js';
export * from './objects.js';
export * from './priority.js';
export * from './limit-ranger.js';
export * from './resource-quota.js';
