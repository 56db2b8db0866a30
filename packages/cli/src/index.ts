export * from './control-plane.js';
