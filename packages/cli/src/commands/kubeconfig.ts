import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse, stringify } from 'yaml';
import { issueClientCertificate, loadSigningCa } from '@kplane/controllers';
import { parseDuration } from './duration.js';

/** Help of `kplane kubeconfig`. */
export const KUBECONFIG_USAGE = `Usage: kplane kubeconfig --user NAME [--group G]... [flags]

Write a kubeconfig for a new user of a kplane cluster: a new key and a client certificate
signed by the cluster's CA, with the user name as its CN and one O per group. What the user may
do is what RBAC grants to that name and those groups.

Flags:
  --user NAME             the user name (required)
  --group G               a group of the user; repeat for more
  --out FILE              write the kubeconfig to FILE, mode 0600 (default: standard output)
  --data-dir DIR          the data dir of "kplane up": its CA signs, its kubeconfig gives the
                          server (default ./.kplane)
  --server URL            the API server's URL (default: the one in DIR/kubeconfig); repeat it
                          for a cluster of several API servers: kubectl uses the first, kplane's
                          clients fail over across all (the kplane.io/servers cluster extension)
  --validity DURATION     how long the certificate is valid (default 8760h)
`;

/** Options of userKubeconfig. */
export interface UserKubeconfigOptions {
  user: string;
  groups?: readonly string[];
  /** The CA that signs (PEM certificate and key). */
  caCert: string;
  caKey: string;
  server: string;
  /** More API servers of the cluster, listed in the `kplane.io/servers` cluster extension. */
  moreServers?: readonly string[];
  /** Validity of the certificate in ms (default one year). */
  validityMs?: number;
  now?: Date;
}

/** Builds the kubeconfig of a new user: a fresh key and a client certificate (CN user, O groups) signed by the CA. */
export async function userKubeconfig(options: UserKubeconfigOptions): Promise<string> {
  const ca = await loadSigningCa(options.caCert, options.caKey);
  const { cert, key } = await issueClientCertificate(ca, {
    commonName: options.user,
    organizations: options.groups ?? [],
    durationMs: options.validityMs ?? 365 * 24 * 3600 * 1000,
    now: options.now ?? new Date(),
  });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const context = `${options.user}@kplane`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kplane', cluster: { server: options.server, 'certificate-authority-data': b64(options.caCert), ...serversExtension(options.server, options.moreServers) } }],
    users: [{ name: options.user, user: { 'client-certificate-data': b64(cert), 'client-key-data': b64(key) } }],
    contexts: [{ name: context, context: { cluster: 'kplane', user: options.user } }],
    'current-context': context,
    preferences: {},
  });
}

/** The cluster extension listing every server, when there are several. */
export function serversExtension(server: string, more: readonly string[] = []): { extensions?: unknown[] } {
  const all = [...new Set([server, ...more])];
  return all.length > 1 ? { extensions: [{ name: 'kplane.io/servers', extension: { servers: all } }] } : {};
}

/** The server URL of the admin kubeconfig `kplane up` wrote. */
function serverOf(kubeconfigText: string, path: string): string {
  const doc = parse(kubeconfigText) as { clusters?: { cluster?: { server?: string } }[] } | null;
  const server = doc?.clusters?.[0]?.cluster?.server;
  if (!server) throw new Error(`${path}: no cluster server; pass --server`);
  return server;
}

/** `kplane kubeconfig`: writes a new user's kubeconfig. */
export async function kubeconfig(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      user: { type: 'string' },
      group: { type: 'string', multiple: true, default: [] },
      out: { type: 'string' },
      'data-dir': { type: 'string', default: '.kplane' },
      server: { type: 'string', multiple: true },
      validity: { type: 'string', default: '8760h' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(KUBECONFIG_USAGE);
    return;
  }
  if (!values.user) throw new Error('--user is required');
  const validityMs = parseDuration('--validity', values.validity!);
  if (validityMs <= 0) throw new Error(`--validity: must be positive, not ${values.validity}`);
  const dir = values['data-dir']!;
  const [caCert, caKey] = await Promise.all([readFile(join(dir, 'pki', 'ca.crt'), 'utf8'), readFile(join(dir, 'pki', 'ca.key'), 'utf8')]);
  const adminPath = join(dir, 'kubeconfig');
  const [server, ...moreServers] = values.server?.length ? values.server : [serverOf(await readFile(adminPath, 'utf8'), adminPath)];
  const text = await userKubeconfig({ user: values.user, groups: values.group, caCert, caKey, server: server!, moreServers, validityMs });
  if (!values.out) {
    process.stdout.write(text);
    return;
  }
  await writeFile(values.out, text, { mode: 0o600 });
  await chmod(values.out, 0o600);
  process.stderr.write(`kubeconfig for user "${values.user}" written to ${values.out}\n`);
}
