/** The audit of requests the HTTPS server refuses before the handler: 401, 413, 429. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@kplane/api/testing';
import { createMemoryBackend } from '@kplane/storage';
import type { AuditEvent } from '../auth/audit.js';
import { ensurePki } from '../auth/pki.js';
import { holdReadsOf } from './edge.fixture.js';
import { createApiServer } from './server.js';

function send(port: number, ca: string, path: string, opts: { method?: string; body?: Buffer; token?: string }): Promise<{ status: number; auditId?: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'audit-test' };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', ca, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, auditId: res.headers['audit-id'] as string | undefined }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

it('audits requests refused before the handler, with their response code', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-audit-http-'));
  const held = holdReadsOf(createMemoryBackend(), 'slow');
  const events: AuditEvent[] = [];
  const server = createApiServer({ backend: held.backend, audit: { write: (e) => events.push(e) }, limits: { maxReadOnlyInFlight: 1 } });
  try {
    await server.start();
    const pki = await ensurePki(dir);
    const port = await server.listen({ port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert, tokens: new Map([[pki.adminToken, { username: 'admin', groups: ['system:masters'] }]]) });
    const ca = pki.ca.cert;

    // 401: no credentials, and a token nobody knows. No user; the message says what was tried.
    const anonymous = await send(port, ca, '/api/v1/namespaces', {});
    assert.equal(anonymous.status, 401);
    let e = events.at(-1)!;
    assert.deepEqual([e.auditID, e.stage, e.verb, e.user, e.responseStatus, e.objectRef?.resource], [anonymous.auditId, 'ResponseStarted', 'list', {}, { metadata: {}, message: 'Authentication failed, no credentials provided', code: 401 }, 'namespaces']);
    assert.equal((await send(port, ca, '/api/v1/namespaces', { token: 'wrong' })).status, 401);
    assert.equal(events.at(-1)!.responseStatus?.message, 'Authentication failed, attempted: bearer');
    assert.equal(events.at(-1)!.userAgent, 'audit-test');

    // 413: the user, the code and kube's Status.
    const big = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(3 * 1024 * 1024) } }));
    assert.equal((await send(port, ca, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: big, token: pki.adminToken })).status, 413);
    e = events.at(-1)!;
    assert.deepEqual([e.stage, e.verb, e.user.username, e.responseStatus?.code, e.responseStatus?.reason], ['ResponseComplete', 'create', 'admin', 413, 'RequestEntityTooLarge']);

    // 429: one read held in flight, the next one refused.
    const slow = send(port, ca, '/api/v1/namespaces/default/configmaps/slow', { token: pki.adminToken });
    await until('the slow read held', () => held.waiting() === 1, { intervalMs: 0 });
    assert.equal((await send(port, ca, '/api/v1/namespaces/default/configmaps/other', { token: pki.adminToken })).status, 429);
    e = events.at(-1)!;
    assert.deepEqual([e.verb, e.objectRef?.name, e.user.username, e.responseStatus?.code, e.responseStatus?.reason], ['get', 'other', 'admin', 429, 'TooManyRequests']);
    held.release();
    assert.equal((await slow).status, 404);

    // A bad path reaches the handler and is audited with its 404.
    assert.equal((await send(port, ca, '/apis/nope.example.com/v1/things', { token: pki.adminToken })).status, 404);
    assert.equal(events.at(-1)!.responseStatus?.code, 404);
  } finally {
    await server.close();
    await held.backend.close();
    await rm(dir, { recursive: true, force: true });
  }
});
