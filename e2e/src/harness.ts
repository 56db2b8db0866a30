import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { after, before } from 'node:test';
import { request } from 'node:https';
import { eventuallyWith } from '@kplane/api/testing';
import { clientFromKubeconfig, loadKubeconfig, type Client } from '@kplane/client';
import type { AuditEvent } from '@kplane/apiserver';

const require = createRequire(import.meta.url);

/**
 * Path of the kplane command as npm links it (bin/kplane.js): it runs the bundled command of the
 * build when that is current, the compiled dist/main.js otherwise.
 */
export const KPLANE_MAIN = join(dirname(require.resolve('kplane')), '..', 'bin', 'kplane.js');

/** A kplane process started with `kplane up`. */
export interface KplaneProcess {
  child: ChildProcess;
  dataDir: string;
  kubeconfig: string;
  url: string;
  /** Everything the process printed. */
  output(): string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Makes a fresh temporary data dir. */
export async function tempDir(prefix = 'kplane-e2e-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Removes a temporary data dir. */
export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Starts `kplane up --port 0` on dataDir and waits for its ready line. */
export async function startKplane(dataDir: string, extraArgs: string[] = []): Promise<KplaneProcess> {
  const child = spawn(process.execPath, [KPLANE_MAIN, 'up', '--port', '0', '--data-dir', dataDir, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const { kubeconfig, url } = await new Promise<{ kubeconfig: string; url: string }>((resolve, reject) => {
    // One that does not start is killed: left running, it would keep the test process alive.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kplane did not start in time:\n${out}`));
    }, 30_000);
    const check = () => {
      const k = /^kubeconfig: (.+)$/m.exec(out);
      const r = /^ready: (https:\/\/\S+)$/m.exec(out);
      if (k && r) {
        clearTimeout(timer);
        resolve({ kubeconfig: k[1]!, url: r[1]! });
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`kplane exited with ${code}:\n${out}`));
    });
  });
  return {
    child,
    dataDir,
    kubeconfig,
    url,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** Result of a kubectl run. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real kubectl against a kubeconfig (with `env` added to its environment). */
export function kubectl(kubeconfig: string, args: string[], input?: string, env: Record<string, string> = {}): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', args, { env: { ...process.env, ...env, KUBECONFIG: kubeconfig }, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    if (input !== undefined) child.stdin!.end(input);
    else child.stdin!.end();
  });
}

