export * from './registry/resource.js';
export * from './registry/registry.js';
export * from './registry/store.js';
export * from './registry/watch-cache.js';
export * from './server/server.js';
export * from './server/handler.js';
export * from './auth/pki.js';
export * from './auth/audit.js';
