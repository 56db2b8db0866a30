/** TypeScript shapes of the built-in kinds kplane serves. */
export type * from './meta.js';
export type * from './pod.js';
export type * from './core.js';
export type * from './apps.js';
export type * from './other.js';
export type * from './rbac.js';
export type * from './apiextensions.js';
