/**
 * What a components worker is started with: the structured-clonable part of the control plane's
 * options (no clock, no functions), its controller manager's serving and signing material.
 */
import type { SecureServingOptions } from '@kplane/controllers';
import type { ControlPlaneOptions } from '../control-plane.js';

/** The options a worker's controllers and nodes take from the control plane's. */
export type WorkerComponentOptions = Pick<
  ControlPlaneOptions,
  | 'controllers'
  | 'nodes'
  | 'kubeletConfig'
  | 'hpaSyncPeriodMs'
  | 'terminatedPodGcThreshold'
  | 'podGcPeriodMs'
  | 'podGcQuarantineMs'
  | 'nodeMonitorGracePeriodMs'
  | 'useServiceAccountCredentials'
  | 'bootstrapped'
>;

/** The data of a components worker. */
export interface WorkerData {
  options: WorkerComponentOptions;
  /** The controller manager's /metrics and /healthz. */
  serving?: SecureServingOptions;
  /** The CA that signs CertificateSigningRequests (PEM), and the longest validity it gives. */
  signing?: { cert: string; key: string; durationMs?: number };
  /** The CA bundle published to namespaces and put in ServiceAccount token Secrets. */
  rootCA?: string;
}

/** What a worker reports: started (with its nodes' names), stopped, or failed. */
export type WorkerReport = { t: 'started'; nodeNames: string[] } | { t: 'stopped' } | { t: 'error'; message: string };
