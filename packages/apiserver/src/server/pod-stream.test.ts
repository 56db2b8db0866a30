import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket, { createWebSocketStream } from 'ws';
import { createMemoryBackend } from '@kplane/storage';
import { ensurePki, type Pki } from '../auth/pki.js';
import { createApiServer, type ApiServer } from './server.js';
import { TestSpdyClient } from './spdy-client.fixture.js';

const PODS = '/api/v1/namespaces/default/pods';

interface Frames {
  /** Data per channel, concatenated. */
  channels: Map<number, Buffer>;
  protocol: string;
}

/** Opens a websocket, sends `send` frames, collects every frame until the server closes (or `enough` says so). */
function session(url: string, pki: Pki, protocols: string[], send: Buffer[] = [], enough?: (channels: Map<number, Buffer>) => boolean): Promise<Frames> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { ca: pki.ca.cert, cert: pki.admin.cert, key: pki.admin.key });
    const channels = new Map<number, Buffer>();
    ws.on('open', () => {
      for (const f of send) ws.send(f);
    });
    ws.on('message', (data: Buffer) => {
      const ch = data[0]!;
      channels.set(ch, Buffer.concat([channels.get(ch) ?? Buffer.alloc(0), data.subarray(1)]));
      if (enough?.(channels)) ws.close();
    });
    ws.on('close', () => resolve({ channels, protocol: ws.protocol }));
    ws.on('error', reject);
  });
}

