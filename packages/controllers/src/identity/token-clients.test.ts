import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { RawRequest, RawResponse } from '@kplane/api';
import { createClient } from '@kplane/client';
import { createFakeClock } from '@kplane/runtime';
import { serviceAccountTokenSource } from './token-clients.js';

it('asks the TokenRequest API for a token and renews it once 80 % of its lifetime has passed', async () => {
  const clock = createFakeClock();
  const asked: string[] = [];
  const root = createClient({
    transport: async (req: RawRequest): Promise<RawResponse> => {
      const body = JSON.parse(Buffer.from(req.body!).toString('utf8'));
      asked.push(`${req.method} ${req.path} ${body.spec.expirationSeconds}`);
      const status = { token: `t${asked.length}`, expirationTimestamp: new Date(Date.now() + body.spec.expirationSeconds * 1000).toISOString() };
      return { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ ...body, status })) };
    },
  });
  const source = serviceAccountTokenSource(root, { namespace: 'kube-system', name: 'replicaset-controller' }, { clock, expirationSeconds: 100 });
  assert.deepEqual(await Promise.all([source.token(), source.token()]), ['t1', 't1'], 'one request for concurrent callers');
  await clock.advanceAsync(79_999);
  assert.equal(await source.token(), 't1');
  await clock.advanceAsync(1);
  assert.equal(await source.token(), 't2');
  assert.deepEqual(asked, Array(2).fill('POST /api/v1/namespaces/kube-system/serviceaccounts/replicaset-controller/token 100'));
});

it('renews sooner when the server granted a shorter lifetime than asked', async () => {
  const clock = createFakeClock();
  let n = 0;
  const root = createClient({
    transport: async (req: RawRequest): Promise<RawResponse> => {
      const body = JSON.parse(Buffer.from(req.body!).toString('utf8'));
      const status = { token: `t${++n}`, expirationTimestamp: new Date(Date.now() + 10_000).toISOString() };
      return { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ ...body, status })) };
    },
  });
  const source = serviceAccountTokenSource(root, { namespace: 'kube-system', name: 'x' }, { clock, expirationSeconds: 3600 });
  assert.equal(await source.token(), 't1');
  await clock.advanceAsync(10_000);
  assert.equal(await source.token(), 't2', 'the 10 s granted, not the hour asked, counted');
});
