import { it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@kplane/api/testing';
import { createMemoryBackend } from '@kplane/storage';
import { ensurePki } from '../auth/pki.js';
import { holdReadsOf } from './edge.fixture.js';
import { withTlsServer } from './tls.fixture.js';
import { splitTarget } from './http.js';
import { createApiServer, type ApiServerOptions } from './server.js';

interface Answer {
  status: number;
  body: string;
}

function send(port: number, ca: string, path: string, opts: { method?: string; body?: Buffer; cert?: string; key?: string; token?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', ca, cert: opts.cert, key: opts.key, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

it('authenticates by client certificate or bearer token, and refuses bodies over 3 MiB', async () => {
  await withTlsServer(async ({ port, ca, pki, dir }) => {
    assert.equal((await send(port, ca, '/api/v1/namespaces', {})).status, 401);
    assert.equal((await send(port, ca, '/api/v1/namespaces', { token: 'wrong' })).status, 401);
    assert.equal((await send(port, ca, '/api/v1/namespaces', { token: pki.adminToken })).status, 200);
    assert.equal((await send(port, ca, '/api/v1/namespaces', { cert: pki.admin.cert, key: pki.admin.key })).status, 200);
    assert.equal((await send(port, ca, '/livez', {})).body, 'ok');
    const big = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(3 * 1024 * 1024) } }));
    const tooLarge = await send(port, ca, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: big, token: pki.adminToken });
    assert.equal(tooLarge.status, 413);
    assert.equal(JSON.parse(tooLarge.body).reason, 'RequestEntityTooLarge');
    assert.equal((await send(port, ca, '/api/v1/namespaces/default/configmaps/big', { token: pki.adminToken })).status, 404);
    // The PKI is reused on the next start: the kubeconfig keeps working.
    const again = await ensurePki(dir);
    assert.equal(again.ca.cert, pki.ca.cert);
    assert.equal(again.adminToken, pki.adminToken);
  });
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The connection was closed by the server after the answer. */
  closed: boolean;
}

/**
 * A plain HTTP/1.1 client over TLS: writes the head and the body as fast as the socket takes
 * them, without waiting for the server, then reads one response.
 */
function rawRequest(port: number, ca: string, head: string, body?: Buffer, chunked = false): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca }, () => {
      socket.write(head);
      if (body) {
        if (chunked) {
          for (let i = 0; i < body.length; i += 64 * 1024) {
            const part = body.subarray(i, i + 64 * 1024);
            socket.write(`${part.length.toString(16)}\r\n`);
            socket.write(part);
            socket.write('\r\n');
          }
          socket.write('0\r\n\r\n');
        } else {
          socket.write(body);
        }
      }
    });
    let buf = Buffer.alloc(0);
    let settled = false;
    const tryParse = (closed: boolean): void => {
      if (settled) return;
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (closed) {
          settled = true;
          reject(new Error(`connection closed without an answer (${buf.length} bytes)`));
        }
        return;
      }
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(lines[0]!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? NaN);
      const rest = buf.subarray(end + 4);
      if (Number.isNaN(length) ? !closed : rest.length < length) return;
      settled = true;
      resolve({ status, headers, body: rest.subarray(0, Number.isNaN(length) ? rest.length : length).toString('utf8'), closed });
      socket.destroy();
    };
    socket.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    socket.on('error', (err) => {
      if (!settled) {
        settled = true;
        reject(err);
      }
    });
  });
}

