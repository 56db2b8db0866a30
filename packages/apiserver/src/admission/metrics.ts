/**
 * What admission reports to the API server's metrics (kube's admission/metrics): the latency of
 * each phase ("step"), of each plugin ("controller") and of each webhook call, and why webhooks
 * refused. The admission code sees only this interface; `server/metrics.ts` backs it with
 * Prometheus metrics.
 */
import type { AdmissionChain } from './chain.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionStep, MutatingStep, ValidatingStep } from './types.js';

/** kube's webhook rejection error types. */
export type WebhookRejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

/** The admission metrics sink. */
export interface AdmissionMetrics {
  /** One admission phase ran (`admit` or `validate`), rejected or not. */
  observeStep(type: 'admit' | 'validate', operation: AdmissionOperation, rejected: boolean, seconds: number): void;
  /** One admission plugin ran. */
  observeController(name: string, type: 'admit' | 'validate', operation: AdmissionOperation, rejected: boolean, seconds: number): void;
  /** One webhook was called (`admit` for mutating, `validating` for validating webhooks), with the HTTP-like code of the outcome (200, a denial's code, 0 for an internal error). */
  observeWebhook(name: string, type: 'admit' | 'validating', operation: AdmissionOperation, code: number, rejected: boolean, seconds: number): void;
  /** A webhook refused the request, or its failure did (failurePolicy Fail). */
  observeWebhookRejection(name: string, type: 'admit' | 'validating', operation: AdmissionOperation, errorType: WebhookRejectionErrorType, code: number): void;
  /** A webhook failed and was skipped (failurePolicy Ignore). */
  observeWebhookFailOpen(name: string, type: 'admit' | 'validating'): void;
  /** A webhook's or policy's matchConditions were evaluated: how long it took, and whether they excluded the request or failed. */
  observeMatchConditions(name: string, kind: 'webhook' | 'policy', type: 'admit' | 'validating', operation: AdmissionOperation, outcome: 'matched' | 'excluded' | 'error', seconds: number): void;
}

/** Seconds since a `performance.now()` reading. */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}

/** Reports one timed run: the request's operation, whether it was refused, and how long it took. */
type Report = (operation: AdmissionOperation, rejected: boolean, seconds: number) => void;

/**
 * Runs `fn(attrs)` and reports how long it took and whether it threw. A step that answers at
 * once is reported at once (no promise is added to the write's path); one that returns a
 * promise when it settles. Nothing is allocated for a step that answers at once.
 */
function timed(fn: (attrs: AdmissionAttributes) => void | Promise<void>, attrs: AdmissionAttributes, report: Report): void | Promise<void> {
  const start = performance.now();
  let result: void | Promise<void>;
  try {
    result = fn(attrs);
  } catch (err) {
    report(attrs.operation, true, secondsSince(start));
    throw err;
  }
  if (result && typeof (result as Promise<void>).then === 'function') {
    return (result as Promise<void>).then(
      () => report(attrs.operation, false, secondsSince(start)),
      (err: unknown) => {
        report(attrs.operation, true, secondsSince(start));
        throw err;
      },
    );
  }
  report(attrs.operation, false, secondsSince(start));
}

/** Each step wrapped so its runs are reported as `apiserver_admission_controller_admission_duration_seconds{name}`. */
export function instrumentSteps(steps: readonly AdmissionStep[], metrics: AdmissionMetrics): AdmissionStep[] {
  return steps.map((step) => {
    const s = step as Partial<MutatingStep & ValidatingStep>;
    const out: Partial<MutatingStep & ValidatingStep> = { name: step.name, operations: step.operations };
    if (typeof s.admit === 'function') {
      const admit = s.admit.bind(step);
      const report: Report = (operation, rejected, secs) => metrics.observeController(step.name, 'admit', operation, rejected, secs);
      out.admit = (attrs) => timed(admit, attrs, report);
    }
    if (typeof s.validate === 'function') {
      const validate = s.validate.bind(step);
      const report: Report = (operation, rejected, secs) => metrics.observeController(step.name, 'validate', operation, rejected, secs);
      out.validate = (attrs) => timed(validate, attrs, report);
    }
    return out as AdmissionStep;
  });
}

/** The chain with each phase reported as `apiserver_admission_step_admission_duration_seconds`. */
export function instrumentChain(chain: AdmissionChain, metrics: AdmissionMetrics): AdmissionChain {
  const admit = (attrs: AdmissionAttributes) => chain.admit(attrs);
  const validate = (attrs: AdmissionAttributes) => chain.validate(attrs);
  const reportAdmit: Report = (operation, rejected, secs) => metrics.observeStep('admit', operation, rejected, secs);
  const reportValidate: Report = (operation, rejected, secs) => metrics.observeStep('validate', operation, rejected, secs);
  return {
    steps: chain.steps,
    admit: (attrs) => settled(() => timed(admit, attrs, reportAdmit)),
    validate: (attrs) => settled(() => timed(validate, attrs, reportValidate)),
  };
}

/** `fn()` as a promise (the same one when it returns a promise): a throw is a rejection. */
function settled(fn: () => void | Promise<void>): Promise<void> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}
