import { it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { createCa, issueCertificate } from '@kplane/apiserver';
import { createManager } from '../manager/manager.js';
import { startTestKplane } from '@kplane/apiserver/testing';
import { serveManagerMetrics } from './metrics-server.js';

function get(url: string, ca: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

it("serves a manager's metrics to the users the API server allows, through the manager's client", async () => {
  const kp = await startTestKplane();
  const ca = await createCa();
  const serving = await issueCertificate(ca, { subject: 'CN=localhost', usage: 'server', ipAddresses: ['127.0.0.1'] });
  // The API server's side of the delegation: "lecture" is reader, allowed get /metrics.
  const client = kp.clientWith(async (req, next) => {
    if (req.method !== 'POST' || !/reviews$/.test(req.path)) return next(req);
    const body = JSON.parse(Buffer.from(req.body!).toString('utf8'));
    const status = req.path.endsWith('/tokenreviews')
      ? body.spec.token === 'lecture' ? { authenticated: true, user: { username: 'reader', groups: ['system:authenticated'] } } : { authenticated: false }
      : { allowed: body.spec.user === 'reader' && body.spec.nonResourceAttributes.path === '/metrics' && body.spec.nonResourceAttributes.verb === 'get' };
    return { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ ...body, status })) };
  });
  const manager = createManager({ client });
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  const server = await serveManagerMetrics(manager, { port: 0, cert: serving.cert, key: serving.key });
  try {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(await get(`${server.url}/healthz`, ca.pem.cert), { status: 200, body: 'ok' });
    assert.equal((await get(`${server.url}/metrics`, ca.pem.cert, 'bad')).status, 401);
    const anonymous = await get(`${server.url}/metrics`, ca.pem.cert);
    assert.deepEqual([anonymous.status, JSON.parse(anonymous.body).message], [403, 'forbidden: User "system:anonymous" cannot get path "/metrics"']);
    const ok = await get(`${server.url}/metrics`, ca.pem.cert, 'lecture');
    assert.equal(ok.status, 200);
    assert.match(ok.body, /# TYPE workqueue_adds_total counter/);
  } finally {
    await server.close();
    stop.abort();
    await running;
    await kp.close();
  }
});
