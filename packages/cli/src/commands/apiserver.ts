import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createBackend } from '@kplane/storage';
import type { KubeObject } from '@kplane/api';
import { simulationPolicy } from '@kplane/kubelet';
import { controllerRolesPolicy } from '@kplane/controllers/policy';
import { startControlPlane } from '../control-plane.js';
import { API_SERVER_FLAGS, API_SERVER_FLAGS_USAGE, apiServerSettings } from './apiserver-flags.js';
import { stopOnSignals } from './up.js';

/** Help of `kplane apiserver`. */
export const APISERVER_USAGE = `Usage: kplane apiserver [flags]

Run the API server alone, as kube-apiserver: the controllers, the scheduler and the simulated
nodes run as processes of their own ("kplane controller-manager", "kplane scheduler", "kplane
kubelet"). Several API servers over one storage each list themselves in the kubernetes
Service's endpoints (a record with a 15 s TTL, renewed every 10 s) and keep an identity Lease
kube-system/apiserver-<hash>.

Flags:
  --storage URL           where objects are stored: sqlite://PATH (default sqlite://DIR/state.db),
                          memory://, or another driver's URL. A SQLite file serves one API
                          server: watchers see only the writes of the process that made them
  --data-dir DIR          the cluster's PKI, DIR/pki (CA, serving and admin certificates,
                          ServiceAccount key pair), made at first start and shared by every API
                          server of the cluster; the admin kubeconfig DIR/kubeconfig names this
                          server (default ./.kplane)
  --bind-address ADDR     address to serve HTTPS on (default 127.0.0.1)
  --secure-port N         HTTPS port, 0 picks a free one (default 6443)
  --advertise-address IP  the address the kubernetes Service's endpoints publish for this server
                          (default: the bind address, or the first external IPv4 for 0.0.0.0)
  --tls-cert-file FILE    serving certificate (default DIR/pki/serving.crt)
  --tls-private-key-file FILE
                          its key
  --client-ca-file FILE   CA of client certificates (default DIR/pki/ca.crt)
  --endpoint-reconciler-type lease|none
                          lease (default): every live API server is listed in the kubernetes
                          Service's endpoints; none: no endpoints are published
${API_SERVER_FLAGS_USAGE}`;

/** Parses a port flag. */
function portOf(flag: string, text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) throw new Error(`--${flag}: not a port number: ${text}`);
  return n;
}

/** `kplane apiserver`: runs until SIGINT or SIGTERM. */
export async function apiserver(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      storage: { type: 'string' },
      'data-dir': { type: 'string', default: '.kplane' },
      'bind-address': { type: 'string', default: '127.0.0.1' },
      'secure-port': { type: 'string', default: '6443' },
      'advertise-address': { type: 'string' },
      'tls-cert-file': { type: 'string' },
      'tls-private-key-file': { type: 'string' },
      'client-ca-file': { type: 'string' },
      'endpoint-reconciler-type': { type: 'string', default: 'lease' },
      ...API_SERVER_FLAGS,
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(APISERVER_USAGE);
    return;
  }
  const port = portOf('secure-port', values['secure-port']);
  const reconciler = values['endpoint-reconciler-type'];
  if (reconciler !== 'lease' && reconciler !== 'none') throw new Error(`--endpoint-reconciler-type: must be lease or none, not ${reconciler}`);
  if (Boolean(values['tls-cert-file']) !== Boolean(values['tls-private-key-file'])) {
    throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
  }
  const settings = apiServerSettings(values);
  const dataDir = resolve(values['data-dir']);
  const storageUrl = values.storage ?? `sqlite://${join(dataDir, 'state.db')}`;
  if (/^sqlite:/i.test(storageUrl)) {
    process.stderr.write('kplane apiserver: SQLite storage serves one API server; several API servers need a storage they can share (etcd)\n');
  }
  const tls = values['tls-cert-file']
    ? {
        cert: await readFile(values['tls-cert-file'], 'utf8'),
        key: await readFile(values['tls-private-key-file']!, 'utf8'),
        clientCa: values['client-ca-file'] ? await readFile(values['client-ca-file'], 'utf8') : undefined,
      }
    : undefined;
  if (!tls && values['client-ca-file']) throw new Error('--client-ca-file needs --tls-cert-file and --tls-private-key-file');
  const backend = await createBackend(storageUrl);
  const cp = await startControlPlane({
    ...settings,
    dataDir,
    backend,
    host: values['bind-address'],
    port,
    tls,
    apiServer: {
      endpointReconcilerType: reconciler,
      advertiseAddress: values['advertise-address'],
      // The roles of the scheduler's, the nodes' and the controllers' identities, which run elsewhere.
      bootstrapPolicy: componentsPolicy(),
    },
  });
  process.stdout.write(`kubeconfig: ${cp.kubeconfigPath}\nready: ${cp.url}\n`);
  stopOnSignals(() => cp.stop());
}

/** The ClusterRoles and bindings of the components `kplane apiserver` leaves to other processes: the scheduler, the nodes, each controller. */
export function componentsPolicy(): { clusterRoles: KubeObject[]; clusterRoleBindings: KubeObject[] } {
  const sim = simulationPolicy();
  const controllers = controllerRolesPolicy();
  return {
    clusterRoles: [...sim.clusterRoles, ...(controllers.clusterRoles as KubeObject[])],
    clusterRoleBindings: [...sim.clusterRoleBindings, ...(controllers.clusterRoleBindings as KubeObject[])],
  };
}
