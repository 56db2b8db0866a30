/**
 * In-cluster configuration, as client-go's rest.InClusterConfig: a process running in a pod
 * reaches the API server through the `kubernetes` Service (KUBERNETES_SERVICE_HOST/PORT) with
 * the ServiceAccount token, CA and namespace the kubelet mounts.
 */
import { readFileSync } from 'node:fs';
import { createClient, type Client } from './client.js';
import { createHttpsTransport, type HttpsTransport, type HttpsTransportOptions } from './https-transport.js';
import { clientFromKubeconfig } from './kubeconfig.js';
import type { NowSource } from './token-file.js';

/** Where the kubelet mounts a pod's ServiceAccount credentials. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Not running in a cluster (client-go's ErrNotInCluster wording). */
export class NotInClusterError extends Error {
  constructor() {
    super('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
    this.name = 'NotInClusterError';
  }
}

/** Options of loadInClusterConfig (the defaults are the pod's real paths and environment). */
export interface InClusterOptions {
  /** Environment to read KUBERNETES_SERVICE_HOST/PORT and POD_NAMESPACE from (default process.env). */
  env?: Record<string, string | undefined>;
  /** The token file (default `${SERVICE_ACCOUNT_DIR}/token`); re-read once a minute on the clock. */
  tokenFile?: string;
  /** The CA bundle (default `${SERVICE_ACCOUNT_DIR}/ca.crt`). */
  caFile?: string;
  /** The namespace file (default `${SERVICE_ACCOUNT_DIR}/namespace`). */
  namespaceFile?: string;
  /** Clock of the token file's re-reads (default the real time). */
  clock?: NowSource;
}

/** A resolved in-cluster configuration. */
export interface InClusterConfig {
  server: string;
  /** POD_NAMESPACE, else the mounted namespace file, else "default" (as clientcmd). */
  namespace: string;
  transportOptions: HttpsTransportOptions;
}

/**
 * Resolves the in-cluster configuration: server `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT`
 * (an IPv6 host bracketed), the token file (read now, so a missing one fails here; then re-read
 * once a minute, so rotated projected tokens are picked up), the CA file when readable (else Node's
 * roots, as client-go logs and goes on).
 *
 * Errors: NotInClusterError without the two variables; the token file's read error.
 */
export function loadInClusterConfig(options: InClusterOptions = {}): InClusterConfig {
  const env = options.env ?? process.env;
  const host = env['KUBERNETES_SERVICE_HOST'] ?? '';
  const port = env['KUBERNETES_SERVICE_PORT'] ?? '';
  if (host === '' || port === '') throw new NotInClusterError();
  const tokenFile = options.tokenFile ?? `${SERVICE_ACCOUNT_DIR}/token`;
  const token = readFileSync(tokenFile, 'utf8').trim();
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const transportOptions: HttpsTransportOptions = { server, token, tokenFile, clock: options.clock };
  try {
    transportOptions.ca = new Uint8Array(readFileSync(options.caFile ?? `${SERVICE_ACCOUNT_DIR}/ca.crt`));
  } catch {
    // As client-go: without a readable CA the system roots are used.
  }
  let namespace = env['POD_NAMESPACE'] ?? '';
  if (namespace === '') {
    try {
      namespace = readFileSync(options.namespaceFile ?? `${SERVICE_ACCOUNT_DIR}/namespace`, 'utf8').trim();
    } catch {
      namespace = '';
    }
  }
  return { server, namespace: namespace || 'default', transportOptions };
}

/** True when KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are set (the process runs in a pod). */
export function isInCluster(env: Record<string, string | undefined> = process.env): boolean {
  return !!env['KUBERNETES_SERVICE_HOST'] && !!env['KUBERNETES_SERVICE_PORT'];
}

/** A client on the in-cluster configuration, its default namespace the pod's. */
export function inClusterClient(options: InClusterOptions & Pick<HttpsTransportOptions, 'maxSockets' | 'userAgent'> = {}): Client & { transport: HttpsTransport } {
  const cfg = loadInClusterConfig(options);
  const transport = createHttpsTransport({ ...cfg.transportOptions, maxSockets: options.maxSockets, userAgent: options.userAgent });
  return Object.assign(createClient({ transport, defaultNamespace: cfg.namespace }), { transport });
}

/**
 * A client from wherever this process finds its configuration, in controller-runtime's order
 * (`config.GetConfig`): the files in KUBECONFIG when set, else the in-cluster configuration when
 * running in a pod, else ~/.kube/config.
 */
export function clientFromEnvironment(
  options: InClusterOptions & { context?: string } & Pick<HttpsTransportOptions, 'maxSockets' | 'userAgent'> = {},
): Client & { transport: HttpsTransport } {
  const env = options.env ?? process.env;
  if (!env['KUBECONFIG'] && isInCluster(env)) return inClusterClient({ ...options, env });
  return clientFromKubeconfig(undefined, { env, context: options.context, clock: options.clock, maxSockets: options.maxSockets, userAgent: options.userAgent });
}