describe('pods/exec, attach and portforward over websocket', () => {
  let dir: string;
  let server: ApiServer;
  let pki: Pki;
  let base: string;
  let echo: Server;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kplane-stream-'));
    echo = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const echoPort = (echo.address() as { port: number }).port;
    server = createApiServer({ backend: createMemoryBackend(), localStreams: { execDir: dir, portForward: new Map([[80, { host: '127.0.0.1', port: echoPort }]]) } });
    await server.start();
    pki = await ensurePki(dir);
    const port = await server.listen({ port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert, tokens: new Map([[pki.adminToken, { username: 'admin', groups: ['system:masters'] }]]) });
    base = `wss://127.0.0.1:${port}${PODS}`;
    const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: 'node-a', containers: [{ name: 'app', image: 'nginx' }] } }));
    assert.equal((await server.handle({ method: 'POST', path: PODS, headers: { 'content-type': 'application/json' }, body })).status, 201);
  });
  after(async () => {
    await server.close();
    echo.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a local command over v5.channel.k8s.io: stdin, its close, stdout, stderr and the exit code as a Status', async () => {
    const cmd = ['sh', '-c', 'cat; echo "to err $KPLANE_POD/$KPLANE_CONTAINER" >&2; exit 2'].map((c) => `command=${encodeURIComponent(c)}`).join('&');
    const f = await session(`${base}/web/exec?${cmd}&stdin=true&stdout=true&stderr=true`, pki, ['v5.channel.k8s.io', 'v4.channel.k8s.io'], [Buffer.from('\x00piped'), Buffer.from([255, 0])]);
    assert.equal(f.protocol, 'v5.channel.k8s.io');
    assert.equal(f.channels.get(1)?.toString(), 'piped');
    assert.equal(f.channels.get(2)?.toString(), 'to err web/app\n');
    assert.deepEqual(JSON.parse(f.channels.get(3)!.toString()), {
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: exit status 2',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '2' }] },
    });
    const ok = await session(`${base}/web/exec?command=true&stdout=true`, pki, ['v4.channel.k8s.io']);
    assert.deepEqual(JSON.parse(ok.channels.get(3)!.toString()), { metadata: {}, status: 'Success' });
    const missing = await session(`${base}/web/exec?command=no-such-command-kplane&stdout=true`, pki, ['v4.channel.k8s.io']);
    assert.match(JSON.parse(missing.channels.get(3)!.toString()).message, /exec: "no-such-command-kplane": executable file not found in \$PATH/);
  });

  it('answers attach with a clear error: a Status from v4 on, its text on older protocols', async () => {
    const v4 = await session(`${base}/web/attach?stdout=true`, pki, ['v4.channel.k8s.io']);
    const status = JSON.parse(v4.channels.get(3)!.toString());
    assert.deepEqual([status.status, status.reason, status.code], ['Failure', 'InternalError', 500]);
    assert.equal(status.message, 'Internal error occurred: cannot attach to container "app" in pod "web": its containers are simulated by kplane and run no process');
    const v1 = await session(`${base}/web/attach?stdout=true`, pki, ['channel.k8s.io']);
    assert.equal(v1.protocol, 'channel.k8s.io');
    assert.equal(v1.channels.get(3)!.toString(), status.message);
  });

  it('forwards a mapped pod port over v4.channel.k8s.io (data and error channels open with the port)', async () => {
    const f = await session(`${base}/web/portforward?ports=80`, pki, ['v4.channel.k8s.io'], [Buffer.from('\x00ping')], (c) => (c.get(0)?.length ?? 0) >= 6);
    assert.equal(f.channels.get(0)?.toString('latin1'), '\x50\x00ping');
    assert.deepEqual([...f.channels.get(1)!], [80, 0]);
    const unmapped = await session(`${base}/web/portforward?ports=81`, pki, ['v4.channel.k8s.io'], [], (c) => (c.get(1)?.length ?? 0) > 2);
    assert.match(unmapped.channels.get(1)!.subarray(2).toString(), /port 81 is not forwarded: the pod's containers are simulated by kplane/);
  });

  it('refuses SPDY upgrades and unauthenticated ones with a Status; checks come first', async () => {
    const answer = (path: string, headers: Record<string, string>, auth = true, method = 'POST') =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: Number(new URL(base.replace('wss', 'https')).port), path, method, ca: pki.ca.cert, ...(auth ? { cert: pki.admin.cert, key: pki.admin.key } : {}), headers: { connection: 'Upgrade', ...headers } });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('upgrade', () => reject(new Error('upgraded')));
        req.on('error', reject);
        req.end();
      });
    const spdy = await answer(`${PODS}/web/exec?command=ls`, { upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v9.channel.k8s.io' });
    assert.equal(spdy.status, 403);
    assert.equal(JSON.parse(spdy.body).message, 'unable to upgrade: unable to negotiate protocol: client supports ["v9.channel.k8s.io"], server supports ["v4.channel.k8s.io","v3.channel.k8s.io","v2.channel.k8s.io","channel.k8s.io"]');
    const unauth = await answer(`${PODS}/web/exec?command=ls`, { upgrade: 'websocket' }, false);
    assert.equal(unauth.status, 401);
    const watch = await answer('/api/v1/namespaces/default/configmaps?watch=true', { upgrade: 'websocket' }, true, 'GET');
    assert.equal(watch.status, 400);
    assert.equal(JSON.parse(watch.body).message, 'kplane serves websocket upgrades on pods/exec, pods/attach and pods/portforward only');
    const missing = await answer(`${PODS}/nope/exec?command=ls`, { upgrade: 'websocket' });
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).message, 'pods "nope" not found');
  });

  /** Upgrades to SPDY/3.1 as client-go does; resolves with the 101 answer and a client on the socket. */
  function spdyUpgrade(path: string, protocols: string[]): Promise<{ res: IncomingMessage; client: TestSpdyClient }> {
    return new Promise((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port: Number(new URL(base.replace('wss', 'https')).port),
        path,
        method: 'POST',
        ca: pki.ca.cert,
        cert: pki.admin.cert,
        key: pki.admin.key,
        headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': protocols },
      });
      req.on('upgrade', (res, socket: Socket, head: Buffer) => {
        if (head.length) socket.unshift(head);
        resolve({ res, client: new TestSpdyClient(socket) });
      });
      req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
      req.on('error', reject);
      req.end();
    });
  }

  it('runs exec over SPDY/3.1 (v4.channel.k8s.io): the client opens error, stdin, stdout and stderr streams', async () => {
    const cmd = ['sh', '-c', 'cat; echo oops >&2; exit 5'].map((c) => `command=${encodeURIComponent(c)}`).join('&');
    const { res, client } = await spdyUpgrade(`${PODS}/web/exec?${cmd}&stdin=true&stdout=true&stderr=true`, ['v4.channel.k8s.io', 'v3.channel.k8s.io']);
    assert.equal(res.statusCode, 101);
    assert.equal(res.headers['x-stream-protocol-version'], 'v4.channel.k8s.io');
    const error = client.open({ streamType: 'error' });
    const stdin = client.open({ streamType: 'stdin' });
    const stdout = client.open({ streamType: 'stdout' });
    const stderr = client.open({ streamType: 'stderr' });
    client.send(stdin, 'over spdy', true);
    await client.until(() => client.streams.get(error)!.fin && client.goaway);
    assert.ok([error, stdin, stdout, stderr].every((id) => client.streams.get(id)!.replied));
    assert.equal(client.streams.get(stdout)!.data.toString(), 'over spdy');
    assert.equal(client.streams.get(stderr)!.data.toString(), 'oops\n');
    assert.equal(JSON.parse(client.streams.get(error)!.data.toString()).message, 'command terminated with non-zero exit code: exit status 5');
    client.close();
  });

  it('answers attach over SPDY with the clear error on the error stream (text before v4)', async () => {
    const { client } = await spdyUpgrade(`${PODS}/web/attach?stdout=true`, ['v2.channel.k8s.io']);
    const error = client.open({ streamType: 'error' });
    client.open({ streamType: 'stdout' });
    await client.until(() => client.streams.get(error)!.fin);
    assert.equal(client.streams.get(error)!.data.toString(), 'Internal error occurred: cannot attach to container "app" in pod "web": its containers are simulated by kplane and run no process');
    client.close();
  });

  async function forwardOver(client: TestSpdyClient): Promise<void> {
    const error = client.open({ streamType: 'error', port: '80', requestID: '0' }, true);
    const data = client.open({ streamType: 'data', port: '80', requestID: '0' });
    client.send(data, 'ping', true);
    const badError = client.open({ streamType: 'error', port: '81', requestID: '1' }, true);
    client.open({ streamType: 'data', port: '81', requestID: '1' });
    await client.until(() => client.streams.get(data)!.data.length === 4 && client.streams.get(badError)!.fin);
    assert.equal(client.streams.get(data)!.data.toString(), 'ping');
    assert.match(client.streams.get(badError)!.data.toString(), /^error forwarding port 81 to pod default\/web, uid [0-9a-f-]+: port 81 is not forwarded: the pod's containers are simulated by kplane/);
    await client.until(() => client.streams.get(error)!.fin);
    assert.equal(client.streams.get(error)!.data.length, 0);
  }

  it('forwards ports over SPDY/3.1 (portforward.k8s.io): an error and a data stream per connection, paired by requestID', async () => {
    const { res, client } = await spdyUpgrade(`${PODS}/web/portforward`, ['portforward.k8s.io']);
    assert.equal(res.headers['x-stream-protocol-version'], 'portforward.k8s.io');
    await forwardOver(client);
    client.close();
  });

  it('forwards ports over SPDY tunnelled in a websocket (SPDY/3.1+portforward.k8s.io), as kubectl 1.32 does', async () => {
    // ws's client refuses '/' in a subprotocol name (gorilla's, kubectl's, does not): upgrade by hand.
    const key = randomBytes(16).toString('base64');
    const { res, socket, head } = await new Promise<{ res: IncomingMessage; socket: Socket; head: Buffer }>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port: Number(new URL(base.replace('wss', 'https')).port),
        path: `${PODS}/web/portforward`,
        ca: pki.ca.cert,
        cert: pki.admin.cert,
        key: pki.admin.key,
        headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': key, 'sec-websocket-protocol': 'SPDY/3.1+portforward.k8s.io' },
      });
      req.on('upgrade', (r, sock: Socket, h: Buffer) => resolve({ res: r, socket: sock, head: h }));
      req.on('response', (r) => reject(new Error(`no upgrade: ${r.statusCode}`)));
      req.on('error', reject);
      req.end();
    });
    assert.equal(res.headers['sec-websocket-protocol'], 'SPDY/3.1+portforward.k8s.io');
    const ws = new WebSocket(null as unknown as string, undefined, {});
    (ws as unknown as { _isServer: boolean })._isServer = false;
    (ws as unknown as { setSocket(s: Socket, h: Buffer, o: object): void }).setSocket(socket, head, { maxPayload: 0 });
    const client = new TestSpdyClient(createWebSocketStream(ws));
    await forwardOver(client);
    client.close();
  });
});
