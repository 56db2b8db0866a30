/**
 * The safety reproductions over HTTPS against a real `kplane up` process: paths are sent byte
 * for byte as written (dot segments and encoded slashes included), bodies too large for the
 * server, CONNECT, and size limits of ConfigMap data and annotations. After each request the
 * canaries must be unchanged and /readyz must answer 200.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request, Agent } from 'node:https';
import { connect } from 'node:tls';
import type { RawRequest, RawResponse } from '@kplane/api';
import { loadKubeconfig } from '@kplane/client';
import { assertAnswer, checkCanaries, plantCanaries, type Answer, type CanarySnapshot, type ExpectedAnswer } from '@kplane/apiserver/testing';
import { removeDir, startKplane, tempDir, type KplaneProcess } from './harness.js';

let kp: KplaneProcess;
let dir: string;
let tls: { ca: string; cert: string; key: string; host: string; port: number };
let agent: Agent;
let canaries: CanarySnapshot;

const text = (v: Uint8Array | string | undefined): string => (v === undefined ? '' : typeof v === 'string' ? v : Buffer.from(v).toString('utf8'));

/** One HTTPS request with the path exactly as given; `chunks` are written one by one (no Content-Length unless given). */
function https(method: string, path: string, options: { body?: Buffer; chunked?: boolean; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json', ...options.headers };
    if (options.body && !options.chunked) headers['content-length'] = String(options.body.length);
    const req = request({ host: tls.host, port: tls.port, method, path, headers, ca: tls.ca, cert: tls.cert, key: tls.key, agent });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const t = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(t);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body, text: t, headers: res.headers as Record<string, string> });
      });
      res.on('error', reject);
    });
    // A server that answers before reading the whole body may close the connection while the
    // rest is still being written: that is fine once the answer arrived, a failure before.
    req.on('error', (err) => {
      if (!answered) reject(new Error(`no answer to ${method} ${path}: ${err.message}`));
    });
    if (options.body && options.chunked) {
      const step = 64 * 1024;
      const write = (at: number): void => {
        if (at >= options.body!.length || answered) {
          req.end();
          return;
        }
        if (req.write(options.body!.subarray(at, at + step))) setImmediate(() => write(at + step));
        else req.once('drain', () => write(at + step));
      };
      write(0);
    } else {
      req.end(options.body);
    }
  });
}

/** The canaries' view of the server: a handler over HTTPS. */
async function handle(req: RawRequest): Promise<RawResponse> {
  const qs = new URLSearchParams(req.query ?? {}).toString();
  const a = await https(req.method, req.path + (qs ? `?${qs}` : ''), { body: req.body ? Buffer.from(req.body) : undefined, headers: req.headers });
  return { status: a.status, headers: a.headers, body: Buffer.from(a.text) };
}

async function replay(method: string, path: string, expected: ExpectedAnswer, options: { body?: Buffer; chunked?: boolean; headers?: Record<string, string> } = {}): Promise<Answer> {
  const answer = await https(method, path, options);
  assertAnswer(answer, expected, `${method} ${path}`);
  assert.deepEqual(await checkCanaries(handle, canaries), [], `after ${method} ${path}`);
  return answer;
}

before(async () => {
  dir = await tempDir();
  kp = await startKplane(dir);
  const k = loadKubeconfig(kp.kubeconfig);
  const url = new URL(k.server);
  tls = { ca: text(k.transportOptions.ca), cert: text(k.transportOptions.cert), key: text(k.transportOptions.key), host: url.hostname, port: Number(url.port) };
  agent = new Agent({ keepAlive: false });
});

/** Canary namespaces of the current test: fresh canaries for each test, so one failure does not hide the next. */
let A = '';
let B = '';
let planted = 0;
beforeEach(async () => {
  // No Deployment among the canaries: the running controllers would update it.
  canaries = await plantCanaries(handle, { workloads: false, suffix: `-${++planted}` });
  [A, B] = canaries.namespaces as [string, string];
});

after(async () => {
  agent?.destroy();
  await kp?.stop();
  await removeDir(dir);
});

