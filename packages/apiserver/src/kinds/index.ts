/**
 * The built-in kinds kplane serves: each a ResourceType (names, scope, subresources, storage
 * prefix, strategy) plus the OpenAPI v3 schemas of everything they reference, built from the
 * model of the built-in API (`@kplane/api/model`).
 */
import type { SchemaDefinitions, SchemaObject } from '@kplane/api';
import { openApiV3Builders } from '@kplane/api/model';
import type { KindBundle, ResourceType } from '../registry/resource.js';
import { validatingAdmissionPolicyBindingResource, validatingAdmissionPolicyResource } from './admissionpolicy.js';
import { mutatingAdmissionPolicyBindingResource, mutatingAdmissionPolicyResource } from './mutatingadmissionpolicy.js';
import { apiServiceResource } from './apiservice.js';
import { deploymentResource, replicaSetResource } from './apps.js';
import { hpaV1Resource, hpaV2Resource } from './autoscaling.js';
import { certificateSigningRequestResource } from './certificates.js';
import { configMapResource, secretResource } from './config.js';
import { controllerRevisionResource } from './controllerrevision.js';
import { cronJobResource } from './cronjob.js';
import { crdResource } from './crd.js';
import { endpointSliceResource } from './endpointslice.js';
import { daemonSetResource } from './daemonset.js';
import { eventResource, eventsV1Resource } from './events.js';
import { ingressResource } from './ingress.js';
import { jobResource } from './job.js';
import { leaseResource } from './lease.js';
import { webhookConfigurationResources } from './admissionregistration.js';
import { namespaceResource } from './namespace.js';
import { nodeResource, serviceAccountResource } from './node.js';
import { persistentVolumeResource } from './persistentvolume.js';
import { persistentVolumeClaimResource } from './persistentvolumeclaim.js';
import { podResource } from './pod.js';
import { podDisruptionBudgetResource } from './poddisruptionbudget.js';
import { priorityClassResource } from './priorityclass.js';
import { podTemplateResource, replicationControllerResource } from './replicationcontroller.js';
import { rbacResources } from './rbac.js';
import { limitRangeResource, resourceQuotaResource } from './resourcequota.js';
import { endpointsResource, serviceResource } from './service.js';
import { statefulSetResource } from './statefulset.js';
import { storageClassResource } from './storageclass.js';

/** Every built-in resource, core group first, in the order discovery lists them. */
export function builtinResources(): ResourceType[] {
  return [
    configMapResource(),
    endpointsResource(),
    eventResource(),
    namespaceResource(),
    nodeResource(),
    limitRangeResource(),
    persistentVolumeResource(),
    persistentVolumeClaimResource(),
    podResource(),
    resourceQuotaResource(),
    podTemplateResource(),
    replicationControllerResource(),
    secretResource(),
    serviceAccountResource(),
    serviceResource(),
    daemonSetResource(),
    deploymentResource(),
    replicaSetResource(),
    statefulSetResource(),
    controllerRevisionResource(),
    hpaV2Resource(),
    hpaV1Resource(),
    jobResource(),
    leaseResource(),
    eventsV1Resource(),
    endpointSliceResource(),
    cronJobResource(),
    ingressResource(),
    podDisruptionBudgetResource(),
    priorityClassResource(),
    crdResource(),
    ...rbacResources(),
    storageClassResource(),
    certificateSigningRequestResource(),
    apiServiceResource(),
    validatingAdmissionPolicyResource(),
    validatingAdmissionPolicyBindingResource(),
    ...webhookConfigurationResources(),
    mutatingAdmissionPolicyResource(),
    mutatingAdmissionPolicyBindingResource(),
  ];
}

/** Each built-in schema once built (frozen, shared by every copy of the definitions). */
const built = new Map<string, SchemaObject>();
let builders: Map<string, () => SchemaObject> | undefined;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The built schema named `name`. */
function builtSchema(name: string): SchemaObject {
  let schema = built.get(name);
  if (!schema) built.set(name, (schema = deepFreeze(builders!.get(name)!())));
  return schema;
}

/** Turns the property `name` of `target` into a plain data property holding `value`. */
function settle(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * The schemas of every type of the model (the built-in kinds and all they reference), keyed by
 * Kubernetes' names. Each call returns a new map; each schema in it is built on its first read
 * (a start reads those of the objects it writes, a few dozen of the model's several hundred),
 * once for all maps, and frozen. Copy such a map with copyDefinitions, not a spread (which
 * reads, and so builds, every schema).
 */
export function builtinDefinitions(): KindBundle['definitions'] {
  builders ??= openApiV3Builders();
  const out: SchemaDefinitions = {};
  for (const name of builders.keys()) {
    Object.defineProperty(out, name, {
      enumerable: true,
      configurable: true,
      get(this: object) {
        const schema = builtSchema(name);
        settle(this, name, schema);
        return schema;
      },
      set(this: object, value: unknown) {
        settle(this, name, value);
      },
    });
  }
  return out;
}

/** One map of the definitions of every map given (the later wins a name), schemas not yet built left so. */
export function copyDefinitions(...all: SchemaDefinitions[]): SchemaDefinitions {
  const out: SchemaDefinitions = {};
  for (const defs of all) Object.defineProperties(out, Object.getOwnPropertyDescriptors(defs));
  return out;
}

/** The built-in kinds with their schemas. */
export function builtinKinds(): KindBundle {
  return { resources: builtinResources(), definitions: builtinDefinitions() };
}

export { humanDuration, translateTimestampSince } from './age.js';
export { CERTIFICATES_GROUP, KEY_USAGES, certificateSigningRequestResource, csrCondition } from './certificates.js';
export { certificateError, checkCsrSignature, parseCsrPem, pemBlocks, type ParsedCsr, type PemBlock } from './csr-request.js';
export { coreToEventsV1, eventsV1ToCore } from './events.js';
export { formatHpaMetrics, hpaV1ToV2, hpaV2ToV1 } from './autoscaling.js';
export { defaultPodSpec, podQOSClass } from './pod-defaults.js';
export { validatePodSpec } from './pod-validation.js';
export { JOB_CONTROLLER_UID_LABEL, JOB_NAME_LABEL, defaultJob, generateJobSelector, jobCompletionsCell, jobDurationCell, jobStatusCell, validateJobSpec } from './job.js';
