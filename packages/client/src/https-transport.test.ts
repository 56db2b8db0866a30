import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, notFound } from '@kplane/api';
import { until } from '@kplane/api/testing';
import { createHttpsTransport, type HttpsTransport } from './https-transport.js';
import { createClient } from './client.js';
import { createTestPki, type TestPki } from './tls-fixture.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  peerCN?: string;
  remotePort?: number;
}

let pki: TestPki;
let server: https.Server;
let base: string;
const seen: Seen[] = [];
/** Called with the response of /watch requests so a test can drive the stream. */
let onWatch: ((res: ServerResponse, req: IncomingMessage) => void) | undefined;
const transports: HttpsTransport[] = [];
const track = (t: HttpsTransport) => (transports.push(t), t);

before(async () => {
  pki = await createTestPki();
  server = https.createServer({ key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const sock = req.socket as TLSSocket;
      const peer = sock.getPeerCertificate();
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(parts).toString('utf8'),
        peerCN: peer && peer.subject ? String(peer.subject.CN) : undefined,
        remotePort: sock.remotePort,
      });
      const url = new URL(req.url ?? '/', 'https://x');
      if (url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        onWatch?.(res, req);
        return;
      }
      if (url.pathname.endsWith('/slow')) return; // never answers
      if (url.pathname.endsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(notFound('', 'configmaps', 'missing').toStatus()));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-multi': ['a', 'b'] });
      res.end(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' }, echo: Buffer.concat(parts).toString('utf8') }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const t of transports) t.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('verifies the server against the given CA and presents the client certificate', async () => {
  const t = track(createHttpsTransport({ server: base, ca: pki.caCert, cert: pki.clientCert, key: Buffer.from(pki.clientKey) }));
  const res = await t({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/x', query: { a: 'b c', d: 'é' }, headers: { accept: 'application/json' } });
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'application/json');
  assert.equal(res.headers['x-multi'], 'a, b');
  assert.ok(res.body && !res.stream);
  assert.equal(JSON.parse(Buffer.from(res.body!).toString()).metadata.name, 'x');
  const s = seen.at(-1)!;
  assert.equal(s.url, '/api/v1/namespaces/default/configmaps/x?a=b+c&d=%C3%A9');
  assert.equal(s.peerCN, 'admin');
});

test('rejects an untrusted server certificate unless insecureSkipTLSVerify is set', async () => {
  const strict = track(createHttpsTransport({ server: base }));
  await assert.rejects(strict({ method: 'GET', path: '/api' }), (e: NodeJS.ErrnoException) => typeof e.code === 'string' && /CERT|SIGNATURE|ISSUER/.test(e.code));
  const loose = track(createHttpsTransport({ server: base, insecureSkipTLSVerify: true }));
  assert.equal((await loose({ method: 'GET', path: '/api' })).status, 200);
});

test('sends bearer tokens, basic auth, bodies and honours a base path; reuses connections', async () => {
  const t = track(createHttpsTransport({ server: `${base}/prefix/`, ca: pki.caCert, token: 'sekret', userAgent: 'kplane-test' }));
  await t({ method: 'POST', path: '/api/v1/x', body: new TextEncoder().encode('{"a":1}'), headers: { 'content-type': 'application/json' } });
  const first = seen.at(-1)!;
  assert.equal(first.method, 'POST');
  assert.equal(first.url, '/prefix/api/v1/x');
  assert.equal(first.body, '{"a":1}');
  assert.equal(first.headers['authorization'], 'Bearer sekret');
  assert.equal(first.headers['content-length'], '7');
  assert.equal(first.headers['user-agent'], 'kplane-test');
  await t({ method: 'GET', path: '/api' });
  assert.equal(seen.at(-1)!.remotePort, first.remotePort, 'keep-alive reuses the socket');

  const basic = track(createHttpsTransport({ server: base, ca: pki.caCert, username: 'u', password: 'p' }));
  await basic({ method: 'GET', path: '/api' });
  assert.equal(seen.at(-1)!.headers['authorization'], `Basic ${Buffer.from('u:p').toString('base64')}`);
});

test('tokenFile is re-read once its cached value is a minute old (injected clock)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kplane-token-'));
  try {
    const file = join(dir, 'token');
    writeFileSync(file, 'one\n');
    let now = 1_000_000;
    const t = track(createHttpsTransport({ server: base, ca: pki.caCert, tokenFile: file, now: () => now }));
    await t({ method: 'GET', path: '/api' });
    assert.equal(seen.at(-1)!.headers['authorization'], 'Bearer one');
    writeFileSync(file, 'two\n');
    now += 59_000;
    await t({ method: 'GET', path: '/api' });
    assert.equal(seen.at(-1)!.headers['authorization'], 'Bearer one');
    now += 1_000;
    await t({ method: 'GET', path: '/api' });
    assert.equal(seen.at(-1)!.headers['authorization'], 'Bearer two');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('aborting a pending buffered request rejects with AbortError', async () => {
  const t = track(createHttpsTransport({ server: base, ca: pki.caCert }));
  const ctl = new AbortController();
  const p = t({ method: 'GET', path: '/slow', signal: ctl.signal });
  await until('the server to receive /slow', () => seen.some((s) => s.url === '/slow'), { intervalMs: 5 });
  ctl.abort();
  await assert.rejects(p, { name: 'AbortError' });
  await assert.rejects(t({ method: 'GET', path: '/api', signal: AbortSignal.abort() }), { name: 'AbortError' });
});

test('client over HTTPS: Status errors map to ApiError', async () => {
  const client = createClient({ transport: track(createHttpsTransport({ server: base, ca: pki.caCert })) });
  const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true });
  assert.equal((await cms.get('x')).metadata?.name, 'x');
  await assert.rejects(cms.get('missing'), (e: unknown) => e instanceof ApiError && e.code === 404 && e.message === 'configmaps "missing" not found');
});

