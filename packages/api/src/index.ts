export * from './types.js';
export * from './errors.js';
export * from './schema.js';
export * from './transport.js';
