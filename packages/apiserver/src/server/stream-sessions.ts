/**
 * The sessions of pods/exec, attach and portforward once a request is known to be allowed: the
 * protocol upgrade (websocket with the channel protocols, SPDY/3.1, or SPDY tunnelled in a
 * websocket for port-forward) and what runs behind it for simulated containers — a clear error,
 * or with `LocalStreams` a local process or a local address. The API server serves them for its
 * in-process kubelets; a `kplane kubelet` process serves them on its own port.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { createRequire } from 'node:module';
import type { WebSocketServer, WebSocket } from 'ws';
import type { RawResponse } from '@kplane/api';
import { ApiError, badRequest } from '@kplane/api';
import { parseBoolParam } from './limits.js';
import { SpdySession, type SpdyStream } from './spdy.js';

/** A local address a pod port is forwarded to. */
export interface ForwardTarget {
  host: string;
  port: number;
}

/** What exec and portforward do for simulated containers (nothing, by default). */
export interface LocalStreams {
  /** Run `kubectl exec` commands as local processes of kplane's user, in this folder (e.g. the working directory). */
  execDir?: string;
  /** Pod port → local address for portforward. */
  portForward?: ReadonlyMap<number, ForwardTarget>;
}

/** What a streaming request is about, once checked. */
export interface StreamTarget {
  namespace: string;
  pod: string;
  uid?: string;
  sub: 'exec' | 'attach' | 'portforward';
  /** The container (exec and attach). */
  container?: string;
  query: URLSearchParams;
}

/** Options of serveStreamUpgrade. */
export interface StreamServeOptions {
  local?: LocalStreams;
  /** How to turn exec or port-forward on, for the clear error (e.g. `start kplane with --exec-local ...`). */
  hint?: (sub: string) => string;
}

/** The websocket subprotocols of exec and attach, newest first. */
export const CHANNEL_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];
/** The websocket subprotocol of kubectl's port-forward: SPDY inside the websocket. */
export const PORT_FORWARD_TUNNEL = 'SPDY/3.1+portforward.k8s.io';
/** The SPDY stream protocol of port-forward. */
const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
/** The SPDY stream protocols of exec and attach, newest first (v5 is websocket only). */
const SPDY_EXEC_PROTOCOLS = CHANNEL_PROTOCOLS.slice(1);
/** How long a client has to open the streams of a session (kubelet's stream creation timeout). */
const STREAM_CREATION_TIMEOUT_MS = 30_000;

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const CLOSE = 255;

/** Writes a plain HTTP answer on a socket that was not upgraded, and closes it. */
export function writeResponse(socket: Duplex, r: RawResponse): void {
  const body = Buffer.from(r.body ?? []);
  let head = `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}\r\n`;
  for (const [k, v] of Object.entries(r.headers)) if (k !== 'content-length' && k !== 'connection' && k !== 'transfer-encoding') head += `${k}: ${v}\r\n`;
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

/** A Status answer for an ApiError. */
export function statusResponse(err: ApiError): RawResponse {
  return { status: err.code, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(err.toStatus())) };
}

/** An InternalError Status, as the kubelet's errors reach clients on the error stream. */
export function failure(message: string): object {
  return { metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 };
}

const SUCCESS = { metadata: {}, status: 'Success' };

