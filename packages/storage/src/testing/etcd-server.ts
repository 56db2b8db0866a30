/**
 * Starts real etcds for tests (one member, or a cluster): on free loopback ports, in temporary data
 * directories, and stops them again. Every etcd test starts its etcd here. When no `etcd` binary is
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

/** One etcd process: started, killed and started again on the same ports and data. */
interface Member {
  readonly clientUrl: string;
  readonly pid: number | undefined;
  /** Spawns the process (it serves once a quorum of its cluster is up: see waitHealthy). */
  spawn(): void;
  /** Resolves once it answers /health, rejects if it exits or 20 s pass. */
  waitHealthy(): Promise<void>;
  kill(): Promise<void>;
}

function member(bin: string, name: string, dataDir: string, clientPort: number, peerPort: number, initialCluster: string, tls?: EtcdTlsFiles): Member {
  const clientUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name', name,
    '--data-dir', dataDir,
    '--listen-client-urls', clientUrl,
    '--advertise-client-urls', clientUrl,
    '--listen-peer-urls', peerUrl,
    '--initial-advertise-peer-urls', peerUrl,
    '--initial-cluster', initialCluster,
    '--initial-cluster-token', 'kplane-test',
    '--max-request-bytes', String(4 * 1024 * 1024),
    '--log-level', 'error',
    '--logger', 'zap',
    ...(tls ? ['--cert-file', tls.certFile, '--key-file', tls.keyFile, '--trusted-ca-file', tls.caFile, '--client-cert-auth'] : []),
  ];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stderr = '';
  const running = (): boolean => !!child && child.exitCode === null && child.signalCode === null;
  return {
    clientUrl,
    get pid() {
      return running() ? child!.pid : undefined;
    },
    spawn() {
      stderr = '';
      const proc = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      child = proc;
      proc.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
      });
      exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    },
    async waitHealthy() {
      const deadline = Date.now() + 20_000;
      for (;;) {
        if (!running()) throw new Error(`etcd ${name} exited while starting: ${stderr}`);
        if (await healthy(clientUrl, tls)) return;
        if (Date.now() > deadline) {
          child?.kill('SIGKILL');
          throw new Error(`etcd ${name} did not become healthy within 20 s: ${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async kill() {
      if (running()) child!.kill('SIGKILL');
      await exited;
    },
  };
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
  const m = member(bin, 'kplane-test', join(dataDir, 'data'), clientPort, peerPort, `kplane-test=http://127.0.0.1:${peerPort}`, tls);
  const launch = async (): Promise<void> => {
    m.spawn();
    await m.waitHealthy();
  };
  await launch();
  return {
    endpoint: `127.0.0.1:${clientPort}`,
    url: tls
      ? `etcds://127.0.0.1:${clientPort}?cafile=${encodeURIComponent(tls.caFile)}&certfile=${encodeURIComponent(tls.clientCertFile)}&keyfile=${encodeURIComponent(tls.clientKeyFile)}`
      : `etcd://127.0.0.1:${clientPort}`,
    dataDir,
    get pid() {
      return m.pid;
    },
    kill: () => m.kill(),
    restart: launch,
    async stop() {
      await m.kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A running test etcd cluster of several members. */
export interface TestEtcdCluster {
  /** `127.0.0.1:<port>` of each member's client endpoint. */
  readonly endpoints: string[];
  /** `etcd://` URL naming every member. */
  readonly url: string;
  /** The index of the member that leads now (asked of a running member). */
  leader(): Promise<number>;
  /** SIGKILLs member i (its data stays). */
  kill(i: number): Promise<void>;
  /** Starts member i again and waits until it serves. */
  restart(i: number): Promise<void>;
  /** Stops every member and removes the data. */
  stop(): Promise<void>;
}

/** Starts a cluster of `size` members (default 3) on free loopback ports, each in its own temporary data dir. */
export async function startEtcdCluster(size = 3, options: { bin?: string } = {}): Promise<TestEtcdCluster> {
  const bin = options.bin ?? findEtcd();
  if (!bin) throw new Error(ETCD_MISSING);
  const root = mkdtempSync(join(tmpdir(), 'kplane-etcd-cluster-'));
  const ports: Array<[number, number]> = [];
  for (let i = 0; i < size; i++) ports.push([await freePort(), await freePort()]);
  const initial = ports.map(([, peer], i) => `m${i}=http://127.0.0.1:${peer}`).join(',');
  const members = ports.map(([client, peer], i) => member(bin, `m${i}`, join(root, `m${i}`), client, peer, initial));
  for (const m of members) m.spawn();
  try {
    await Promise.all(members.map((m) => m.waitHealthy()));
  } catch (err) {
    await Promise.all(members.map((m) => m.kill()));
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  const endpoints = ports.map(([client]) => `127.0.0.1:${client}`);
  return {
    endpoints,
    url: `etcd://${endpoints.join(',')}`,
    async leader() {
      for (const m of members) {
        if (m.pid === undefined) continue;
        try {
          const res = await fetch(`${m.clientUrl}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) });
          const status = (await res.json()) as { leader?: string; header?: { member_id?: string } };
          if (!status.leader) continue;
          // Every member reports the leader's id; find whose own id it is.
          for (let i = 0; i < members.length; i++) {
            if (members[i]!.pid === undefined) continue;
            const r = await fetch(`${members[i]!.clientUrl}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) });
            const own = (await r.json()) as { header?: { member_id?: string } };
            if (own.header?.member_id === status.leader) return i;
          }
        } catch {
          // try the next member
        }
      }
      throw new Error('no etcd member reports a leader');
    },
    kill: (i) => members[i]!.kill(),
    async restart(i) {
      members[i]!.spawn();
      await members[i]!.waitHealthy();
    },
    async stop() {
      await Promise.all(members.map((m) => m.kill()));
      rmSync(root, { recursive: true, force: true });
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
