export * from './cache.js';
export * from './call.js';
export * from './equivalent.js';
export * from './match.js';
export * from './plugin.js';
export * from './resolve.js';
export * from './review.js';
