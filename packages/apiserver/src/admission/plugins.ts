import { defaultTolerationSeconds, type DefaultTolerationSecondsOptions } from './default-toleration-seconds.js';
import { limitRanger } from './limit-ranger.js';
import type { AdmissionObjects } from './objects.js';
import { validatingAdmissionPolicy, type ValidatingAdmissionPolicyOptions } from './policy/validating.js';
import { priorityAdmission } from './priority.js';
import { resourceQuotaAdmission } from './resource-quota.js';
import { defaultStorageClassAdmission, persistentVolumeClaimResize, storageObjectInUseProtection } from './storage.js';
import type { AdmissionStep } from './types.js';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook, type WebhookSource } from './webhook/plugin.js';

/** Settings of the built-in admission steps (kube-apiserver's flags). */
export interface AdmissionOptions extends DefaultTolerationSecondsOptions {
  /** Steps run after the built-in ones (tests, embedders). */
  extraSteps?: readonly AdmissionStep[];
  /** What the steps that read the cluster (LimitRanger, Priority, DefaultStorageClass, PersistentVolumeClaimResize, ResourceQuota) read and write; without it they are left out. */
  objects?: AdmissionObjects;
  /** The webhook configurations and what resolving them reads; without it the webhook steps are left out. */
  webhooks?: WebhookSource;
  /** The followed policies and bindings, namespaces and the authorizer of ValidatingAdmissionPolicy (without them it lists on each write and allows every check). */
  validatingPolicies?: Pick<ValidatingAdmissionPolicyOptions, 'source' | 'namespace' | 'authorizer' | 'paramStore' | 'signal'>;
}

/**
 * The built-in steps, in kube-apiserver's plugin order (pkg/kubeapiserver/options/plugins.go's
 * AllOrderedPlugins): a new step goes where kube's list puts it.
 */
export function builtinAdmissionSteps(options: AdmissionOptions = {}): AdmissionStep[] {
  const { objects } = options;
  return [
    ...(objects ? [limitRanger(objects)] : []),
    ...(objects ? [priorityAdmission(objects)] : []),
    defaultTolerationSeconds(options),
    ...(objects ? [defaultStorageClassAdmission(objects)] : []),
    storageObjectInUseProtection(),
    ...(objects ? [persistentVolumeClaimResize(objects)] : []),
    ...(options.webhooks ? [mutatingAdmissionWebhook(options.webhooks)] : []),
    ...(objects ? [validatingAdmissionPolicy({ objects, kindResource: objects.kindResource?.bind(objects), ...options.validatingPolicies })] : []),
    ...(options.webhooks ? [validatingAdmissionWebhook(options.webhooks)] : []),
    ...(objects ? [resourceQuotaAdmission(objects)] : []),
    ...(options.extraSteps ?? []),
  ];
}
