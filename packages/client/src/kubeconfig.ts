import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { createHttpsTransport, type HttpsTransport, type HttpsTransportOptions } from './https-transport.js';
import { createClient, type Client } from './client.js';
import { createExecCredentialProvider, ExecCredentialError, type ExecClusterInfo, type ExecConfig, type ExecProviderOptions } from './exec-credentials.js';
import type { NowSource } from './token-file.js';

/** Parses YAML with the YAML library, loaded at the first kubeconfig read (an in-process client reads none). */
const parseYaml = (text: string): unknown => (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);

/** Options of loadKubeconfig. */
export interface KubeconfigOptions {
  /** Context to use instead of current-context. */
  context?: string;
  /** Environment to read KUBECONFIG from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Folder that relative paths resolve against when YAML text (not a path) is given (default: cwd). */
  baseDir?: string;
  /** Clock of the tokenFile re-reads and of exec credentials' expiry (default the real time). */
  clock?: NowSource;
  /** How exec credential plugins run (environment, terminal, stderr). */
  exec?: Omit<ExecProviderOptions, 'cluster' | 'clock'>;
}

/** The selected context of a kubeconfig, ready to build a transport. */
export interface LoadedKubeconfig {
  server: string;
  /**
   * Every API server of the cluster: `server` first, then those its `kplane.io/servers`
   * extension lists (`extension: { servers: [URL, ...] }`; kubectl ignores it and uses `server`).
   */
  servers: string[];
  /** The context's namespace, or "default". */
  namespace: string;
  contextName: string;
  clusterName: string;
  userName: string;
  transportOptions: HttpsTransportOptions;
}

/** A kubeconfig that cannot be used (wording as client-go's clientcmd). */
export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

interface NamedEntry {
  name?: string;
  [k: string]: unknown;
}

/** One parsed file: named entries with file paths already made absolute. */
interface ParsedConfig {
  clusters: Map<string, Record<string, unknown>>;
  users: Map<string, Record<string, unknown>>;
  contexts: Map<string, Record<string, unknown>>;
  currentContext: string;
}

const FILE_FIELDS: Record<'cluster' | 'user', string[]> = {
  cluster: ['certificate-authority'],
  user: ['client-certificate', 'client-key', 'tokenFile'],
};

function looksLikeText(s: string): boolean {
  return s.includes('\n') || s.trimStart().startsWith('{');
}

function parseConfig(text: string, dir: string, source: string): ParsedConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text) ?? {};
  } catch (err) {
    throw new KubeconfigError(`error loading config file "${source}": ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new KubeconfigError(`error loading config file "${source}": not a kubeconfig object`);
  }
  const d = doc as Record<string, unknown>;
  const named = (list: unknown, inner: 'cluster' | 'user' | 'context'): Map<string, Record<string, unknown>> => {
    const m = new Map<string, Record<string, unknown>>();
    if (!Array.isArray(list)) return m;
    for (const e of list as NamedEntry[]) {
      if (!e || typeof e.name !== 'string') continue;
      const body = { ...((e[inner] as Record<string, unknown> | undefined) ?? {}) };
      if (inner !== 'context') {
        for (const f of FILE_FIELDS[inner]) {
          const v = body[f];
          if (typeof v === 'string' && v !== '' && !isAbsolute(v)) body[f] = resolve(dir, v);
        }
        // An exec command given as a relative path (not a bare name looked up in PATH) is relative to the file.
        const exec = body['exec'];
        if (inner === 'user' && exec && typeof exec === 'object') {
          const command = (exec as Record<string, unknown>)['command'];
          if (typeof command === 'string' && command.includes('/') && !isAbsolute(command)) body['exec'] = { ...exec, command: resolve(dir, command) };
        }
      }
      if (!m.has(e.name)) m.set(e.name, body);
    }
    return m;
  };
  return {
    clusters: named(d['clusters'], 'cluster'),
    users: named(d['users'], 'user'),
    contexts: named(d['contexts'], 'context'),
    currentContext: typeof d['current-context'] === 'string' ? d['current-context'] : '',
  };
}

/** Merges configs the way KUBECONFIG lists merge: the first file to define a name wins. */
function merge(configs: ParsedConfig[]): ParsedConfig {
  const out: ParsedConfig = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: '' };
  for (const c of configs) {
    for (const key of ['clusters', 'users', 'contexts'] as const) {
      for (const [k, v] of c[key]) if (!out[key].has(k)) out[key].set(k, v);
    }
    if (!out.currentContext && c.currentContext) out.currentContext = c.currentContext;
  }
  return out;
}

function readConfigs(pathOrText: string | undefined, options: KubeconfigOptions): ParsedConfig {
  if (pathOrText !== undefined && looksLikeText(pathOrText)) {
    return parseConfig(pathOrText, options.baseDir ?? process.cwd(), '<inline>');
  }
  if (pathOrText !== undefined) {
    const file = resolve(pathOrText);
    return parseConfig(readOrThrow(file), dirname(file), file);
  }
  const env = options.env ?? process.env;
  const list = (env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p !== '');
  const files = list.length > 0 ? list.map((p) => resolve(p)) : [join(homedir(), '.kube', 'config')];
  // Like client-go, files named in KUBECONFIG that do not exist are skipped.
  return merge(files.filter((f) => existsSync(f)).map((f) => parseConfig(readOrThrow(f), dirname(f), f)));
}

function readOrThrow(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`stat ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
  }
}