test('watch over HTTPS streams events as they are written and abort closes the connection', async () => {
  let serverRes: ServerResponse | undefined;
  let closed: Promise<void> | undefined;
  const opened = new Promise<void>((resolve) => {
    onWatch = (res) => {
      serverRes = res;
      closed = new Promise((r) => res.on('close', () => r()));
      const e = JSON.stringify({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'a' } } });
      res.write(e.slice(0, 7)); // a frame split across writes
      setTimeout(() => res.write(e.slice(7) + '\n'), 10);
      resolve();
    };
  });
  const client = createClient({ transport: track(createHttpsTransport({ server: base, ca: pki.caCert })) });
  const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true });
  const ctl = new AbortController();
  const got: string[] = [];
  for await (const ev of cms.watch({ namespace: 'n', signal: ctl.signal, resourceVersion: '0' })) {
    got.push(`${ev.type}:${ev.object.metadata?.name}`);
    if (got.length === 1) {
      await opened;
      // The response is still open: a second event arrives only because we stream.
      serverRes!.write(JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'a' } } }) + '\n');
    } else {
      ctl.abort();
    }
  }
  assert.deepEqual(got, ['ADDED:a', 'DELETED:a']);
  await closed; // the server sees the connection go away
  assert.equal(seen.at(-1)!.url, '/api/v1/namespaces/n/configmaps?resourceVersion=0&watch=true');
  onWatch = undefined;
});

test('breaking out of a watch over HTTPS closes the connection', async () => {
  let closed: Promise<void> | undefined;
  onWatch = (res) => {
    closed = new Promise((r) => res.on('close', () => r()));
    res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
  };
  const client = createClient({ transport: track(createHttpsTransport({ server: base, ca: pki.caCert })) });
  const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true });
  for await (const _ev of cms.watch()) break;
  await closed;
  onWatch = undefined;
});
