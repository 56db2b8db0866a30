/**
 * Exec credential plugins (client.authentication.k8s.io v1 and v1beta1), as client-go runs them:
 * a command named in the kubeconfig prints an ExecCredential whose status holds a bearer token
 * or a client certificate, optionally with an expiry. Cloud providers' CLIs (`aws eks get-token`,
 * `gke-gcloud-auth-plugin`, `kubelogin`) work this way.
 */
import { spawn } from 'node:child_process';
import type { Credential, CredentialProvider } from './https-transport.js';
import type { NowSource } from './token-file.js';

/** The API versions of ExecCredential a plugin may speak. */
export const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;

/** The `exec` stanza of a kubeconfig user. */
export interface ExecConfig {
  command: string;
  args?: string[];
  /** Added to the plugin's environment (after the process's own). */
  env?: { name: string; value: string }[];
  apiVersion: string;
  /** Shown when the command is not found. */
  installHint?: string;
  /** Pass the cluster's details in KUBERNETES_EXEC_INFO. */
  provideClusterInfo?: boolean;
  /** Never, IfAvailable (stdin when it is a terminal) or Always (fails without a terminal). */
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
}

/** The cluster as a plugin sees it in KUBERNETES_EXEC_INFO (clientauthentication's Cluster, JSON names). */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  /** Base64 of the PEM CA bundle. */
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  /** The cluster's `client.authentication.k8s.io/exec` extension. */
  config?: unknown;
}

/** Options of createExecCredentialProvider (the defaults are the process's). */
export interface ExecProviderOptions {
  cluster?: ExecClusterInfo;
  /** Clock for expirationTimestamp (default the real time). */
  clock?: NowSource;
  /** The plugin's base environment (default process.env). */
  env?: Record<string, string | undefined>;
  /** Is standard input a terminal (default `process.stdin.isTTY`)? */
  stdinIsTerminal?: boolean;
  /** Where the plugin's stderr goes (default this process's stderr). */
  stderr?: (chunk: Buffer) => void;
}

/** A plugin that could not give credentials; the message is worded as client-go's. */
export class ExecCredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExecCredentialError';
  }
}

/** An exec credential provider; `run()` executes the plugin now, whatever the cache holds. */
export interface ExecCredentialProvider extends CredentialProvider {
  run(): Promise<Credential>;
  /** When the cached credentials expire (ms), or undefined for never / none cached. */
  expiresAt(): number | undefined;
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  spawnError?: NodeJS.ErrnoException;
}

function execute(command: string, args: string[], env: NodeJS.ProcessEnv, interactive: boolean, stderr: (c: Buffer) => void): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let child;
    try {
      child = spawn(command, args, { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ code: null, signal: null, stdout: Buffer.alloc(0), spawnError: err as NodeJS.ErrnoException });
      return;
    }
    let spawnError: NodeJS.ErrnoException | undefined;
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', stderr);
    child.on('error', (err: NodeJS.ErrnoException) => (spawnError = err));
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), spawnError }));
  });
}

/**
 * Creates the credential provider of an exec plugin. Credentials are obtained by running the
 * plugin on the first request, kept until their `expirationTimestamp` (forever without one), and
 * obtained again when the server answers 401 to them (`refresh`). Concurrent requests share one
 * run. The plugin gets KUBERNETES_EXEC_INFO: `{"kind":"ExecCredential","apiVersion":…,
 * "spec":{"cluster":…,"interactive":…}}` (cluster only with provideClusterInfo).
 *
 * Errors (ExecCredentialError, as client-go): `exec plugin: invalid apiVersion "x"` at once;
 * when run: `exec: executable <cmd> not found` (+ the install hint), `exec: executable <cmd>
 * failed with exit code <n>`, `decoding stdout: …`, `exec plugin is configured to use API
 * version <a>, plugin returned version <b>`, `exec plugin didn't return a status field`,
 * `exec plugin didn't return a token or cert/key pair`, `exec plugin returned only certificate
 * or key, not both`, `exec plugin cannot support interactive mode: standard input is not a terminal`.
 */
