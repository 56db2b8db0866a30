import { isDeepStrictEqual } from 'node:util';
import type { AdmissionAttributes, AdmissionStep, MutatingStep, ValidatingStep } from './types.js';

/** The admission chain: every mutating step, then (after the strategy's validation) every validating one. */
export interface AdmissionChain {
  /** The steps in order. */
  readonly steps: readonly AdmissionStep[];
  /** Runs the mutating phase (after decoding and defaulting). */
  admit(attrs: AdmissionAttributes): Promise<void>;
  /** Runs the validating phase (after the strategy's validation, before storage). */
  validate(attrs: AdmissionAttributes): Promise<void>;
}

function handles(step: AdmissionStep, attrs: AdmissionAttributes): boolean {
  return step.operations.includes(attrs.operation);
}

/**
 * Builds a chain from steps in kube-apiserver's plugin order: each phase calls its steps in
 * that order, and the first ApiError thrown refuses the request.
 */
export function createAdmissionChain(steps: readonly AdmissionStep[]): AdmissionChain {
  const mutating = steps.filter((s): s is MutatingStep => typeof (s as MutatingStep).admit === 'function');
  const validating = steps.filter((s): s is ValidatingStep => typeof (s as ValidatingStep).validate === 'function');
  return {
    steps,
    async admit(attrs) {
      // What each reinvocable step left the object as (kube's reinvocation: such a step runs once
      // more, after the whole phase, when a later step changed its output).
      const outputs = new Map<MutatingStep, unknown>();
      for (const s of mutating) {
        if (!handles(s, attrs)) continue;
        await s.admit(attrs);
        if (attrs.object && s.wantsReinvocation?.(attrs)) outputs.set(s, structuredClone(attrs.object));
      }
      for (const [s, output] of outputs) {
        if (!isDeepStrictEqual(output, attrs.object)) await s.admit({ ...attrs, reinvocation: { isReinvoke: true } });
      }
    },
    async validate(attrs) {
      for (const s of validating) if (handles(s, attrs)) await s.validate(attrs);
    },
  };
}
