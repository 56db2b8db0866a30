export * from './cache.js';
export * from './call.js';
export * from './match.js';
export * from './plugin.js';
export * from './resolve.js';
