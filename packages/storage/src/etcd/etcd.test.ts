import { after, test } from 'node:test';
import { createEtcdBackend } from './backend.js';
import { runBackendConformance } from '../testing/conformance.js';
import { ETCD_MISSING, findEtcd, startEtcd } from '../testing/etcd-server.js';

if (!findEtcd()) {
  test('etcd storage conformance', { skip: ETCD_MISSING }, () => {});
} else {
  const etcd = await startEtcd();
  after(() => etcd.stop());
  let n = 0;
  // One etcd for the file: each test's store lives under a namespace of its own.
  runBackendConformance('etcd', async ({ now }) => createEtcdBackend({ endpoints: [etcd.endpoint], namespace: `/conformance-${++n}`, now }));
}
