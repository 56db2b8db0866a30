/**
 * pods/exec, pods/attach and pods/portforward: the streaming subresources, served on protocol
 * upgrades. The request is first routed, authorised and checked by the handler (as a non-upgrade
 * request it would get 400 "Upgrade request required"); then the websocket is opened with the
 * channel protocol clients offer (v5.channel.k8s.io down to channel.k8s.io). Simulated containers
 * run no process, so by default the answer is a clear Status on the error channel; with
 * `LocalStreams` exec runs the command as a local process and portforward dials a local address.
 * SPDY upgrades (kubectl's fallback, and its port-forward tunnel) are refused with a Status.
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { KubeObject, RawRequest, RawResponse } from '@kplane/api';
import { ApiError, badRequest } from '@kplane/api';
import type { Store } from '../registry/store.js';
import { logContainer } from './pod-log.js';

/** The subresources of pods served on upgrades. */
export const STREAM_SUBRESOURCES = ['exec', 'attach', 'portforward'];

const UPGRADE_REQUIRED = 'Upgrade request required';

/** 400 for a streaming subresource asked without an upgrade, as kube-apiserver answers it. */
export function upgradeRequired(): ApiError {
  return badRequest(UPGRADE_REQUIRED);
}

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

/**
 * Checks a streaming request before its upgrade, as kube-apiserver's ExecLocation,
 * AttachLocation and PortForwardLocation do (the pod exists, the container is valid, the pod has
 * a node), then throws `upgradeRequired`: the upgrade path takes that answer as its go-ahead.
 */
export async function checkStreamTarget(pods: Store, namespace: string, name: string, sub: string, q: Record<string, string>): Promise<never> {
  const pod = (await pods.get(namespace, name)) as KubeObject & { spec?: { nodeName?: string; containers?: { name: string }[] } };
  if (sub !== 'portforward') logContainer(pod, q.container);
  if (!pod.spec?.nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  throw upgradeRequired();
}

/** The websocket subprotocols of exec and attach, newest first. */
const CHANNEL_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const CLOSE = 255;

function writeResponse(socket: Duplex, r: RawResponse): void {
  const body = Buffer.from(r.body ?? []);
  let head = `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}\r\n`;
  for (const [k, v] of Object.entries(r.headers)) if (k !== 'content-length' && k !== 'connection' && k !== 'transfer-encoding') head += `${k}: ${v}\r\n`;
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
}

function statusResponse(err: ApiError): RawResponse {
  return { status: err.code, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(err.toStatus())) };
}

function failure(message: string): object {
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

/** What the path of an upgrade names. */
function target(path: string): { namespace: string; pod: string; sub: string } | undefined {
  const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)$/.exec(path);
  if (!m) return undefined;
  return { namespace: decodeURIComponent(m[1]!), pod: decodeURIComponent(m[2]!), sub: m[3]! };
}

/** The clear error of a simulated container. */
export function simulatedMessage(sub: string, pod: string, container: string | undefined, hint: string): string {
  const what = sub === 'portforward' ? `pod "${pod}"` : `container "${container ?? ''}" in pod "${pod}"`;
  const verb = sub === 'exec' ? 'exec a command in' : sub === 'attach' ? 'attach to' : 'forward ports to';
  return `cannot ${verb} ${what}: its containers are simulated by kplane and run no process${hint ? ` (${hint})` : ''}`;
}

/** Options of createStreamUpgrade. */
export interface StreamUpgradeOptions {
  /** The API handler: routes, authorises and checks the request before its upgrade. */
  handler: (req: RawRequest) => Promise<RawResponse>;
  /** The pods store (the container a request means, when it names none). */
  pods: () => Store | undefined;
  local?: LocalStreams;
}

/**
 * The upgrade handler of the HTTPS server: serves pods/exec, attach and portforward over
 * websocket; any other upgrade request is answered as an ordinary request, on the raw socket.
 */