/** Runs kubectl and fails with its output when it does not exit 0. */
export async function kubectlOk(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const r = await kubectl(kubeconfig, args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** Folder of this file (for fixtures). */
export const HERE = dirname(fileURLToPath(import.meta.url));

/** A `kplane controller-manager` process. */
export interface ControllerManagerProcess {
  child: ChildProcess;
  /** Everything it printed. */
  output(): string;
  /** The leader-election identity it announced once it held the Lease. */
  identity(): string | undefined;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `kplane controller-manager --kubeconfig F --secure-port 0` and waits until its output
 * matches `ready` (default: it holds the Lease and started its controllers).
 */
export async function startControllerManager(
  kubeconfig: string,
  ready = /successfully acquired lease kube-system\/kube-controller-manager as \S+; started /,
  extraArgs: string[] = [],
): Promise<ControllerManagerProcess> {
  const child = spawn(process.execPath, [KPLANE_MAIN, 'controller-manager', '--kubeconfig', kubeconfig, '--secure-port', '0', ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const state = await eventually('the controller-manager to get ready', () => (child.exitCode !== null ? 'exited' : ready.test(out) && 'ready'), { timeoutMs: 30_000, intervalMs: 50 }).catch((err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}:\n${out}`);
  });
  if (state === 'exited') throw new Error(`controller-manager exited with ${child.exitCode}:\n${out}`);
  return {
    child,
    output: () => out,
    identity: () => /successfully acquired lease kube-system\/kube-controller-manager as (\S+);/.exec(out)?.[1],
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Any `kplane` command run as a process (`kplane apiserver`, `kplane scheduler`, ...). */
export interface KplaneCommand {
  child: ChildProcess;
  /** Everything it printed. */
  output(): string;
  /** Sends `signal` (default SIGTERM) and waits for exit; resolves with the exit code (null when killed). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `kplane ARGS...` and waits (30 s at most) until its output matches `ready`; fails with its output if it exits first. */
export async function startKplaneCommand(args: string[], ready: RegExp): Promise<KplaneCommand> {
  const child = spawn(process.execPath, [KPLANE_MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const state = await eventually(`kplane ${args[0]} to get ready`, () => (child.exitCode !== null ? 'exited' : ready.test(out) && 'ready'), { timeoutMs: 30_000, intervalMs: 50 }).catch((err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}:\n${out}`);
  });
  if (state === 'exited') throw new Error(`kplane ${args[0]} exited with ${child.exitCode}:\n${out}`);
  return {
    child,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** The shared `eventually` with the defaults of a real kplane process: 20 s, every 150 ms. */
export const eventually = eventuallyWith({ timeoutMs: 20_000, intervalMs: 150 });

/** The audit events of an audit log file (`kplane up --audit-log`), one JSON line each. */
export async function auditEvents(path: string): Promise<AuditEvent[]> {
  return (await readFile(path, 'utf8')).trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as AuditEvent);
}

/**
 * GET over HTTPS (the server's certificate not checked) with the kubeconfig's client
 * certificate when `withCert`, and a bearer token when given.
 */
export function httpsGet(url: string, kubeconfig: string, withCert: boolean, token?: string): Promise<{ status: number; body: string }> {
  const t = loadKubeconfig(kubeconfig).transportOptions;
  const pem = (v: string | Uint8Array | undefined) => (v === undefined ? undefined : Buffer.from(v));
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { rejectUnauthorized: false, ...(withCert ? { cert: pem(t.cert), key: pem(t.key) } : {}), headers: token ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Writes a kubeconfig for `kp`'s server that authenticates with a bearer token only (no client
 * certificate: a certificate would win over the token, as in kube-apiserver); returns its path.
 */
export async function tokenKubeconfig(kp: KplaneProcess, token: string, name = 'token'): Promise<string> {
  const ca = Buffer.from(await readFile(join(kp.dataDir, 'pki', 'ca.crt'))).toString('base64');
  const path = join(kp.dataDir, `kubeconfig-${name}`);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kplane', cluster: { server: kp.url, 'certificate-authority-data': ca } }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: 'kplane', user: name, namespace: 'default' } }],
    'current-context': name,
  };
  await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

/** A kplane process started once for a suite: the data dir and process, valid inside its tests. */
export interface SuiteKplane {
  readonly kp: KplaneProcess;
  readonly dir: string;
  /** An admin client of the process (made on first use, its sockets closed after the suite). */
  readonly client: Client;
  /** SIGTERM, then `kplane up` again on the same data dir and flags; resolves with the exit code. */
  restart(): Promise<number | null>;
}

/**
 * Starts `kplane up` (with `extraArgs`) in a new data dir before the suite's tests and stops it
 * and removes the dir after them; call it inside a `describe`.
 */
export function useKplane(extraArgs: string[] = ['--nodes', '0']): SuiteKplane {
  let kp: KplaneProcess | undefined;
  let dir: string | undefined;
  let client: Client | undefined;
  before(async () => {
    dir = await tempDir();
    kp = await startKplane(dir, extraArgs);
  });
  after(async () => {
    (client?.transport as { close?: () => void } | undefined)?.close?.();
    await kp?.stop();
    if (dir) await removeDir(dir);
  });
  return {
    get kp() {
      if (!kp) throw new Error('kplane is not started yet (use it inside a test)');
      return kp;
    },
    get client() {
      client ??= clientFromKubeconfig(this.kp.kubeconfig);
      return client;
    },
    async restart() {
      const code = await this.kp.stop();
      kp = await startKplane(this.dir, extraArgs);
      return code;
    },
    get dir() {
      if (!dir) throw new Error('kplane is not started yet (use it inside a test)');
      return dir;
    },
  };
}

/**
 * YAML of a selectorless Service `name` (port 443, named https) and its hand-made EndpointSlice
 * pointing at 127.0.0.1:`port`: how a server running in the test is reached as a Service (a
 * webhook's, an APIService's); ends with a `---` separator.
 */
export function localServiceYaml(name: string, port: number, namespace = 'default'): string {
  return `apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  ports: [{name: https, port: 443}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: ${name}-1, namespace: ${namespace}, labels: {kubernetes.io/service-name: ${name}}}
addressType: IPv4
ports: [{name: https, port: ${port}, protocol: TCP}]
endpoints: [{addresses: [127.0.0.1], conditions: {ready: true}}]
---
`;
}

/**
 * A namespaced CustomResourceDefinition of kind Widget (widgets.`group`), served and stored at
 * v1, as YAML; `spec` is the schema of a Widget's spec, written as JSON (which YAML reads).
 */
export function widgetCrd(group: string, spec: object): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: ${JSON.stringify(spec)}
`;
}

/** The course's ConfigMap held by a finalizer no controller removes (the stuck-deletion experiments). */
export const GARDE_CONFIGMAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: garde
  finalizers:
  - cours.exemple/archivage
data:
  a: "1"
`;