function str(o: Record<string, unknown>, k: string): string | undefined {
  const v = o[k];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function fromBase64(v: string): Uint8Array {
  return new Uint8Array(Buffer.from(v, 'base64'));
}

function readFileField(file: string, what: string, owner: string, errors: string[]): Uint8Array | undefined {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (err) {
    errors.push(`unable to read ${what} ${file} for ${owner} due to ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * Loads a kubeconfig and resolves one context to a server, namespace and transport options.
 * `pathOrText` is a file path or the YAML text itself; absent, the files listed in the
 * KUBECONFIG environment variable are merged (first definition of a name wins), or
 * ~/.kube/config is read. Relative file paths in the config resolve against the folder of
 * the file that contains them. `*-data` fields are base64 and win over their file variants.
 *
 * Errors: KubeconfigError with client-go's wording (e.g. `context was not found for
 * specified context: x`, `invalid configuration: no server found for cluster "c"`).
 */
export function loadKubeconfig(pathOrText?: string, options: KubeconfigOptions = {}): LoadedKubeconfig {
  const cfg = readConfigs(pathOrText, options);
  if (cfg.clusters.size === 0 && cfg.users.size === 0 && cfg.contexts.size === 0 && !cfg.currentContext) {
    throw new KubeconfigError('invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable');
  }
  const contextName = options.context || cfg.currentContext;
  if (!contextName) throw new KubeconfigError('no context chosen');
  const ctx = cfg.contexts.get(contextName);
  if (!ctx) throw new KubeconfigError(`context was not found for specified context: ${contextName}`);

  const errors: string[] = [];
  const clusterName = str(ctx, 'cluster') ?? '';
  const userName = str(ctx, 'user') ?? '';
  const cluster = cfg.clusters.get(clusterName);
  if (!clusterName) errors.push(`cluster was not specified for context ${JSON.stringify(contextName)}`);
  else if (!cluster) errors.push(`cluster ${JSON.stringify(clusterName)} was not found for context ${JSON.stringify(contextName)}`);
  const user = userName ? cfg.users.get(userName) : {};
  if (userName && !user) errors.push(`user ${JSON.stringify(userName)} was not found for context ${JSON.stringify(contextName)}`);

  const c = cluster ?? {};
  const u = user ?? {};
  const server = str(c, 'server') ?? '';
  if (cluster && !server) errors.push(`no server found for cluster ${JSON.stringify(clusterName)}`);

  const t: HttpsTransportOptions = { server };
  const caData = str(c, 'certificate-authority-data');
  const caFile = str(c, 'certificate-authority');
  if (caData) t.ca = fromBase64(caData);
  else if (caFile) t.ca = readFileField(caFile, 'certificate-authority', clusterName, errors);
  if (c['insecure-skip-tls-verify'] === true) t.insecureSkipTLSVerify = true;
  const tlsServerName = str(c, 'tls-server-name');
  if (tlsServerName) t.tlsServerName = tlsServerName;

  const certData = str(u, 'client-certificate-data');
  const certFile = str(u, 'client-certificate');
  const keyData = str(u, 'client-key-data');
  const keyFile = str(u, 'client-key');
  if (certData || certFile) {
    if (!keyData && !keyFile) {
      errors.push(`client-key-data or client-key must be specified for ${userName} to use the clientCert authentication method.`);
    }
    t.cert = certData ? fromBase64(certData) : readFileField(certFile!, 'client-cert', userName, errors);
    if (keyData) t.key = fromBase64(keyData);
    else if (keyFile) t.key = readFileField(keyFile, 'client-key', userName, errors);
  }
  const token = str(u, 'token');
  const tokenFile = str(u, 'tokenFile');
  if (token) t.token = token;
  else if (tokenFile) t.tokenFile = tokenFile;
  const execConfig = parseExec(u['exec'], userName, errors);
  const username = str(u, 'username');
  const password = str(u, 'password');
  if (username !== undefined || password !== undefined) {
    t.username = username ?? '';
    t.password = password ?? '';
  }

  if (errors.length > 0) {
    throw new KubeconfigError(`invalid configuration: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`);
  }
  if (options.clock) t.clock = options.clock;
  // As client-go: a token, basic authentication or a client certificate wins over the plugin.
  if (execConfig && !t.token && !t.tokenFile && t.username === undefined && !t.cert) {
    try {
      t.credentials = createExecCredentialProvider(execConfig, { ...options.exec, clock: options.clock, cluster: clusterInfo(c, t) });
    } catch (err) {
      if (err instanceof ExecCredentialError) throw new KubeconfigError(err.message);
      throw err;
    }
  }
  const servers = clusterServers(c, server);
  // Every transport made from these options (a controller's, a node's) fails over too.
  if (servers.length > 1) t.servers = servers;
  return { server, servers, namespace: str(ctx, 'namespace') ?? 'default', contextName, clusterName, userName, transportOptions: t };
}

/** Reads a user's `exec` stanza, pushing clientcmd's validation errors; undefined when absent or invalid. */
function parseExec(value: unknown, userName: string, errors: string[]): ExecConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const e = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const before = errors.length;
  const command = str(e, 'command');
  const apiVersion = str(e, 'apiVersion');
  if (!command) errors.push(`command must be specified for ${userName} to use exec authentication plugin`);
  if (!apiVersion) errors.push(`apiVersion must be specified for ${userName} to use exec authentication plugin`);
  const env: { name: string; value: string }[] = [];
  for (const v of Array.isArray(e['env']) ? (e['env'] as Record<string, unknown>[]) : []) {
    const name = v && typeof v['name'] === 'string' ? v['name'] : '';
    if (!name) errors.push(`env variable name must be specified for ${userName} to use exec authentication plugin`);
    else env.push({ name, value: typeof v['value'] === 'string' ? v['value'] : '' });
  }
  // v1beta1 defaults interactiveMode to IfAvailable; v1 requires it.
  let mode = str(e, 'interactiveMode') ?? (apiVersion === 'client.authentication.k8s.io/v1beta1' ? 'IfAvailable' : undefined);
  if (mode === undefined) errors.push(`interactiveMode must be specified for ${userName} to use exec authentication plugin`);
  else if (!['Never', 'IfAvailable', 'Always'].includes(mode)) {
    errors.push(`invalid interactiveMode for ${userName}: ${JSON.stringify(mode)}`);
    mode = undefined;
  }
  if (errors.length > before) return undefined;
  return {
    command: command!,
    args: Array.isArray(e['args']) ? (e['args'] as unknown[]).map(String) : [],
    env,
    apiVersion: apiVersion!,
    installHint: str(e, 'installHint'),
    provideClusterInfo: e['provideClusterInfo'] === true,
    interactiveMode: mode as ExecConfig['interactiveMode'],
  };
}

/** The name of the cluster extension that lists more servers of the cluster. */
export const SERVERS_EXTENSION = 'kplane.io/servers';

/** `server`, then the further servers the cluster's `kplane.io/servers` extension names, without repeats. */
function clusterServers(c: Record<string, unknown>, server: string): string[] {
  const ext = Array.isArray(c['extensions'])
    ? (c['extensions'] as Record<string, unknown>[]).find((x) => x && x['name'] === SERVERS_EXTENSION)
    : undefined;
  const listed = (ext?.['extension'] as { servers?: unknown } | undefined)?.servers;
  const more = Array.isArray(listed) ? listed.filter((s): s is string => typeof s === 'string' && s !== '') : [];
  return [...new Set([server, ...more])].filter(Boolean);
}

/** A transport for a loaded kubeconfig: over its one server, or failing over across several (`transportOptions.servers`). */
function transportFor(cfg: LoadedKubeconfig, extra: Pick<HttpsTransportOptions, 'maxSockets' | 'userAgent'>): HttpsTransport {
  return createHttpsTransport({ ...cfg.transportOptions, maxSockets: extra.maxSockets, userAgent: extra.userAgent });
}

/** The cluster as an exec plugin is told about it (provideClusterInfo). */
function clusterInfo(c: Record<string, unknown>, t: HttpsTransportOptions): ExecClusterInfo {
  const info: ExecClusterInfo = { server: t.server };
  if (t.tlsServerName) info['tls-server-name'] = t.tlsServerName;
  if (t.insecureSkipTLSVerify) info['insecure-skip-tls-verify'] = true;
  if (t.ca !== undefined) info['certificate-authority-data'] = Buffer.from(t.ca).toString('base64');
  const proxy = str(c, 'proxy-url');
  if (proxy) info['proxy-url'] = proxy;
  if (c['disable-compression'] === true) info['disable-compression'] = true;
  const ext = Array.isArray(c['extensions'])
    ? (c['extensions'] as Record<string, unknown>[]).find((x) => x && x['name'] === 'client.authentication.k8s.io/exec')
    : undefined;
  if (ext && ext['extension'] !== undefined) info.config = ext['extension'];
  return info;
}

/** Loads a kubeconfig (see loadKubeconfig) and creates an HTTPS transport for its context (failing over across its servers when it lists several). */
export function transportFromKubeconfig(
  pathOrText?: string,
  options: KubeconfigOptions & Pick<HttpsTransportOptions, 'maxSockets' | 'userAgent'> = {},
): HttpsTransport {
  return transportFor(loadKubeconfig(pathOrText, options), options);
}

/** Loads a kubeconfig and creates a client whose default namespace is the context's. */
export function clientFromKubeconfig(
  pathOrText?: string,
  options: KubeconfigOptions & Pick<HttpsTransportOptions, 'maxSockets' | 'userAgent'> = {},
): Client & { transport: HttpsTransport } {
  const cfg = loadKubeconfig(pathOrText, options);
  const transport = transportFor(cfg, options);
  return Object.assign(createClient({ transport, defaultNamespace: cfg.namespace }), { transport });
}
