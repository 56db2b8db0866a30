import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type KubeObject } from '@kplane/api';
import { startTestKplane as startKplane } from '@kplane/apiserver/testing';
import { createOrUpdate, patchStatus, updateStatus } from './create-or-update.js';

const configMaps = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' } as const;
const deployments = { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true, kind: 'Deployment' } as const;

test('createOrUpdate: created, then unchanged, then updated', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const cms = kp.client.resource(configMaps);
  const want = (data: Record<string, string>) => (obj: KubeObject) => {
    obj.data = data;
  };
  assert.equal(await createOrUpdate(cms, { name: 'cfg', namespace: 'default' }, want({ a: '1' })), 'created');
  const created = await cms.get('cfg', { namespace: 'default' });
  assert.deepEqual(created.data, { a: '1' });

  assert.equal(await createOrUpdate(cms, { name: 'cfg', namespace: 'default' }, want({ a: '1' })), 'unchanged');
  assert.equal((await cms.get('cfg', { namespace: 'default' })).metadata!.resourceVersion, created.metadata!.resourceVersion, 'no write');

  let seen: KubeObject | undefined;
  assert.equal(
    await createOrUpdate(cms, { name: 'cfg', namespace: 'default' }, (obj) => {
      seen = obj;
      obj.data = { a: '2' };
      obj.metadata!.labels = { tier: 'web' };
    }),
    'updated',
  );
  assert.equal(seen!.metadata!.uid, created.metadata!.uid, 'mutate gets the existing object');
  const updated = await cms.get('cfg', { namespace: 'default' });
  assert.deepEqual(updated.data, { a: '2' });
  assert.deepEqual(updated.metadata!.labels, { tier: 'web' });
});

test('createOrUpdate: mutate may not change the key', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const cms = kp.client.resource(configMaps);
  await assert.rejects(
    createOrUpdate(cms, { name: 'cfg', namespace: 'default' }, (obj) => {
      obj.metadata!.name = 'other';
    }),
    /^Error: MutateFn cannot mutate object name and\/or object namespace$/,
  );
  await assert.rejects(cms.get('cfg', { namespace: 'default' }), (e: unknown) => e instanceof ApiError && e.code === 404);
});

test('createOrUpdate: a 409 conflict starts over from a fresh read', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const direct = kp.client.resource(configMaps);
  await direct.create({ metadata: { name: 'cfg', namespace: 'default' }, data: { n: '0' } });
  let interfere = 2;
  const statuses: number[] = [];
  const cms = kp
    .clientWith(async (req, next) => {
      if (req.method === 'PUT' && interfere-- > 0) {
        const cur = await direct.get('cfg', { namespace: 'default' });
        await direct.update({ ...cur, data: { ...(cur.data as object), other: String(interfere) } });
      }
      const res = await next(req);
      if (req.method === 'PUT') statuses.push(res.status);
      return res;
    })
    .resource(configMaps);
  let calls = 0;
  const result = await createOrUpdate(cms, { name: 'cfg', namespace: 'default' }, (obj) => {
    calls++;
    obj.data = { ...(obj.data as object), n: '1' };
  });
  assert.equal(result, 'updated');
  assert.equal(calls, 3);
  assert.deepEqual(statuses, [409, 409, 200]);
  assert.deepEqual((await direct.get('cfg', { namespace: 'default' })).data, { n: '1', other: '0' }, 'the concurrent write is kept');

  interfere = 10;
  await assert.rejects(
    createOrUpdate(cms, { name: 'cfg', namespace: 'default' }, (obj) => void (obj.data = { n: String(Math.random()) }), { attempts: 2 }),
    (e: unknown) => e instanceof ApiError && e.code === 409,
  );
});

test('createOrUpdate: a create that loses to a concurrent create retries as an update', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const direct = kp.client.resource(configMaps);
  let raced = false;
  const cms = kp
    .clientWith(async (req, next) => {
      if (req.method === 'POST' && !raced) {
        raced = true;
        await direct.create({ metadata: { name: 'cfg', namespace: 'default' }, data: { from: 'other' } });
      }
      return next(req);
    })
    .resource(configMaps);
  const result = await createOrUpdate(cms, { name: 'cfg', namespace: 'default' }, (obj) => {
    obj.data = { ...(obj.data as object), mine: 'yes' };
  });
  assert.equal(result, 'updated');
  assert.deepEqual((await direct.get('cfg', { namespace: 'default' })).data, { from: 'other', mine: 'yes' });
});

test('updateStatus / patchStatus write through the status subresource only', async (t) => {
  const kp = await startKplane();
  t.after(() => kp.close());
  const deps = kp.client.resource(deployments);
  const created = await deps.create({
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  });
  const withStatus = await updateStatus(deps, { ...created, spec: { ...(created.spec as object), replicas: 5 }, status: { observedGeneration: 1, replicas: 1 } });
  assert.deepEqual((withStatus.status as { replicas: number }).replicas, 1);
  assert.equal((withStatus.spec as { replicas: number }).replicas, 1, 'spec changes are ignored by the status subresource');

  const patched = await patchStatus(deps, 'web', 'default', { readyReplicas: 1, replicas: null });
  const status = patched.status as Record<string, unknown>;
  assert.equal(status.readyReplicas, 1);
  assert.equal(status.observedGeneration, 1, 'merge keeps other fields');
  assert.equal('replicas' in status, false, 'null deletes');
});
