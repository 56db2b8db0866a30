/**
 * Starts a real, single-member etcd for tests: on free loopback ports, in a temporary data
 * directory, and stops it again. Every etcd test uses this one helper. When no `etcd` binary is
 * installed (Debian: `apt-get install etcd-server`), `findEtcd()` returns undefined and the tests
 * skip with `ETCD_MISSING`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The skip message of a test that needs etcd when none is installed. */
export const ETCD_MISSING = 'etcd is not installed (apt-get install etcd-server); etcd tests skipped';

/** A running test etcd. */
export interface TestEtcd {
  /** `127.0.0.1:<port>` of its client endpoint. */
  readonly endpoint: string;
  /** The storage URL of a kplane backend on it: `etcd://127.0.0.1:<port>`. */
  readonly url: string;
  /** Its data directory (removed by `stop`). */
  readonly dataDir: string;
  /** The process id of the running etcd (undefined once killed). */
  readonly pid: number | undefined;
  /** Kills it with SIGKILL (no clean shutdown) and waits for the exit; the data stays. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data directory (after `kill`). */
  restart(): Promise<void>;
  /** Stops it and removes its data directory. */
  stop(): Promise<void>;
}

/** The path of the etcd binary (ETCD_BIN, or `etcd` on the PATH), or undefined when there is none. */
export function findEtcd(): string | undefined {
  const bin = process.env.ETCD_BIN ?? 'etcd';
  const probe = spawnSync(bin, ['--version'], { stdio: 'ignore' });
  return probe.error || probe.status !== 0 ? undefined : bin;
}

/** A free TCP port on 127.0.0.1 (the OS picks it; it is released before returning). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** PEM files for an etcd that serves clients over TLS and requires their certificates. */
export interface EtcdTlsFiles {
  /** The CA that signed the server's and the clients' certificates. */
  caFile: string;
  /** The server's certificate (valid for 127.0.0.1) and key. */
  certFile: string;
  keyFile: string;
  /** A client certificate and key (for the health check). */
  clientCertFile: string;
  clientKeyFile: string;
}

/** Options of startEtcd. */
export interface StartEtcdOptions {
  bin?: string;
  /** Serve clients over TLS with these files, and require client certificates. */
  tls?: EtcdTlsFiles;
}

/**
 * Starts an etcd and resolves once it serves clients. Its request limit is raised to 4 MiB so
 * the driver's own value size limit (1.5 MiB) is the one that applies.
 */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<TestEtcd> {
  const bin = options.bin ?? findEtcd();
  if (!bin) throw new Error(ETCD_MISSING);
  const dataDir = mkdtempSync(join(tmpdir(), 'kplane-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const tls = options.tls;
  const clientUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name', 'kplane-test',
    '--data-dir', join(dataDir, 'data'),
    '--listen-client-urls', clientUrl,
    '--advertise-client-urls', clientUrl,
    '--listen-peer-urls', peerUrl,
    '--initial-advertise-peer-urls', peerUrl,
    '--initial-cluster', `kplane-test=${peerUrl}`,
    '--max-request-bytes', String(4 * 1024 * 1024),
    '--log-level', 'error',
    '--logger', 'zap',
    ...(tls ? ['--cert-file', tls.certFile, '--key-file', tls.keyFile, '--trusted-ca-file', tls.caFile, '--client-cert-auth'] : []),
  ];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const launch = async (): Promise<void> => {
    let stderr = '';
    const proc = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ETCD_UNSUPPORTED_ARCH: process.env.ETCD_UNSUPPORTED_ARCH ?? '' } });
    child = proc;
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`etcd exited while starting: ${stderr}`);
      if (await healthy(clientUrl, tls)) return;
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`etcd did not become healthy within 20 s: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const kill = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };

  await launch();
  return {
    endpoint: `127.0.0.1:${clientPort}`,
    url: tls
      ? `etcds://127.0.0.1:${clientPort}?cafile=${encodeURIComponent(tls.caFile)}&certfile=${encodeURIComponent(tls.clientCertFile)}&keyfile=${encodeURIComponent(tls.clientKeyFile)}`
      : `etcd://127.0.0.1:${clientPort}`,
    dataDir,
    get pid() {
      return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    kill,
    restart: launch,
    async stop() {
      await kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function healthy(clientUrl: string, tls: EtcdTlsFiles | undefined): Promise<boolean> {
  if (tls) {
    return new Promise((resolve) => {
      const req = request(
        `${clientUrl}/health`,
        { ca: readFileSync(tls.caFile), cert: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile), timeout: 1000 },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve(res.statusCode === 200 && body.includes('"health":"true"')));
        },
      );
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
      req.end();
    });
  }
  try {
    const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
    if (!res.ok) return false;
    const body = (await res.json()) as { health?: string };
    return body.health === 'true';
  } catch {
    return false;
  }
}