const badName = (name: string, why: string): ExpectedAnswer => ({ code: 400, reason: 'BadRequest', message: `Name parameter invalid: ${JSON.stringify(name)}: ${why}` });
const NO_ROUTE: ExpectedAnswer = { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' };
const NO_METHOD: ExpectedAnswer = { code: 405, reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };
const json = (o: unknown) => Buffer.from(JSON.stringify(o));

describe('paths sent as written over HTTPS', () => {
  it('DELETE /api/v1/namespaces/<ns>/configmaps/%2e%2e → 400, namespace canary-a kept', async () => {
    await replay('DELETE', `/api/v1/namespaces/${A}/configmaps/%2e%2e`, badName('..', "may not be '..'"));
  });
  it('DELETE /api/v1/namespaces/<ns>/secrets/%2e%2e/%2e%2e → 404', async () => {
    await replay('DELETE', `/api/v1/namespaces/${B}/secrets/%2e%2e/%2e%2e`, NO_ROUTE);
  });
  it('a name "." → 400', async () => {
    await replay('DELETE', `/api/v1/namespaces/${A}/configmaps/%2e`, badName('.', "may not be '.'"));
  });
  it('PATCH /api/v1/namespaces/<ns>/configmaps/%2e%2e → 400', async () => {
    await replay('PATCH', `/api/v1/namespaces/${A}/configmaps/%2e%2e`, badName('..', "may not be '..'"), { body: json({ metadata: { labels: { hit: 'yes' } } }), headers: { 'content-type': 'application/merge-patch+json' } });
  });
  it('a Secret is never read through a configmaps path', async () => {
    for (const path of [`/api/v1/namespaces/${A}/configmaps/..%2Fsecrets%2Fcanary-secret-${planted}`, `/api/v1/namespaces/${A}/configmaps/%2e%2e/secrets/canary-secret-${planted}`, `/api/v1/namespaces/${A}/configmaps/../secrets/canary-secret-${planted}`]) {
      const a = await replay('GET', path, NO_ROUTE);
      assert.doesNotMatch(a.text, /czNjcmV0/, 'the secret data must not leak');
    }
  });
  it('DELETE /api/v1/secrets and DELETE on watch paths → 405', async () => {
    await replay('DELETE', '/api/v1/secrets', NO_METHOD);
    await replay('DELETE', '/api/v1/watch/namespaces', NO_METHOD);
    await replay('DELETE', '/apis/rbac.authorization.k8s.io/v1/watch/clusterrolebindings', NO_METHOD);
  });
  it('a name containing "%" → 400', async () => {
    await replay('GET', `/api/v1/namespaces/${A}/configmaps/a%25b`, badName('a%b', "may not contain '%'"));
  });
});

describe('HTTP limits', () => {
  const TOO_LARGE: ExpectedAnswer = { code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' };
  const big = () => Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { k: 'x'.repeat(4 * 1024 * 1024) } }));
  it('a 4 MiB body with Content-Length → a 413 Status, never a broken pipe', async () => {
    await replay('POST', `/api/v1/namespaces/${A}/configmaps`, TOO_LARGE, { body: big() });
  });
  it('a 4 MiB body without Content-Length (chunked) → a 413 Status, never a broken pipe', async () => {
    await replay('POST', `/api/v1/namespaces/${A}/configmaps`, TOO_LARGE, { body: big(), chunked: true });
  });
  it('CONNECT → 405', async () => {
    const status = await new Promise<{ code: number; raw: string }>((resolve, reject) => {
      const socket = connect({ host: tls.host, port: tls.port, ca: tls.ca, cert: tls.cert, key: tls.key, servername: 'localhost' }, () => {
        socket.write(`CONNECT /api/v1/namespaces/${A}/configmaps HTTP/1.1\r\nHost: ${tls.host}:${tls.port}\r\nAccept: application/json\r\nContent-Length: 0\r\n\r\n`);
      });
      let raw = '';
      const done = () => {
        const m = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
        if (m) resolve({ code: Number(m[1]), raw });
        else reject(new Error(`CONNECT: no HTTP answer, the connection was closed (got ${JSON.stringify(raw.slice(0, 200))})`));
      };
      socket.on('data', (c: Buffer) => {
        raw += c.toString('utf8');
        const head = raw.indexOf('\r\n\r\n');
        const len = /content-length: (\d+)/i.exec(raw);
        if (head >= 0 && len && raw.length >= head + 4 + Number(len[1])) {
          socket.end();
          done();
        }
      });
      socket.on('end', done);
      socket.on('error', (err) => reject(new Error(`CONNECT: ${err.message}`)));
    });
    assert.equal(status.code, 405, status.raw.slice(0, 400));
    const body = JSON.parse(status.raw.slice(status.raw.indexOf('\r\n\r\n') + 4));
    assert.equal(body.kind, 'Status');
    assert.equal(body.reason, 'MethodNotAllowed');
    assert.deepEqual(await checkCanaries(handle, canaries), []);
  });
});

describe('size limits of ConfigMap data and annotations', () => {
  it('ConfigMap data over 1 MiB → 422 Invalid (at most 1048576 bytes), nothing stored', async () => {
    const body = json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-1mib' }, data: { a: 'x'.repeat(600 * 1024), b: 'y'.repeat(600 * 1024) } });
    await replay('POST', `/api/v1/namespaces/${A}/configmaps`, { code: 422, reason: 'Invalid', message: /1048576/ }, { body });
    assert.equal((await https('GET', `/api/v1/namespaces/${A}/configmaps/over-1mib`)).status, 404);
  });
  it('annotations over 256 KiB → 422 Invalid on metadata.annotations (at most 262144 bytes), nothing stored', async () => {
    const body = json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big-annotations', annotations: { a: 'x'.repeat(300 * 1024) } } });
    await replay('POST', `/api/v1/namespaces/${A}/configmaps`, { code: 422, reason: 'Invalid', field: 'metadata.annotations', message: /262144/ }, { body });
    assert.equal((await https('GET', `/api/v1/namespaces/${A}/configmaps/big-annotations`)).status, 404);
  });
  it('a merge patch growing data past 1 MiB → 422, object unchanged', async () => {
    const body = json({ data: { a: 'x'.repeat(1100 * 1024) } });
    await replay('PATCH', `/api/v1/namespaces/${A}/configmaps/canary-cm-${planted}`, { code: 422, reason: 'Invalid', message: /1048576/ }, { body, headers: { 'content-type': 'application/merge-patch+json' } });
  });
});
