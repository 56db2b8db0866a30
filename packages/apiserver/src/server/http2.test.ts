import { it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { connect, type ClientHttp2Session } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { withTlsServer } from './tls.fixture.js';

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** One request over an HTTP/2 session, read to its end. */
function h2(session: ClientHttp2Session, token: string, path: string, method = 'GET', body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path, authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    let status = 0;
    let headers: Record<string, unknown> = {};
    let text = '';
    stream.on('response', (h) => {
      status = Number(h[':status']);
      headers = h;
    });
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => (text += c));
    stream.on('end', () => resolve({ status, headers, body: text }));
    stream.on('error', reject);
    stream.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** One request over HTTP/1.1 (node:https offers no ALPN). */
function h1(port: number, ca: string, token: string, path: string): Promise<Answer & { httpVersion: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, httpVersion: res.httpVersion }));
    });
    req.on('error', reject);
    req.end();
  });
}

const withServer = withTlsServer;

it('negotiates h2 or http/1.1 by ALPN, and HTTP/1.1 without ALPN', async () => {
  await withServer(async ({ port, ca }) => {
    const alpn = (protocols: string[]) =>
      new Promise<string | false>((resolve, reject) => {
        const s = tlsConnect({ host: '127.0.0.1', port, ca, ALPNProtocols: protocols }, () => {
          resolve(s.alpnProtocol ?? false);
          s.destroy();
        });
        s.on('error', reject);
      });
    assert.equal(await alpn(['h2', 'http/1.1']), 'h2');
    assert.equal(await alpn(['http/1.1']), 'http/1.1');
  });
});

it('serves create, get, list and watch over HTTP/2 and HTTP/1.1 alike, many watches on one connection', async () => {
  await withServer(async ({ port, ca, token }) => {
    const session = connect(`https://127.0.0.1:${port}`, { ca });
    try {
      const path = '/api/v1/namespaces/default/configmaps';
      const created = await h2(session, token, path, 'POST', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: '1' } });
      assert.equal(created.status, 201, created.body);
      // No connection-specific header field reaches an HTTP/2 client.
      assert.equal(created.headers.connection, undefined);
      const got = await h2(session, token, `${path}/one`);
      assert.equal(got.status, 200);
      assert.equal(JSON.parse(got.body).data.a, '1');
      const listed = JSON.parse((await h2(session, token, path)).body) as { items: { metadata: { name: string } }[]; metadata: { resourceVersion: string } };
      assert.deepEqual(listed.items.map((i) => i.metadata.name), ['one']);
      assert.equal((await h2(session, token, `${path}/missing`)).status, 404);
      assert.equal((await h2(session, token, path.replace('default', 'x'), 'GET').then((a) => a.status)), 200);

      const viaH1 = await h1(port, ca, token, `${path}/one`);
      assert.equal(viaH1.httpVersion, '1.1');
      assert.equal(viaH1.status, 200);
      assert.equal(viaH1.body, got.body);

      // 50 watches share the session; each sees the next change.
      const rv = listed.metadata.resourceVersion;
      const watches = Array.from({ length: 50 }, () => {
        const stream = session.request({ ':path': `${path}?watch=1&resourceVersion=${rv}`, authorization: `Bearer ${token}` });
        stream.setEncoding('utf8');
        const first = new Promise<{ type: string; object: { metadata: { name: string } } }>((resolve, reject) => {
          let text = '';
          stream.on('data', (c: string) => {
            text += c;
            const nl = text.indexOf('\n');
            if (nl >= 0) resolve(JSON.parse(text.slice(0, nl)));
          });
          stream.on('error', reject);
        });
        return { stream, first };
      });
      await Promise.all(watches.map((w) => new Promise((r) => w.stream.once('response', r))));
      assert.equal((await h2(session, token, path, 'POST', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' } })).status, 201);
      for (const w of watches) {
        const e = await w.first;
        assert.equal(e.type, 'ADDED');
        assert.equal(e.object.metadata.name, 'two');
        w.stream.close();
      }
      // A watch over HTTP/1.1 on the same server.
      const h1Watch = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port, ca, path: `${path}?watch=1&resourceVersion=${rv}`, headers: { authorization: `Bearer ${token}` } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            text += c;
            const nl = text.indexOf('\n');
            if (nl >= 0) {
              resolve(text.slice(0, nl));
              req.destroy();
            }
          });
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(JSON.parse(h1Watch).object.metadata.name, 'two');
    } finally {
      session.close();
    }
  });
});

it('closes open HTTP/2 sessions when the server closes', async () => {
  let session: ClientHttp2Session | undefined;
  await withServer(async ({ port, ca, token }) => {
    session = connect(`https://127.0.0.1:${port}`, { ca });
    const stream = session.request({ ':path': '/api/v1/namespaces/default/configmaps?watch=1', authorization: `Bearer ${token}` });
    await new Promise((r) => stream.once('response', r));
  });
  // server.close() returned with the session still open on the client side: it was ended.
  await new Promise<void>((resolve) => (session!.closed || session!.destroyed ? resolve() : session!.once('close', () => resolve())));
  assert.ok(session!.closed || session!.destroyed);
});
