import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { createServer, type Server } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createMemoryBackend } from '@kplane/storage';
import { ensurePki, type Pki } from '../auth/pki.js';
import { createApiServer, type ApiServer } from './server.js';

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
    const spdy = await answer(`${PODS}/web/exec?command=ls`, { upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' });
    assert.equal(spdy.status, 400);
    assert.match(JSON.parse(spdy.body).message, /kplane serves pods\/exec over websocket \(v5.channel.k8s.io\) only, not SPDY/);
    const unauth = await answer(`${PODS}/web/exec?command=ls`, { upgrade: 'websocket' }, false);
    assert.equal(unauth.status, 401);
    const watch = await answer('/api/v1/namespaces/default/configmaps?watch=true', { upgrade: 'websocket' }, true, 'GET');
    assert.equal(watch.status, 400);
    assert.equal(JSON.parse(watch.body).message, 'kplane serves websocket upgrades on pods/exec, pods/attach and pods/portforward only');
    const missing = await answer(`${PODS}/nope/exec?command=ls`, { upgrade: 'websocket' });
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).message, 'pods "nope" not found');
  });
});