export function createExecCredentialProvider(config: ExecConfig, options: ExecProviderOptions = {}): ExecCredentialProvider {
  if (!(EXEC_API_VERSIONS as readonly string[]).includes(config.apiVersion)) {
    throw new ExecCredentialError(`exec plugin: invalid apiVersion ${JSON.stringify(config.apiVersion)}`);
  }
  const now = () => (options.clock ?? Date).now();
  const stderr = options.stderr ?? ((c: Buffer) => void process.stderr.write(c));
  let cached: Credential | undefined;
  let expiry: number | undefined;
  let inFlight: Promise<Credential> | undefined;

  const interactive = (): boolean => {
    const terminal = options.stdinIsTerminal ?? process.stdin.isTTY === true;
    switch (config.interactiveMode ?? 'IfAvailable') {
      case 'Never':
        return false;
      case 'IfAvailable':
        return terminal;
      case 'Always':
        if (!terminal) throw new ExecCredentialError('exec plugin cannot support interactive mode: standard input is not a terminal');
        return true;
      default:
        throw new ExecCredentialError(`exec plugin cannot support interactive mode: unknown interactiveMode: ${JSON.stringify(config.interactiveMode)}`);
    }
  };

  async function runOnce(): Promise<Credential> {
    const isInteractive = interactive();
    const info = {
      kind: 'ExecCredential',
      apiVersion: config.apiVersion,
      spec: { ...(config.provideClusterInfo && options.cluster ? { cluster: options.cluster } : {}), interactive: isInteractive },
    };
    const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
    for (const e of config.env ?? []) env[e.name] = e.value;
    env['KUBERNETES_EXEC_INFO'] = JSON.stringify(info);
    const r = await execute(config.command, config.args ?? [], env, isInteractive, stderr);
    if (r.spawnError) {
      if (r.spawnError.code === 'ENOENT' || r.spawnError.code === 'EACCES') {
        throw new ExecCredentialError(`exec: executable ${config.command} not found${config.installHint ? `\n\n${config.installHint}` : ''}`);
      }
      throw new ExecCredentialError(`exec: ${r.spawnError.message}`);
    }
    if (r.code !== 0) {
      throw new ExecCredentialError(r.code === null ? `exec: signal: ${r.signal}` : `exec: executable ${config.command} failed with exit code ${r.code}`);
    }
    let cred: { kind?: unknown; apiVersion?: unknown; status?: Record<string, unknown> | null };
    try {
      cred = JSON.parse(r.stdout.toString('utf8'));
      if (typeof cred !== 'object' || cred === null) throw new Error('not an object');
    } catch (err) {
      throw new ExecCredentialError(`decoding stdout: ${(err as Error).message}`);
    }
    if (cred.apiVersion !== config.apiVersion) {
      throw new ExecCredentialError(`exec plugin is configured to use API version ${config.apiVersion}, plugin returned version ${String(cred.apiVersion ?? '')}`);
    }
    if (cred.kind !== 'ExecCredential') {
      throw new ExecCredentialError(`decoding stdout: no kind ${JSON.stringify(cred.kind ?? '')} is registered for version ${JSON.stringify(config.apiVersion)}`);
    }
    const status = cred.status;
    if (!status || typeof status !== 'object') throw new ExecCredentialError("exec plugin didn't return a status field");
    const str = (k: string): string => (typeof status[k] === 'string' ? (status[k] as string) : '');
    const token = str('token');
    const cert = str('clientCertificateData');
    const key = str('clientKeyData');
    if (token === '' && cert === '' && key === '') throw new ExecCredentialError("exec plugin didn't return a token or cert/key pair");
    if ((cert === '') !== (key === '')) throw new ExecCredentialError('exec plugin returned only certificate or key, not both');
    const exp = str('expirationTimestamp');
    const at = exp === '' ? undefined : Date.parse(exp);
    if (at !== undefined && Number.isNaN(at)) throw new ExecCredentialError(`decoding stdout: invalid expirationTimestamp ${JSON.stringify(exp)}`);
    const fresh: Credential = { ...(token ? { token } : {}), ...(cert ? { cert, key } : {}) };
    cached = fresh;
    expiry = at;
    return fresh;
  }

  /** One run at a time: concurrent callers share it. */
  const run = (): Promise<Credential> => {
    inFlight ??= runOnce().finally(() => (inFlight = undefined));
    return inFlight;
  };

  return {
    run,
    expiresAt: () => (cached ? expiry : undefined),
    get() {
      if (inFlight) return inFlight;
      if (cached && (expiry === undefined || now() <= expiry)) return Promise.resolve(cached);
      return run();
    },
    async refresh(used) {
      if (inFlight) {
        await inFlight;
        return;
      }
      if (used !== cached) return; // already rotated by another request
      await run();
    },
  };
}
