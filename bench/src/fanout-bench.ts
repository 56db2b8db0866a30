/**
 * The watch fan-out benchmark: many watchers of one namespace while ConfigMaps are created in
 * it at a steady rate, against a kplane on memory storage over HTTPS in a child process (as
 * `kplane up` runs it). Watches are multiplexed over HTTP/2 connections (up to 500 streams
 * each, as client-go shares one connection per host) or, for comparison, each over its own
 * HTTP/1.1 connection. Reported: the time to open every watch, the writes acknowledged per
 * second against those asked, and the delivery latency of each event to each watcher (from the
 * moment its create was sent to the moment the watcher read it), p50 and p99.
 */
import { connect, type ClientHttp2Session } from 'node:http2';
import { Agent, request } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { loadKubeconfig } from '@kplane/client';
import { startChild } from './child.js';
import { formatTable } from './report.js';
import { percentile } from './load.js';
import type { KplaneInfo } from './server-kplane.js';

/** Options of benchFanout. */
export interface FanoutBenchOptions {
  /** Watchers of the namespace (default 2000). */
  watchers?: number;
  /** Creates asked per second (default 500). */
  writesPerSecond?: number;
  /** How long the writes go on, in seconds (default 5). */
  seconds?: number;
  /** 'h2': watches multiplexed over HTTP/2 (default); 'http1.1': one connection each. */
  protocol?: 'h2' | 'http1.1';
  /** How long to wait after the last write for the events still on their way (default 10 s). */
  drainMs?: number;
  progress?: (line: string) => void;
}

/** What benchFanout measured. */
export interface FanoutBenchResult {
  protocol: 'h2' | 'http1.1';
  watchers: number;
  /** Time to open every watch (until each answered its headers), ms. */
  openMs: number;
  writesAsked: number;
  writesPerSecondAsked: number;
  /** Creates answered 201 within the write window, per second of it. */
  writesPerSecondAcked: number;
  writeErrors: number;
  /** Time from sending a create to its answer, ms. */
  writeP50Ms: number;
  writeP99Ms: number;
  /** Events expected (acknowledged creates × watchers) and read by the end of the drain. */
  deliveriesExpected: number;
  deliveries: number;
  /** Server CPU (user + system) from the first write to the end of the drain, per event delivered to one watcher, µs; undefined off Linux. */
  serverCpuUsPerDelivery?: number;
  /** This process's CPU (the watchers and the writer, on the same cores) over the same span, per delivery, µs. */
  clientCpuUsPerDelivery: number;
  /** Delivery latency over every (event, watcher), ms. */
  p50Ms: number;
  p99Ms: number;
}

const NS = 'fanout';
const SEQ = Buffer.from('"fanout-seq":"');
/** Latency histogram: 0.1 ms buckets up to 60 s. */
const BUCKET_MS = 0.1;
const BUCKETS = 600_000;
const STREAMS_PER_SESSION = 500;
/** The HTTP/2 connection-level receive window of the bench's client sessions (client-go's). */
const CONNECTION_WINDOW = 1 << 30;

/** The q-quantile (0..1) of a histogram of BUCKET_MS buckets, in ms. */
export function histogramQuantile(h: Uint32Array, count: number, q: number): number {
  if (count === 0) return NaN;
  const rank = Math.ceil(q * count);
  let seen = 0;
  for (let i = 0; i < h.length; i++) {
    seen += h[i]!;
    if (seen >= rank) return (i + 1) * BUCKET_MS;
  }
  return h.length * BUCKET_MS;
}