export function createStreamUpgrade(options: StreamUpgradeOptions): (raw: RawRequest, req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered) => CHANNEL_PROTOCOLS.find((p) => offered.has(p)) ?? false,
  });
  const local = options.local ?? {};
  return (raw, req, socket, head) => {
    void (async () => {
      const t = target(raw.path);
      const done = new AbortController();
      const pre = await options.handler({ ...raw, signal: done.signal });
      done.abort();
      if (pre.stream) {
        // A watch or a followed log asked over websocket: kube-apiserver serves those, kplane does not.
        await pre.stream[Symbol.asyncIterator]().return?.();
        return writeResponse(socket, statusResponse(badRequest('kplane serves websocket upgrades on pods/exec, pods/attach and pods/portforward only')));
      }
      const go = t && pre.status === 400 && JSON.parse(Buffer.from(pre.body ?? []).toString('utf8')).message === UPGRADE_REQUIRED;
      if (!go || !t) return writeResponse(socket, pre);
      const q = new URLSearchParams(req.url?.split('?')[1] ?? '');
      const pods = options.pods();
      const container = t.sub === 'portforward' || !pods ? undefined : logContainer((await pods.get(t.namespace, t.pod)) as KubeObject, q.get('container') ?? undefined);
      const websocket = (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
      const canServe = t.sub === 'exec' ? local.execDir !== undefined : t.sub === 'portforward' ? (local.portForward?.size ?? 0) > 0 : false;
      if (!websocket) {
        const msg = canServe
          ? t.sub === 'portforward'
            ? 'kplane forwards ports with the v4.channel.k8s.io websocket protocol only, not SPDY'
            : `kplane serves pods/${t.sub} over websocket (v5.channel.k8s.io) only, not SPDY`
          : simulatedMessage(t.sub, t.pod, container, hintFor(t.sub));
        return writeResponse(socket, statusResponse(badRequest(msg)));
      }
      if (t.sub === 'portforward' && (req.headers['sec-websocket-protocol'] ?? '').includes('SPDY/3.1+portforward.k8s.io')) {
        // kubectl's port-forward tunnels SPDY in the websocket: refuse it as a failed upgrade.
        const msg = canServe ? 'kplane forwards ports with the v4.channel.k8s.io websocket protocol only, not SPDY' : simulatedMessage(t.sub, t.pod, container, hintFor(t.sub));
        return writeResponse(socket, statusResponse(badRequest(msg)));
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (t.sub === 'portforward') return servePortForward(ws, q, local.portForward);
        if (t.sub === 'exec' && local.execDir !== undefined) return serveLocalExec(ws, q, local.execDir, t, container ?? '');
        sendError(ws, failure(simulatedMessage(t.sub, t.pod, container, hintFor(t.sub))));
        ws.close(1000);
      });
    })().catch((err) => {
      if (!socket.destroyed) writeResponse(socket, statusResponse(err instanceof ApiError ? err : new ApiError(500, 'InternalError', `Internal error occurred: ${String(err)}`)));
    });
  };

  function hintFor(sub: string): string {
    if (sub === 'exec') return local.execDir === undefined ? 'start kplane with --exec-local to run exec commands as local processes' : '';
    if (sub === 'portforward') return 'start kplane with --port-forward POD_PORT=HOST:PORT to forward pod ports to local addresses';
    return '';
  }
}

function frame(channel: number, data: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from([channel]), typeof data === 'string' ? Buffer.from(data) : data]);
}

/** Writes a Status on the error channel: JSON from v4 on, its message as text before. */
function sendError(ws: WebSocket, status: object): void {
  const v4 = ws.protocol === 'v4.channel.k8s.io' || ws.protocol === 'v5.channel.k8s.io';
  const msg = (status as { message?: string }).message ?? '';
  if (v4) ws.send(frame(ERROR, JSON.stringify(status)));
  else if ((status as { status?: string }).status !== 'Success') ws.send(frame(ERROR, msg));
}

function serveLocalExec(ws: WebSocket, q: URLSearchParams, dir: string, t: { namespace: string; pod: string }, container: string): void {
  const command = q.getAll('command');
  if (command.length === 0) {
    sendError(ws, failure('you must specify at least one command for the container'));
    ws.close(1000);
    return;
  }
  const child = spawn(command[0]!, command.slice(1), {
    cwd: dir,
    env: { ...process.env, KPLANE_NAMESPACE: t.namespace, KPLANE_POD: t.pod, KPLANE_CONTAINER: container },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let spawnError: Error | undefined;
  child.on('error', (err) => (spawnError = err));
  child.stdin.on('error', () => {});
  child.stdout.on('data', (d: Buffer) => ws.send(frame(STDOUT, d)));
  child.stderr.on('data', (d: Buffer) => ws.send(frame(STDERR, d)));
  ws.on('message', (data: Buffer) => {
    const ch = data[0];
    if (ch === STDIN) child.stdin.write(data.subarray(1));
    else if (ch === CLOSE && data[1] === STDIN) child.stdin.end();
  });
  ws.on('close', () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  child.on('close', (code) => {
    if (spawnError) {
      const e = spawnError as NodeJS.ErrnoException;
      const why = e.code === 'ENOENT' ? `exec: "${command[0]}": executable file not found in $PATH` : e.message;
      sendError(ws, failure(`error executing command in container: ${why}`));
    } else sendError(ws, code === 0 ? SUCCESS : exitStatus(code ?? 137));
    ws.close(1000);
  });
}

/** portforward over websocket (v4.channel.k8s.io): channels 2i (data) and 2i+1 (errors) for the i-th port, each opened with the port number. */
function servePortForward(ws: WebSocket, q: URLSearchParams, map: ReadonlyMap<number, ForwardTarget> | undefined): void {
  const ports = q.getAll('ports').flatMap((p) => p.split(',')).map((p) => Number(p));
  const conns: (Socket | undefined)[] = [];
  ports.forEach((port, i) => {
    const portBytes = Buffer.from([port & 0xff, port >> 8]);
    ws.send(frame(2 * i, portBytes));
    ws.send(frame(2 * i + 1, portBytes));
    const to = map?.get(port);
    if (!to) {
      ws.send(frame(2 * i + 1, `port ${port} is not forwarded: the pod's containers are simulated by kplane and run no process (start kplane with --port-forward ${port}=HOST:PORT to forward it to a local address)`));
      return;
    }
    const c = connect(to.port, to.host);
    conns[i] = c;
    c.on('data', (d: Buffer) => ws.send(frame(2 * i, d)));
    c.on('error', (err) => ws.send(frame(2 * i + 1, `error forwarding port ${port} to ${to.host}:${to.port}: ${err.message}`)));
    c.on('close', () => ws.close(1000));
  });
  ws.on('message', (data: Buffer) => {
    const ch = data[0]!;
    if (ch % 2 === 0) conns[ch / 2]?.write(data.subarray(1));
  });
  ws.on('close', () => conns.forEach((c) => c?.destroy()));
}
