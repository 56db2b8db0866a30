/**
 * resourceVersion semantics Kubernetes promises: a GET or LIST at a version ahead of the store
 * waits (3 s in kube-apiserver) and then answers 504 Timeout with the cause
 * ResourceVersionTooLarge; a continue token carrying a future version gets the same answer;
 * a watch from version N never delivers an event at or before N.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RawResponse } from '@kplane/api';
import { assertAnswer, checkCanaries, plantCanaries, send, startTestServer, type CanarySnapshot, type ExpectedAnswer, type TestServer } from '../testing.js';

let t: TestServer;
let canaries: CanarySnapshot;
const CMS = '/api/v1/namespaces/canary-b/configmaps';

beforeEach(async () => {
  t = await startTestServer();
  canaries = await plantCanaries(t.server.handle);
});
afterEach(() => t.close());

const TOO_LARGE: ExpectedAnswer = { code: 504, reason: 'Timeout', message: /^Timeout: Too large resource version: \d+, current: \d+$/, causeReason: 'ResourceVersionTooLarge' };

async function currentRv(): Promise<number> {
  const list = await send(t.server.handle, 'GET', CMS);
  return Number(list.body.metadata.resourceVersion);
}

describe('reads at a resourceVersion ahead of the store → 504 ResourceVersionTooLarge', () => {
  it('LIST and GET at ?resourceVersion=<ahead>, and a continue token from the future → 504 Timeout, cause ResourceVersionTooLarge', async () => {
    // Sent together, so that kube-apiserver's wait (3 s) for the store to catch up is paid once.
    const ahead = (await currentRv()) + 1000;
    const token = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: ahead, start: 'canary-cm\u0000' })).toString('base64');
    const [list, get, page] = await Promise.all([
      send(t.server.handle, 'GET', CMS, undefined, {}, { resourceVersion: String(ahead) }),
      send(t.server.handle, 'GET', `${CMS}/canary-cm`, undefined, {}, { resourceVersion: String(ahead) }),
      send(t.server.handle, 'GET', CMS, undefined, {}, { limit: '1', continue: token }),
    ]);
    assertAnswer(list, TOO_LARGE, `LIST at ${ahead}`);
    assertAnswer(get, TOO_LARGE, `GET at ${ahead}`);
    assertAnswer(page, TOO_LARGE, `LIST continue at ${ahead}`);
    assert.deepEqual(await checkCanaries(t.server.handle, canaries), []);
  });

  it('a continue token with a version beyond int64 → 400', async () => {
    const token = Buffer.from('{"v":"meta.k8s.io/v1","rv":1e300,"start":"a"}').toString('base64');
    const answer = await send(t.server.handle, 'GET', CMS, undefined, {}, { limit: '1', continue: token });
    assertAnswer(answer, { code: 400, reason: 'BadRequest' }, 'LIST continue rv 1e300');
  });

  it('a resourceVersion that is not a number → 400', async () => {
    for (const rv of ['abc', '-1', '1e3', '99999999999999999999']) {
      const answer = await send(t.server.handle, 'GET', CMS, undefined, {}, { resourceVersion: rv });
      assertAnswer(answer, { code: 400, reason: 'BadRequest' }, `LIST rv ${rv}`);
    }
  });
});

/** Reads watch events until one satisfies `last` (a sentinel write) or the stream ends. */
async function eventsUntil(r: RawResponse, last: (e: { type: string; object: any }) => boolean): Promise<{ type: string; object: any }[]> {
  const out: { type: string; object: any }[] = [];
  let buf = '';
  for await (const chunk of r.stream!) {
    buf += Buffer.from(chunk).toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const e = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      out.push(e);
      if (last(e)) return out;
    }
  }
  return out;
}

describe('a watch from version N never delivers an event at or before N', () => {
  it('collection watch: only events after N, in order, up to a sentinel write', async () => {
    const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } });
    const a = await send(t.server.handle, 'POST', CMS, cm('w-a', '1'));
    const b = await send(t.server.handle, 'PUT', `${CMS}/w-a`, cm('w-a', '2'));
    const n = Number(b.body.metadata.resourceVersion);
    assert.ok(n > Number(a.body.metadata.resourceVersion));
    await send(t.server.handle, 'PUT', `${CMS}/w-a`, cm('w-a', '3'));
    await send(t.server.handle, 'POST', CMS, cm('w-b', '1'));
    const abort = new AbortController();
    const r = await t.raw('GET', CMS, { watch: 'true', resourceVersion: String(n), timeoutSeconds: '30' }, {}, abort.signal);
    assert.equal(r.status, 200);
    await send(t.server.handle, 'POST', CMS, cm('w-sentinel', '1'));
    const events = await eventsUntil(r, (e) => e.object?.metadata?.name === 'w-sentinel');
    abort.abort();
    const seen = events.map((e) => `${e.type} ${e.object.metadata.name} ${e.object.data?.v}`);
    assert.deepEqual(seen, ['MODIFIED w-a 3', 'ADDED w-b 1', 'ADDED w-sentinel 1']);
    for (const e of events) assert.ok(Number(e.object.metadata.resourceVersion) > n, `event at ${e.object.metadata.resourceVersion} <= ${n}`);
  });

  it('watch from the current version: nothing old, then the next change', async () => {
    const n = await currentRv();
    const abort = new AbortController();
    const r = await t.raw('GET', CMS, { watch: 'true', resourceVersion: String(n), timeoutSeconds: '30' }, {}, abort.signal);
    await send(t.server.handle, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w-next' } });
    const events = await eventsUntil(r, (e) => e.object?.metadata?.name === 'w-next');
    abort.abort();
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED w-next']);
    assert.ok(Number(events[0]!.object.metadata.resourceVersion) > n);
  });

  it('single-object watch (fieldSelector metadata.name) from N: only later changes of that object', async () => {
    const created = await send(t.server.handle, 'POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w-one' }, data: { v: '1' } });
    const n = Number(created.body.metadata.resourceVersion);
    const abort = new AbortController();
    const r = await t.raw('GET', CMS, { watch: 'true', resourceVersion: String(n), fieldSelector: 'metadata.name=w-one', timeoutSeconds: '30' }, {}, abort.signal);
    await send(t.server.handle, 'PATCH', `${CMS}/w-one`, { data: { v: '2' } }, { 'content-type': 'application/merge-patch+json' });
    const events = await eventsUntil(r, (e) => e.object?.data?.v === '2');
    abort.abort();
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.data.v}`), ['MODIFIED 2']);
    assert.ok(Number(events[0]!.object.metadata.resourceVersion) > n);
  });
});
