import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StorageError } from '../backend.js';
import { createBackend } from '../factory.js';
import { freePort } from '../testing/etcd-server.js';
import { parseEtcdUrl } from './url.js';

test('etcd:// takes one or more endpoints and kube-apiserver-like options', () => {
  assert.deepEqual(parseEtcdUrl('etcd://127.0.0.1:2379'), { endpoints: ['127.0.0.1:2379'], tls: false });
  assert.deepEqual(parseEtcdUrl('etcd://a:2379,b:2379,[::1]:2379?prefix=/kplane'), {
    endpoints: ['a:2379', 'b:2379', '[::1]:2379'],
    tls: false,
    prefix: '/kplane',
  });
  assert.deepEqual(parseEtcdUrl('etcds://e:2379'), { endpoints: ['e:2379'], tls: true });
  assert.deepEqual(parseEtcdUrl('etcd://e:2379?cafile=/pki/ca.crt&certfile=/pki/c.crt&keyfile=/pki/c.key&namespace=/one'), {
    endpoints: ['e:2379'],
    tls: true,
    caFile: '/pki/ca.crt',
    certFile: '/pki/c.crt',
    keyFile: '/pki/c.key',
    namespace: '/one',
  });
});

test('etcd:// rejects malformed URLs with a StorageError', () => {
  for (const bad of ['etcd://', 'etcd://host', 'etcd://h:1?nope=1', 'etcd://h:1?prefix=registry', 'etcd://h:1?prefix=/r/', 'etcd://h:1?certfile=/c']) {
    assert.throws(() => parseEtcdUrl(bad), StorageError, bad);
  }
});

test('opening an etcd store nobody serves fails with a StorageError naming the endpoints', async () => {
  const port = await freePort();
  await assert.rejects(createBackend(`etcd://127.0.0.1:${port}`), (err: unknown) => {
    assert.ok(err instanceof StorageError);
    assert.match(err.message, new RegExp(`cannot reach etcd at 127\\.0\\.0\\.1:${port}`));
    return true;
  });
});
