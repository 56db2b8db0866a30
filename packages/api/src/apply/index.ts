export * from './fieldpath.js';
export * from './typed.js';
export * from './managed-fields.js';
