import type { KubeObject, UserInfo } from '@kplane/api';

/** The operation a request performs, as admission.Operation. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** What an admission step learns of a request (kube's admission.Attributes). */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  /** The kind written: group, version and kind ('' group for the core API). */
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  /** The resource written: group, version and resource. */
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  /** '' for the object itself, else the subresource ("status", "binding", "eviction"). */
  readonly subresource: string;
  /** '' for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
  /** The new object (mutating steps may change it); absent on DELETE. */
  readonly object?: KubeObject;
  /** The stored object on UPDATE and DELETE. */
  readonly oldObject?: KubeObject;
  readonly dryRun: boolean;
  /** Who asks; absent for trusted in-process code acting as the cluster's admin. */
  readonly user?: UserInfo;
  /** Collects warnings to return as Warning headers (absent: they are dropped). */
  readonly warnings?: string[];
  /** Adds an annotation to the request's audit event (absent: not audited). */
  readonly audit?: (key: string, value: string) => void;
  /** The mutating phase's reinvocation (kube's ReinvocationContext), set by the chain. */
  readonly reinvocation?: AdmissionReinvocation;
}

/**
 * Reinvocation of mutating steps whose entries have reinvocationPolicy IfNeeded (admission
 * webhooks and policies): a step that ran such entries asks for it; if a later step then changes
 * the object the step produced, the chain runs the step once more after the phase, with
 * `isReinvoke` set, and the step runs only those entries.
 */
export interface AdmissionReinvocation {
  /** True on the extra run. */
  readonly isReinvoke: boolean;
  /** Asks the chain to run the current step again if a later step changes the object it produced. */
  requestReinvocation(): void;
}

/** What every step declares: its plugin name and the operations it handles. */
export interface AdmissionStepBase {
  /** The plugin name, as kube-apiserver's --enable-admission-plugins spells it. */
  readonly name: string;
  /** The operations the step handles; others pass it by. */
  readonly operations: readonly AdmissionOperation[];
}

/** A mutating step: may change `attrs.object`; refuses by throwing an ApiError. */
export interface MutatingStep extends AdmissionStepBase {
  admit(attrs: AdmissionAttributes): void | Promise<void>;
}

/** A validating step: never changes the object; refuses by throwing an ApiError. */
export interface ValidatingStep extends AdmissionStepBase {
  validate(attrs: AdmissionAttributes): void | Promise<void>;
}

/** A step may be both (kube's plugins often are): its admit runs in the mutating phase. */
export type AdmissionStep = (MutatingStep | ValidatingStep) | (MutatingStep & ValidatingStep);
