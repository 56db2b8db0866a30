// The generated packages of the model (tools/api-model writes this file).
import type { ApiPackageModel } from '../types.js';

/** Every package of the model. */
export const PACKAGES: readonly ApiPackageModel[] = [];
