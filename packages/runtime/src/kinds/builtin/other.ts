/** coordination.k8s.io/v1 Lease, events.k8s.io/v1 Event, networking.k8s.io/v1 Ingress, autoscaling/v1 Scale. */
import type { KubeObject, MicroTime, ObjectMeta, ObjectReference, Time } from './meta.js';
import type { EventSource } from './core.js';

/** coordination.k8s.io/v1 LeaseSpec. */
export interface LeaseSpec {
  holderIdentity?: string;
  /** Seconds candidates wait, since renewTime, before they may take the lease. */
  leaseDurationSeconds?: number;
  acquireTime?: MicroTime;
  renewTime?: MicroTime;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

/** A coordination.k8s.io/v1 Lease. */
export interface Lease extends KubeObject {
  metadata?: ObjectMeta;
  spec?: LeaseSpec;
}

/** An events.k8s.io/v1 EventSeries. */
export interface EventsV1EventSeries {
  count: number;
  lastObservedTime: MicroTime;
}

/** An events.k8s.io/v1 Event (the newer form of core/v1 Event). */
export interface EventsV1Event extends KubeObject {
  metadata?: ObjectMeta;
  /** When the event was first observed. Required. */
  eventTime: MicroTime;
  series?: EventsV1EventSeries;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  /** Normal or Warning. */
  type?: 'Normal' | 'Warning';
  deprecatedSource?: EventSource;
  deprecatedFirstTimestamp?: Time;
  deprecatedLastTimestamp?: Time;
  deprecatedCount?: number;
}

/** A port of a service, by name or number. */
export interface ServiceBackendPort {
  name?: string;
  number?: number;
}

/** networking.k8s.io/v1 IngressBackend: a service or another resource. */
export interface IngressBackend {
  service?: { name: string; port?: ServiceBackendPort };
  resource?: { apiGroup?: string; kind: string; name: string };
}

/** networking.k8s.io/v1 HTTPIngressPath. */
export interface HTTPIngressPath {
  path?: string;
  pathType: 'Exact' | 'Prefix' | 'ImplementationSpecific';
  backend: IngressBackend;
}

/** networking.k8s.io/v1 IngressRule. */
export interface IngressRule {
  host?: string;
  http?: { paths: HTTPIngressPath[] };
}

/** networking.k8s.io/v1 IngressTLS. */
export interface IngressTLS {
  hosts?: string[];
  secretName?: string;
}

/** networking.k8s.io/v1 IngressSpec. */
export interface IngressSpec {
  ingressClassName?: string;
  defaultBackend?: IngressBackend;
  tls?: IngressTLS[];
  rules?: IngressRule[];
}

/** networking.k8s.io/v1 IngressStatus. */
export interface IngressStatus {
  loadBalancer?: {
    ingress?: { ip?: string; hostname?: string; ports?: { port: number; protocol: string; error?: string }[] }[];
  };
}

/** A networking.k8s.io/v1 Ingress. */
export interface Ingress extends KubeObject {
  metadata?: ObjectMeta;
  spec?: IngressSpec;
  status?: IngressStatus;
}

/** autoscaling/v1 Scale: the scale subresource of Deployments, ReplicaSets and scalable custom resources. */
export interface Scale extends KubeObject {
  metadata?: ObjectMeta;
  spec?: { replicas?: number };
  status?: { replicas: number; selector?: string };
}
