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
      // Kube's reinvocation: a step that asked for it (its IfNeeded entries ran) runs once more,
      // after the whole phase, when a later step changed the object it left.
      let current: MutatingStep | undefined;
      const asked = new Set<MutatingStep>();
      const reinvocation = { isReinvoke: false, requestReinvocation: () => void (current && asked.add(current)) };
      const a: AdmissionAttributes = { ...attrs, reinvocation };
      const outputs = new Map<MutatingStep, unknown>();
      for (const s of mutating) {
        if (!handles(s, attrs)) continue;
        current = s;
        // A step that answers at once is not awaited: each await is a turn of the microtask queue.
        const r = s.admit(a);
        if (r) await r;
        if (asked.has(s) && attrs.object) outputs.set(s, structuredClone(attrs.object));
      }
      current = undefined;
      reinvocation.isReinvoke = true;
      for (const [s, output] of outputs) {
        if (isDeepStrictEqual(output, attrs.object)) continue;
        const r = s.admit(a);
        if (r) await r;
      }
    },
    async validate(attrs) {
      for (const s of validating) {
        if (!handles(s, attrs)) continue;
        const r = s.validate(attrs);
        if (r) await r;
      }
    },
  };
}
