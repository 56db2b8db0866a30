import { defaultTolerationSeconds, type DefaultTolerationSecondsOptions } from './default-toleration-seconds.js';
import type { AdmissionStep } from './types.js';

/** Settings of the built-in admission steps (kube-apiserver's flags). */
export interface AdmissionOptions extends DefaultTolerationSecondsOptions {
  /** Steps run after the built-in ones (tests, embedders). */
  extraSteps?: readonly AdmissionStep[];
}

/**
 * The built-in steps, in kube-apiserver's plugin order (pkg/kubeapiserver/options/plugins.go's
 * AllOrderedPlugins): a new step goes where kube's list puts it.
 */
export function builtinAdmissionSteps(options: AdmissionOptions = {}): AdmissionStep[] {
  return [
    defaultTolerationSeconds(options),
    ...(options.extraSteps ?? []),
  ];
}
