import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@kplane/api';
import { parsePath } from './request-info.js';

test('parsePath reads resource and discovery paths', () => {
  assert.deepEqual(parsePath('/api/v1/namespaces/default/configmaps'), {
    kind: 'resource',
    info: { group: '', version: 'v1', resource: 'configmaps', namespace: 'default', name: undefined, subresource: undefined, watchPath: false },
  });
  assert.deepEqual(parsePath('/apis/apps/v1/watch/namespaces/ns/deployments/d'), {
    kind: 'resource',
    info: { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns', name: 'd', subresource: undefined, watchPath: true },
  });
  assert.deepEqual(parsePath('/api/v1/namespaces/ns/status'), {
    kind: 'resource',
    info: { group: '', version: 'v1', resource: 'namespaces', name: 'ns', subresource: 'status', watchPath: false },
  });
  assert.deepEqual(parsePath('/apis/apps'), { kind: 'discovery', req: { kind: 'group', group: 'apps' } });
  assert.deepEqual(parsePath('/healthz'), { kind: 'other' });
});

test('parsePath remembers a path: the same frozen answer each time, shared by every caller', () => {
  const path = '/api/v1/namespaces/remembered/configmaps';
  const first = parsePath(path);
  assert.equal(parsePath(path), first);
  assert.ok(Object.isFrozen(first));
  assert.ok(first.kind === 'resource' && Object.isFrozen(first.info));
  assert.throws(() => {
    'use strict';
    (first as { kind: 'resource'; info: { name?: string } }).info.name = 'changed';
  }, TypeError);
  const discovery = parsePath('/apis/remembered.example.com');
  assert.ok(discovery.kind === 'discovery' && Object.isFrozen(discovery.req));
});

test('parsePath stays right past its memory bound, and a path that does not parse throws every time', () => {
  for (let i = 0; i < 5000; i++) {
    const parsed = parsePath(`/api/v1/namespaces/ns${i}/pods/p${i}`);
    assert.ok(parsed.kind === 'resource' && parsed.info.namespace === `ns${i}` && parsed.info.name === `p${i}`);
  }
  for (let i = 0; i < 2; i++) assert.throws(() => parsePath('/api/v1/namespaces/%zz/pods'), (err) => err instanceof ApiError && err.code === 400);
});

test('parsePath with another namespace-subresource rule is not mixed with the remembered answers', () => {
  const path = '/api/v1/namespaces/ns/status';
  assert.equal(parsePath(path).kind === 'resource' && (parsePath(path) as { info: { resource: string } }).info.resource, 'namespaces');
  const other = parsePath(path, () => false);
  assert.ok(other.kind === 'resource');
  assert.equal(other.info.resource, 'status');
  assert.equal(other.info.namespace, 'ns');
});