function exitStatus(code: number): object {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: exit status ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

/** The clear error of a simulated container. */
export function simulatedMessage(sub: string, pod: string, container: string | undefined, hint: string): string {
  const what = sub === 'portforward' ? `pod "${pod}"` : `container "${container ?? ''}" in pod "${pod}"`;
  const verb = sub === 'exec' ? 'exec a command in' : sub === 'attach' ? 'attach to' : 'forward ports to';
  return `cannot ${verb} ${what}: its containers are simulated by kplane and run no process${hint ? ` (${hint})` : ''}`;
}

/** The hint of `kplane up`'s flags. */
export function upHint(sub: string, local: LocalStreams = {}): string {
  if (sub === 'exec') return local.execDir === undefined ? 'start kplane with --exec-local to run exec commands as local processes' : '';
  if (sub === 'portforward') return 'start kplane with --port-forward POD_PORT=HOST:PORT to forward pod ports to local addresses';
  return '';
}

/** The streams of one exec or attach session, whichever protocol carries them. */
interface ExecChannels {
  stdout(data: Buffer): void;
  stderr(data: Buffer): void;
  /** Input from the client, then its end. */
  onStdin(data: (d: Buffer) => void, end: () => void): void;
  /** Writes the final Status (v4 JSON, its message before v4) and ends the session. */
  finish(status: object): void;
  onClose(cb: () => void): void;
}

/** The Status on the error channel: JSON from v4 on; before, only a failure's message as text. */
function statusBytes(protocol: string, status: object): Buffer | undefined {
  if (protocol === 'v4.channel.k8s.io' || protocol === 'v5.channel.k8s.io') return Buffer.from(JSON.stringify(status));
  if ((status as { status?: string }).status === 'Success') return undefined;
  return Buffer.from((status as { message?: string }).message ?? '');
}

/**
 * Serves an allowed streaming request on its socket: a websocket upgrade (channel protocols, or
 * SPDY tunnelled in it for port-forward) or a SPDY/3.1 upgrade; anything else gets a 400 Status.
 */
export function serveStreamUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, t: StreamTarget, options: StreamServeOptions = {}): void {
  const upgrade = (req.headers.upgrade ?? '').toLowerCase();
  if (upgrade === 'websocket') return serveWebSocket(req, socket, head, t, options);
  if (upgrade === 'spdy/3.1') return serveSpdyUpgrade(req, socket, head, t, options);
  writeResponse(socket, statusResponse(badRequest(`unable to upgrade: unsupported protocol upgrade "${req.headers.upgrade ?? ''}"`)));
}

/**
 * `SPDY/3.1+portforward.k8s.io` is not a valid token for the websocket library (`/`), so the
 * request offers this stand-in to it, and the answer names the real subprotocol.
 */
const TUNNEL_TOKEN = 'kplane.spdy-tunnel';

type Ws = typeof import('ws');
let ws: { lib: Ws; server: WebSocketServer } | undefined;
/** The websocket library and its upgrade handler, made at the first websocket request (most processes serve none). */
function websockets(): { lib: Ws; server: WebSocketServer } {
  if (ws) return ws;
  const lib = createRequire(import.meta.url)('ws') as Ws;
  const server = new lib.WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => (offered.has(TUNNEL_TOKEN) ? PORT_FORWARD_TUNNEL : (CHANNEL_PROTOCOLS.find((p) => offered.has(p)) ?? false)),
  });
  return (ws = { lib, server });
}

function serveWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer, t: StreamTarget, options: StreamServeOptions): void {
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  if (t.sub === 'portforward' && offered.includes(PORT_FORWARD_TUNNEL)) req.headers['sec-websocket-protocol'] = TUNNEL_TOKEN;
  const { lib, server } = websockets();
  server.handleUpgrade(req, socket, head, (ws) => {
    if (t.sub === 'portforward' && ws.protocol === PORT_FORWARD_TUNNEL) {
      const session = new SpdySession(lib.createWebSocketStream(ws));
      return servePortForwardSpdy(session, t, options);
    }
    if (t.sub === 'portforward') return servePortForwardWs(ws, t, options);
    runExec(wsChannels(ws), t, options);
  });
}

function wsChannels(ws: WebSocket): ExecChannels {
  const frame = (channel: number, data: Buffer) => Buffer.concat([Buffer.from([channel]), data]);
  return {
    stdout: (d) => ws.send(frame(STDOUT, d)),
    stderr: (d) => ws.send(frame(STDERR, d)),
    onStdin(data, end) {
      ws.on('message', (m: Buffer) => {
        if (m[0] === STDIN) data(m.subarray(1));
        else if (m[0] === CLOSE && m[1] === STDIN) end();
      });
    },
    finish(status) {
      const b = statusBytes(ws.protocol, status);
      if (b) ws.send(frame(ERROR, b));
      ws.close(1000);
    },
    onClose: (cb) => ws.on('close', cb),
  };
}