async function withServer(
  options: Partial<ApiServerOptions>,
  fn: (ctx: { port: number; ca: string; token: string; call: (method: string, path: string, body?: unknown) => Promise<Answer> }) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-http-'));
  const backend = options.backend ?? createMemoryBackend();
  const server = createApiServer({ ...options, backend });
  try {
    await server.start();
    const pki = await ensurePki(dir);
    const port = await server.listen({ port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert, tokens: new Map([[pki.adminToken, { username: 'admin', groups: ['system:masters'] }]]) });
    const call = (method: string, path: string, body?: unknown) =>
      send(port, pki.ca.cert, path, { method, token: pki.adminToken, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)) });
    await fn({ port, ca: pki.ca.cert, token: pki.adminToken, call });
  } finally {
    await server.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const CMS = '/api/v1/namespaces/default/configmaps';

it('splits a request target into its raw path and query, never decoding or normalising the path', () => {
  assert.deepEqual(splitTarget('/api/v1/namespaces/a/configmaps/%2e%2e?x=1&y=%2F'), { path: '/api/v1/namespaces/a/configmaps/%2e%2e', search: 'x=1&y=%2F' });
  assert.deepEqual(splitTarget('/api/./v1/../x'), { path: '/api/./v1/../x', search: '' });
  assert.deepEqual(splitTarget('https://127.0.0.1:6443/api/v1/namespaces?watch=1'), { path: '/api/v1/namespaces', search: 'watch=1' });
  assert.deepEqual(splitTarget('https://127.0.0.1:6443'), { path: '/', search: '' });
  assert.deepEqual(splitTarget('/version#frag'), { path: '/version', search: '' });
});

it('answers a body over 3 MiB with 413 before closing, with and without Content-Length', async () => {
  await withServer({}, async ({ port, ca, token, call }) => {
    // A small body with Expect is served after the 100 Continue.
    const small = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'small' } }));
    const made = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, ca, method: 'POST', path: CMS, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': String(small.length), expect: '100-continue' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('continue', () => req.end(small));
      req.on('error', reject);
    });
    assert.equal(made, 201);
    assert.equal((await call('DELETE', `${CMS}/small`)).status, 200);
    const before = (await call('GET', CMS)).body;
    const big = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(4 * 1024 * 1024) } }));
    for (let i = 0; i < 4; i++) {
      for (const chunked of [false, true]) {
        const framing = chunked ? 'transfer-encoding: chunked' : `content-length: ${big.length}`;
        const head = `POST ${CMS} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`;
        const r = await rawRequest(port, ca, head, big, chunked);
        assert.equal(r.status, 413, `attempt ${i}, chunked ${chunked}`);
        const status = JSON.parse(r.body);
        assert.equal(status.reason, 'RequestEntityTooLarge');
        assert.equal(status.message, 'Request entity too large: limit is 3145728');
        assert.equal(status.code, 413);
      }
    }
    // A client that asks before sending (Expect: 100-continue) gets the 413 instead of a 100.
    const expect = `POST ${CMS} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: ${big.length}\r\nexpect: 100-continue\r\n\r\n`;
    const asked = await rawRequest(port, ca, expect);
    assert.equal(asked.status, 413);
    assert.equal(JSON.parse(asked.body).message, 'Request entity too large: limit is 3145728');
    // Nothing else was stored, and the server serves on.
    assert.equal((await call('GET', `${CMS}/big`)).status, 404);
    assert.equal((await call('GET', CMS)).body, before);
  });
});

it('closes the connection after a 413 for a body beyond what it reads and discards', async () => {
  await withServer({ limits: { maxBodyBytes: 1024, maxDiscardBytes: 1024 } }, async ({ port, ca, token, call }) => {
    const body = Buffer.alloc(1500, 'x');
    const head = (n: number) => `POST ${CMS} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: ${n}\r\n\r\n`;
    // Within the discard bound: read to its end, the connection stays open.
    const drained = await rawRequest(port, ca, head(body.length), body);
    assert.equal(drained.status, 413);
    assert.equal(JSON.parse(drained.body).message, 'Request entity too large: limit is 1024');
    assert.notEqual(drained.headers.connection, 'close');
    // Declared beyond it: answered at once, connection closed.
    const refused = await rawRequest(port, ca, head(1 << 20));
    assert.equal(refused.status, 413);
    assert.equal(refused.headers.connection, 'close');
    assert.equal((await call('GET', CMS)).status, 200);
  });
});

