export * from './registry/resource.js';
