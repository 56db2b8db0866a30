/**
 * The admission configurations (webhook configurations, admission policies and their
 * bindings): writes of them never reach a webhook or a mutating policy, so none can lock the
 * cluster out of repairing them (kube-apiserver's exemption).
 */
import type { AdmissionAttributes } from './types.js';

const CONFIGURATION_RESOURCES = new Set([
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

/** Whether the request writes an admission configuration (admissionregistration.k8s.io), which dynamic admission lets through. */
export function isAdmissionConfiguration(resource: AdmissionAttributes['resource']): boolean {
  return resource.group === 'admissionregistration.k8s.io' && CONFIGURATION_RESOURCES.has(resource.resource);
}