it('bounds requests in flight (read-only and mutating apart, watches not counted) with 429 and Retry-After', async () => {
  const held = holdReadsOf(createMemoryBackend(), 'slow');
  await withServer({ backend: held.backend, limits: { maxReadOnlyInFlight: 1, maxMutatingInFlight: 1 } }, async ({ port, ca, token, call }) => {
    assert.equal((await call('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow' } })).status, 201);
    const before = (await call('GET', CMS)).body;
    // A watch holds no slot.
    const watch = request({ host: '127.0.0.1', port, ca, path: `${CMS}?watch=true`, headers: { authorization: `Bearer ${token}` } });
    const watching = new Promise<number>((resolve, reject) => {
      watch.on('response', (res) => resolve(res.statusCode ?? 0));
      watch.on('error', reject);
    });
    watch.end();
    assert.equal(await watching, 200);
    // One read-only request held in storage takes the only read-only slot.
    const slowGet = call('GET', `${CMS}/slow`);
    await until('the slow read held', () => held.waiting() === 1, { intervalMs: 0 });
    const tooMany = await rawRequest(port, ca, `GET ${CMS} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n\r\n`);
    assert.equal(tooMany.status, 429);
    assert.equal(tooMany.headers['retry-after'], '1');
    assert.deepEqual(JSON.parse(tooMany.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Too many requests, please try again later.',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    });
    // Mutating requests have their own bound: one goes through, and one held takes it.
    assert.equal((await call('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made' } })).status, 201);
    const slowPut = call('PUT', `${CMS}/slow`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow' }, data: { k: 'v' } });
    await until('the slow write held', () => held.waiting() === 2, { intervalMs: 0 });
    const refused = await call('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'refused' } });
    assert.equal(refused.status, 429);
    assert.equal(JSON.parse(refused.body).reason, 'TooManyRequests');
    // An unauthenticated request is refused as such first.
    assert.equal((await send(port, ca, CMS, {})).status, 401);
    held.release();
    assert.equal((await slowGet).status, 200);
    assert.equal((await slowPut).status, 200);
    // The slots are free again; the refused create left nothing behind.
    const after = await call('GET', CMS);
    assert.equal(after.status, 200);
    assert.deepEqual(JSON.parse(after.body).items.map((i: any) => i.metadata.name), ['made', 'slow']);
    assert.notEqual(after.body, before);
    watch.destroy();
  });
});

