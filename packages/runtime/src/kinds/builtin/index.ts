/** TypeScript shapes of the built-in kinds kplane serves: generated from the model, plus kplane's helpers. */
export type * from './generated.js';
export type * from './meta.js';