/** Exec or attach: the local process when exec runs locally, else the clear error. */
function runExec(ch: ExecChannels, t: StreamTarget, options: StreamServeOptions): void {
  const execDir = options.local?.execDir;
  if (t.sub !== 'exec' || execDir === undefined) {
    ch.finish(failure(simulatedMessage(t.sub, t.pod, t.container, options.hint?.(t.sub) ?? '')));
    return;
  }
  const command = t.query.getAll('command');
  if (command.length === 0) {
    ch.finish(failure('you must specify at least one command for the container'));
    return;
  }
  const child = spawn(command[0]!, command.slice(1), {
    cwd: execDir,
    env: { ...process.env, KPLANE_NAMESPACE: t.namespace, KPLANE_POD: t.pod, KPLANE_CONTAINER: t.container ?? '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let spawnError: Error | undefined;
  child.on('error', (err) => (spawnError = err));
  child.stdin.on('error', () => {});
  child.stdout.on('data', (d: Buffer) => ch.stdout(d));
  child.stderr.on('data', (d: Buffer) => ch.stderr(d));
  ch.onStdin(
    (d) => child.stdin.write(d),
    () => child.stdin.end(),
  );
  ch.onClose(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  child.on('close', (code) => {
    if (spawnError) {
      const e = spawnError as NodeJS.ErrnoException;
      const why = e.code === 'ENOENT' ? `exec: "${command[0]}": executable file not found in $PATH` : e.message;
      ch.finish(failure(`error executing command in container: ${why}`));
    } else ch.finish(code === 0 ? SUCCESS : exitStatus(code ?? 137));
  });
}

/** Why a port cannot be forwarded, or where it goes. */
function forwardTo(port: number, t: StreamTarget, options: StreamServeOptions): ForwardTarget | string {
  const to = options.local?.portForward?.get(port);
  if (to) return to;
  return `port ${port} is not forwarded: the pod's containers are simulated by kplane and run no process (${options.hint?.('portforward').replace('POD_PORT', String(port)) ?? `start kplane with --port-forward ${port}=HOST:PORT to forward it to a local address`})`;
}

/** The kubelet's words for a failed forward. */
function forwardError(port: number, t: StreamTarget, why: string): string {
  return `error forwarding port ${port} to pod ${t.namespace}/${t.pod}, uid ${t.uid ?? ''}: ${why}`;
}

/** Connects a client's stream to the local address of a pod port (errors to `error`). */
function pipePort(port: number, data: Duplex, error: (msg: string) => void, done: () => void, t: StreamTarget, options: StreamServeOptions): void {
  const to = forwardTo(port, t, options);
  if (typeof to === 'string') {
    error(forwardError(port, t, to));
    done();
    return;
  }
  const c = connect(to.port, to.host);
  data.pipe(c);
  c.pipe(data);
  c.on('error', (err) => {
    error(forwardError(port, t, `dial tcp ${to.host}:${to.port}: ${err.message}`));
    done();
  });
  data.on('error', () => c.destroy());
  data.on('close', () => c.destroy());
}

/** portforward over websocket (v4.channel.k8s.io): channels 2i (data) and 2i+1 (errors) for the i-th port, each opened with the port number. */
function servePortForwardWs(ws: WebSocket, t: StreamTarget, options: StreamServeOptions): void {
  const ports = t.query.getAll('ports').flatMap((p) => p.split(',')).map((p) => Number(p));
  const frame = (channel: number, data: Buffer | string) => Buffer.concat([Buffer.from([channel]), typeof data === 'string' ? Buffer.from(data) : data]);
  const conns: ({ write(d: Buffer): void; destroy(): void } | undefined)[] = [];
  ports.forEach((port, i) => {
    const portBytes = Buffer.from([port & 0xff, port >> 8]);
    ws.send(frame(2 * i, portBytes));
    const to = forwardTo(port, t, options);
    if (typeof to === 'string') {
      // The error goes out after the opening frames were written, in a TLS record of its own:
      // clients that select() on the socket (the python client) would not see it in the same one.
      ws.send(frame(2 * i + 1, portBytes), () => ws.send(frame(2 * i + 1, forwardError(port, t, to))));
      return;
    }
    ws.send(frame(2 * i + 1, portBytes));
    const c = connect(to.port, to.host);
    conns[i] = c;
    c.on('data', (d: Buffer) => ws.send(frame(2 * i, d)));
    c.on('error', (err) => ws.send(frame(2 * i + 1, forwardError(port, t, `dial tcp ${to.host}:${to.port}: ${err.message}`))));
    c.on('close', () => ws.close(1000));
  });
  ws.on('message', (data: Buffer) => {
    const ch = data[0]!;
    if (ch % 2 === 0) conns[ch / 2]?.write(data.subarray(1));
  });
  ws.on('close', () => conns.forEach((c) => c?.destroy()));
}

/** The protocols a SPDY client offers (X-Stream-Protocol-Version, repeated or comma-separated). */
function offeredProtocols(req: IncomingMessage): string[] {
  const raw = req.headersDistinct['x-stream-protocol-version'] ?? [];
  return raw.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

function serveSpdyUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, t: StreamTarget, options: StreamServeOptions): void {
  const offered = offeredProtocols(req);
  const supported = t.sub === 'portforward' ? [PORT_FORWARD_PROTOCOL] : SPDY_EXEC_PROTOCOLS;
  const protocol = supported.find((p) => offered.includes(p));
  if (!protocol) {
    // kube's handshake: 403 when client and server share no protocol.
    const msg = `unable to upgrade: unable to negotiate protocol: client supports ${JSON.stringify(offered)}, server supports ${JSON.stringify(supported)}`;
    return writeResponse(socket, statusResponse(new ApiError(403, 'Forbidden', msg)));
  }
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
  if (head.length) socket.unshift(head);
  const session = new SpdySession(socket);
  if (t.sub === 'portforward') servePortForwardSpdy(session, t, options);
  else serveExecSpdy(session, t, protocol, options);
}

/** Exec and attach over SPDY: waits for the streams the query asks for, then runs the session. */
function serveExecSpdy(session: SpdySession, t: StreamTarget, protocol: string, options: StreamServeOptions): void {
  const flag = (k: string) => {
    const v = t.query.get(k);
    return v !== null && parseBoolParam(v);
  };
  const tty = flag('tty');
  const expected = new Set(['error']);
  if (flag('stdin')) expected.add('stdin');
  if (flag('stdout')) expected.add('stdout');
  if (flag('stderr') && !tty) expected.add('stderr');
  if (tty && protocol !== 'v2.channel.k8s.io' && protocol !== 'channel.k8s.io') expected.add('resize');
  const streams = new Map<string, SpdyStream>();
  const timer = setTimeout(() => session.close(), STREAM_CREATION_TIMEOUT_MS);
  timer.unref();
  let started = false;
  session.on('stream', (s: SpdyStream) => {
    s.reply();
    const type = s.headers.streamtype ?? '';
    if (started || !expected.has(type) || streams.has(type)) return s.reset();
    streams.set(type, s);
    if (type === 'error' || type === 'stdout' || type === 'stderr') s.resume();
    if (streams.size < expected.size) return;
    started = true;
    clearTimeout(timer);
    runExec(spdyChannels(session, streams, protocol), t, options);
  });
}

function spdyChannels(session: SpdySession, streams: Map<string, SpdyStream>, protocol: string): ExecChannels {
  let closed = false;
  const closers: (() => void)[] = [];
  session.on('close', () => {
    closed = true;
    closers.forEach((c) => c());
  });
  return {
    stdout: (d) => streams.get('stdout')?.write(d),
    stderr: (d) => streams.get('stderr')?.write(d),
    onStdin(data, end) {
      const s = streams.get('stdin');
      if (!s) return;
      s.on('data', data);
      s.on('end', end);
    },
    finish(status) {
      if (closed) return;
      const b = statusBytes(protocol, status);
      const err = streams.get('error');
      if (b) err?.write(b);
      // Each stream's last data and FIN go out before the GOAWAY.
      void Promise.all([...streams.values()].map((s) => new Promise<void>((resolve) => s.end(() => resolve())))).then(() => session.close());
    },
    onClose: (cb) => closers.push(cb),
  };
}

/** port-forward over SPDY: an error and a data stream per connection, paired by requestID. */
function servePortForwardSpdy(session: SpdySession, t: StreamTarget, options: StreamServeOptions): void {
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream; timer: NodeJS.Timeout }>();
  session.on('stream', (s: SpdyStream) => {
    s.reply();
    const type = s.headers.streamtype ?? '';
    const requestId = s.headers.requestid ?? String(type === 'data' ? s.id - 2 : s.id);
    if (type !== 'error' && type !== 'data') return s.reset();
    let p = pairs.get(requestId);
    if (!p) {
      const timer = setTimeout(() => {
        pairs.delete(requestId);
        p?.error?.reset();
        p?.data?.reset();
      }, STREAM_CREATION_TIMEOUT_MS);
      timer.unref();
      p = { timer };
      pairs.set(requestId, p);
    }
    if (p[type]) return s.reset();
    p[type] = s;
    if (type === 'error') s.resume();
    if (!p.error || !p.data) return;
    clearTimeout(p.timer);
    pairs.delete(requestId);
    const { error, data } = p;
    const portText = data.headers.port ?? '';
    const port = Number(portText);
    const done = () => {
      error.end();
      data.end();
    };
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
      error.write(`unable to parse '${portText}' as a port: strconv.ParseUint: parsing "${portText}": invalid syntax`);
      return done();
    }
    pipePort(port, data, (msg) => error.write(msg), done, t, options);
    data.on('end', () => error.end());
  });
}