/** Runs the fan-out benchmark against a fresh kplane (memory storage, HTTPS) in a child process. */
export async function benchFanout(dataDir: string, options: FanoutBenchOptions = {}): Promise<FanoutBenchResult> {
  const watchers = options.watchers ?? 2000;
  const rate = options.writesPerSecond ?? 500;
  const seconds = options.seconds ?? 5;
  const protocol = options.protocol ?? 'h2';
  const drainMs = options.drainMs ?? 10_000;
  const progress = options.progress ?? (() => {});
  const child = await startChild<KplaneInfo>(new URL('./server-kplane.js', import.meta.url), ['memory', dataDir]);
  const kc = loadKubeconfig(child.info.kubeconfigPath);
  const text = (v: Uint8Array | string | undefined) => (v === undefined ? undefined : typeof v === 'string' ? v : Buffer.from(v).toString('utf8'));
  const tls = { ca: text(kc.transportOptions.ca), cert: text(kc.transportOptions.cert), key: text(kc.transportOptions.key) };
  const token = kc.transportOptions.token;
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const url = new URL(kc.server);
  const sessions: ClientHttp2Session[] = [];
  const h1Responses: IncomingMessage[] = [];
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const newSession = (): ClientHttp2Session => {
    const s = connect(url.origin, {
      settings: { initialWindowSize: 4 * 1024 * 1024 },
      // As Go's client does: requests leave at once (TCP_NODELAY).
      createConnection: () => tlsConnect({ host: url.hostname, port: Number(url.port), ...tls, ALPNProtocols: ['h2'] }).setNoDelay(true),
    });
    s.on('error', () => {});
    // As client-go's HTTP/2 transport does (4 MiB a stream, 1 GiB the connection): with node's
    // default connection window (64 KiB) 500 streams share 64 KiB in flight, and the server
    // waits for the client's WINDOW_UPDATE every 64 KiB.
    s.once('connect', () => s.setLocalWindowSize(CONNECTION_WINDOW));
    sessions.push(s);
    return s;
  };
  try {
    const writer = newSession();
    const call = (method: string, path: string, body?: unknown): Promise<number> =>
      new Promise((resolve) => {
        const st = writer.request({ ':method': method, ':path': path, 'content-type': 'application/json', accept: 'application/json', ...auth });
        let status = 0;
        st.on('response', (h) => (status = Number(h[':status'])));
        st.on('error', () => resolve(0));
        st.resume();
        st.on('end', () => resolve(status));
        st.end(body === undefined ? undefined : JSON.stringify(body));
      });
    const made = await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    if (made !== 201) throw new Error(`creating namespace ${NS}: ${made}`);

    const sentAt = new Float64Array(Math.ceil(rate * seconds) + 1);
    const histogram = new Uint32Array(BUCKETS);
    let deliveries = 0;
    /** Reads the sequence numbers of the events in a chunk and records their latencies. */
    const onChunk = (chunk: Buffer): void => {
      const now = performance.now();
      let at = chunk.indexOf(SEQ);
      while (at >= 0) {
        let i = at + SEQ.length;
        let seq = 0;
        for (let c = chunk[i]!; c >= 48 && c <= 57; c = chunk[++i]!) seq = seq * 10 + c - 48;
        const ms = now - sentAt[seq]!;
        histogram[Math.min(BUCKETS - 1, Math.max(0, Math.floor(ms / BUCKET_MS)))]!++;
        deliveries++;
        at = chunk.indexOf(SEQ, i);
      }
    };
    const watchPath = `/api/v1/namespaces/${NS}/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=600`;
    const openStart = performance.now();
    const opened: Promise<void>[] = [];
    let session: ClientHttp2Session | undefined;
    for (let w = 0; w < watchers; w++) {
      if (protocol === 'h2') {
        if (w % STREAMS_PER_SESSION === 0) session = newSession();
        const st = session!.request({ ':path': watchPath, accept: 'application/json', ...auth });
        st.on('error', () => {});
        st.on('data', onChunk);
        opened.push(new Promise((resolve, reject) => {
          st.once('response', (h) => (Number(h[':status']) === 200 ? resolve() : reject(new Error(`watch answered ${String(h[':status'])}`))));
        }));
      } else {
        opened.push(new Promise((resolve, reject) => {
          const req = request({ host: url.hostname, port: url.port, path: watchPath, headers: { accept: 'application/json', ...auth }, ...tls, agent }, (res) => {
            h1Responses.push(res);
            res.on('data', onChunk);
            res.on('error', () => {});
            if (res.statusCode === 200) resolve();
            else reject(new Error(`watch answered ${res.statusCode}`));
          });
          req.on('error', reject);
          req.end();
        }));
      }
    }
    await Promise.all(opened);
    const openMs = performance.now() - openStart;
    progress(`  fan-out (${protocol}): ${watchers} watches open in ${(openMs / 1000).toFixed(2)} s`);

    // Open loop: every 5 ms, the creates due by then are sent, whatever the answers.
    const total = Math.ceil(rate * seconds);
    let sent = 0;
    let acked = 0;
    let errors = 0;
    const writes: Promise<void>[] = [];
    const writeMs: number[] = [];
    const start = performance.now();
    const cpuStart = child.cpuMs();
    const clientCpuStart = process.cpuUsage();
    const windowEnd = start + seconds * 1000;
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
        for (; sent < due; sent++) {
          const seq = sent;
          sentAt[seq] = performance.now();
          const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${seq}` }, data: { 'fanout-seq': String(seq) } };
          writes.push(call('POST', `/api/v1/namespaces/${NS}/configmaps`, body).then((status) => {
            writeMs.push(performance.now() - sentAt[seq]!);
            if (status === 201 && performance.now() <= windowEnd) acked++;
            else if (status !== 201) errors++;
          }));
        }
        if (sent >= total) {
          clearInterval(tick);
          resolve();
        }
      }, 5);
    });
    await Promise.all(writes);
    const created = total - errors;
    const expected = created * watchers;
    const drainEnd = performance.now() + drainMs;
    while (deliveries < expected && performance.now() < drainEnd) await new Promise((r) => setTimeout(r, 20));
    const cpuEnd = child.cpuMs();
    const clientCpu = process.cpuUsage(clientCpuStart);
    return {
      protocol,
      watchers,
      openMs,
      writesAsked: total,
      writesPerSecondAsked: rate,
      writesPerSecondAcked: acked / seconds,
      writeErrors: errors,
      writeP50Ms: percentile(writeMs.sort((a, b) => a - b), 0.5),
      writeP99Ms: percentile(writeMs, 0.99),
      deliveriesExpected: expected,
      deliveries,
      serverCpuUsPerDelivery: cpuStart === undefined || cpuEnd === undefined || deliveries === 0 ? undefined : ((cpuEnd - cpuStart) * 1000) / deliveries,
      clientCpuUsPerDelivery: deliveries === 0 ? NaN : (clientCpu.user + clientCpu.system) / deliveries,
      p50Ms: histogramQuantile(histogram, deliveries, 0.5),
      p99Ms: histogramQuantile(histogram, deliveries, 0.99),
    };
  } finally {
    for (const s of sessions) s.destroy();
    for (const r of h1Responses) r.destroy();
    agent.destroy();
    await child.stop();
  }
}

/** The fan-out table: each run's figures, read against the targets (p99 ≤ 100 ms, every write acknowledged at the rate asked). */
export function formatFanout(results: readonly FanoutBenchResult[], targetP99Ms = 100): string {
  const rows = [['case', 'open watches', 'writes/s acked', 'vs asked', 'write p50/p99', 'delivered', 'server CPU/delivery', 'client CPU/delivery', 'p50', 'p99', 'p99 vs target']];
  for (const r of results) {
    rows.push([
      `${r.watchers} watchers, ${r.protocol}`,
      `${(r.openMs / 1000).toFixed(2)} s`,
      `${r.writesPerSecondAcked.toFixed(0)} of ${r.writesPerSecondAsked}`,
      `${(r.writesPerSecondAcked / r.writesPerSecondAsked).toFixed(2)}x`,
      `${r.writeP50Ms.toFixed(1)}/${r.writeP99Ms.toFixed(1)} ms`,
      `${((100 * r.deliveries) / Math.max(1, r.deliveriesExpected)).toFixed(1)}%`,
      r.serverCpuUsPerDelivery === undefined ? '-' : `${r.serverCpuUsPerDelivery.toFixed(1)} µs`,
      `${r.clientCpuUsPerDelivery.toFixed(1)} µs`,
      `${r.p50Ms.toFixed(1)} ms`,
      `${r.p99Ms.toFixed(1)} ms`,
      `${(r.p99Ms / targetP99Ms).toFixed(2)}x (≤ 1.00x)`,
    ]);
  }
  return formatTable(rows, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
}
