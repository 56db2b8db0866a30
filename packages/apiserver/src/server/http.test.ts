import { it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryBackend } from '@kplane/storage';
import { ensurePki } from '../auth/pki.js';
import { createApiServer } from './server.js';

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
  const dir = await mkdtemp(join(tmpdir(), 'kplane-http-'));
  const backend = createMemoryBackend();
  const server = createApiServer({ backend });
  try {
    await server.start();
    const pki = await ensurePki(dir);
    const port = await server.listen({ port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert, tokens: new Map([[pki.adminToken, 'admin']]) });
    const ca = pki.ca.cert;
    assert.equal((await send(port, ca, '/api/v1/namespaces', {})).status, 401);
    assert.equal((await send(port, ca, '/api/v1/namespaces', { token: 'wrong' })).status, 401);
    assert.equal((await send(port, ca, '/api/v1/namespaces', { token: pki.adminToken })).status, 200);
    assert.equal((await send(port, ca, '/api/v1/namespaces', { cert: pki.admin.cert, key: pki.admin.key })).status, 200);
    assert.equal((await send(port, ca, '/livez', {})).body, 'ok');
    const big = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(3 * 1024 * 1024) } }));
    const tooLarge = await send(port, ca, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: big, token: pki.adminToken });
    assert.equal(tooLarge.status, 413);
    assert.equal(JSON.parse(tooLarge.body).reason, 'RequestEntityTooLarge');
    // The PKI is reused on the next start: the kubeconfig keeps working.
    const again = await ensurePki(dir);
    assert.equal(again.ca.cert, pki.ca.cert);
    assert.equal(again.adminToken, pki.adminToken);
  } finally {
    await server.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
});