it('answers CONNECT and upgrade requests (405 on resources, 404 on exec, 401 without credentials) and never normalises paths over HTTPS', async () => {
  await withServer({}, async ({ port, ca, token, call }) => {
    const before = (await call('GET', '/api/v1/namespaces')).body;
    for (const path of [`${CMS}/x`, CMS, '/api/v1/namespaces/default/pods/p/status']) {
      const r = await rawRequest(port, ca, `CONNECT ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n\r\n`);
      assert.equal(r.status, 405, path);
      assert.equal(r.headers.connection, 'close');
      const status = JSON.parse(r.body);
      assert.equal(status.reason, 'MethodNotAllowed');
      assert.equal(status.message, 'the server does not allow this method on the requested resource');
    }
    // pods/exec is served on GET and POST (upgrades) only, as kube-apiserver's connecter: CONNECT is 405.
    const exec = await rawRequest(port, ca, `CONNECT /api/v1/namespaces/default/pods/p/exec HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n\r\n`);
    assert.equal(exec.status, 405);
    const anon = await rawRequest(port, ca, `CONNECT ${CMS} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    assert.equal(anon.status, 401);
    assert.equal(JSON.parse(anon.body).reason, 'Unauthorized');
    // Upgrade requests (kubectl exec over WebSocket) are authenticated and answered too.
    const upgrade = (auth: string) => `GET /api/v1/namespaces/default/pods/p/exec?command=ls HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: x3JJHMbDL1EzLkh9GBhXDw==\r\n${auth}\r\n`;
    assert.equal((await rawRequest(port, ca, upgrade(''))).status, 401);
    assert.equal((await rawRequest(port, ca, upgrade('authorization: Bearer wrong\r\n'))).status, 401);
    assert.equal((await rawRequest(port, ca, upgrade(`authorization: Bearer ${token}\r\n`))).status, 404);
    // Dot segments reach the handler as they were sent.
    const dots = await call('DELETE', `${CMS}/%2e%2e`);
    assert.equal(dots.status, 400);
    assert.equal(JSON.parse(dots.body).message, `Name parameter invalid: "..": may not be '..'`);
    const raw = await rawRequest(port, ca, `DELETE /api/v1/namespaces/default/configmaps/.. HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n\r\n`);
    assert.equal(raw.status, 400);
    const percent = await call('GET', `${CMS}/a%25b`);
    assert.equal(percent.status, 400);
    assert.equal(JSON.parse(percent.body).message, `Name parameter invalid: "a%b": may not contain '%'`);
    assert.equal((await call('DELETE', '/api/v1/watch/namespaces')).status, 405);
    assert.equal((await call('DELETE', '/api/v1/secrets')).status, 405);
    assert.equal((await call('GET', '/api/v1/namespaces')).body, before);
  });
});

it('hands the handler the user the credentials name, never an identity the client claims', async () => {
  const backend = createMemoryBackend();
  const server = createApiServer({ backend, authentication: { tokens: new Map([['t-alice', { username: 'alice', uid: 'a', groups: ['dev'] }]]) } });
  try {
    await server.start();
    const { createCa, issueCertificate } = await import('../auth/pki.js');
    const kplaneCa = await createCa();
    const serving = await issueCertificate(kplaneCa, { subject: 'CN=kplane-apiserver', usage: 'server', ipAddresses: ['127.0.0.1'] });
    const carol = await issueCertificate(kplaneCa, { subject: 'CN=carol, O=qa, O=ops', usage: 'client' });
    const stranger = await issueCertificate(await createCa('elsewhere'), { subject: 'CN=mallory, O=system:masters', usage: 'client' });
    const port = await server.listen({ port: 0, cert: serving.cert, key: serving.key, clientCa: kplaneCa.pem.cert });
    const ca = kplaneCa.pem.cert;
    const whoami = async (opts: Parameters<typeof send>[3], headers: Record<string, string> = {}) => {
      const r = await send(port, ca, '/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', body: Buffer.from(JSON.stringify({ metadata: {}, ...headers })), ...opts });
      return { status: r.status, user: r.status === 201 ? JSON.parse(r.body).status.userInfo : JSON.parse(r.body) };
    };
    assert.deepEqual((await whoami({ cert: carol.cert, key: carol.key })).user, { username: 'carol', groups: ['qa', 'ops', 'system:authenticated'] });
    assert.deepEqual((await whoami({ token: 't-alice' })).user, { username: 'alice', uid: 'a', groups: ['dev', 'system:authenticated'] });
    // A certificate from another CA is an invalid credential: 401, even on a public path.
    assert.equal((await whoami({ cert: stranger.cert, key: stranger.key })).status, 401);
    assert.equal((await send(port, ca, '/healthz', { cert: stranger.cert, key: stranger.key })).status, 401);
    assert.equal((await send(port, ca, '/healthz', {})).status, 200);
    // A body naming a user changes nothing.
    const claimed = await send(port, ca, '/apis/authentication.k8s.io/v1/selfsubjectreviews', { method: 'POST', body: Buffer.from('{"status":{"userInfo":{"username":"root"}}}'), token: 't-alice' });
    assert.equal(JSON.parse(claimed.body).status.userInfo.username, 'alice');
  } finally {
    await server.close();
    await backend.close();
  }
});
