/**
 * The built-in kinds kplane serves: each a ResourceType (names, scope, subresources, storage
 * prefix, strategy) plus the OpenAPI v3 schemas of everything they reference.
 */
import type { KindBundle, ResourceType } from '../registry/resource.js';
import { deploymentResource, replicaSetResource } from './apps.js';
import { configMapResource, secretResource } from './config.js';
import { crdResource } from './crd.js';
import { eventResource, eventsV1Resource } from './events.js';
import { ingressResource } from './ingress.js';
import { leaseResource } from './lease.js';
import { namespaceResource } from './namespace.js';
import { nodeResource, serviceAccountResource } from './node.js';
import { podResource } from './pod.js';
import { rbacResources } from './rbac.js';
import { appsDefinitions } from './schemas-apps.js';
import { containerDefinitions } from './schemas-container.js';
import { coreDefinitions } from './schemas-core.js';
import { metaDefinitions } from './schemas-meta.js';
import { otherDefinitions } from './schemas-other.js';
import { podDefinitions } from './schemas-pod.js';
import { endpointsResource, serviceResource } from './service.js';

/** Every built-in resource, core group first, in the order discovery lists them. */
export function builtinResources(): ResourceType[] {
  return [
    configMapResource(),
    endpointsResource(),
    eventResource(),
    namespaceResource(),
    nodeResource(),
    podResource(),
    secretResource(),
    serviceAccountResource(),
    serviceResource(),
    deploymentResource(),
    replicaSetResource(),
    leaseResource(),
    eventsV1Resource(),
    ingressResource(),
    crdResource(),
    ...rbacResources(),
  ];
}

/** The schemas of every built-in kind and of all they reference, keyed by Kubernetes' names. */
export function builtinDefinitions(): KindBundle['definitions'] {
  return {
    ...metaDefinitions(),
    ...containerDefinitions(),
    ...podDefinitions(),
    ...coreDefinitions(),
    ...appsDefinitions(),
    ...otherDefinitions(),
  };
}

/** The built-in kinds with their schemas. */
export function builtinKinds(): KindBundle {
  return { resources: builtinResources(), definitions: builtinDefinitions() };
}

export { humanDuration, translateTimestampSince } from './age.js';
export { coreToEventsV1, eventsV1ToCore } from './events.js';
export { defaultPodSpec, podQOSClass } from './pod-defaults.js';
export { validatePodSpec } from './pod-validation.js';
