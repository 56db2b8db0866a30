import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ETCD_MISSING, findEtcd } from '@kplane/storage/testing';
import { benchEtcdStorage, formatDeploymentStorage, formatEtcdStorage } from './etcd-bench.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kplane-etcd-bench-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('benchEtcdStorage measures kplane on etcd and on SQLite, and raw etcd puts, in one short run', { skip: !findEtcd() && ETCD_MISSING, timeout: 120_000 }, async () => {
  const configMap = (name: string, namespace: string): object => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { k: name } });
  const r = await benchEtcdStorage({ dir, rounds: 1, roundMs: 300, warmupMs: 100, concurrency: 4, configMap });
  for (const row of [r.rawPut, r.createSqlite, r.createEtcd, r.getSqlite, r.getEtcd]) {
    assert.ok(row.result.requests > 0, `${row.name}: some requests`);
    assert.equal(row.result.errors, 0, `${row.name}: ${row.result.firstError}`);
  }
  assert.ok(r.createEtcd.etcdUsPerReq !== undefined && r.createEtcd.serverUsPerReq !== undefined);
  const table = formatEtcdStorage(r);
  assert.match(table, /kplane CREATE \(etcd\)\s+\d+\s+\d+\.\d\dx\s+\d+\.\d\dx/);
  assert.equal(r.deployment, undefined);
  // The Deployment rows (a fresh control plane per store: too slow for this test, so formatted from numbers).
  const deployment = (seconds: number, ready: number) => ({ result: { replicas: 1000, readyReplicas: ready, reached: ready === 1000, seconds, milestones: [] }, stderrLines: 0 });
  const withDeployment = formatEtcdStorage({ ...r, deployment: { etcd: deployment(40, 1000), sqlite: deployment(20, 1000) } });
  assert.match(withDeployment, /Deployment 0 -> 1000 .*etcd 1000\/1000 Ready in 40\.0 s, 25 pods\/s; sqlite 1000\/1000 Ready in 20\.0 s, 50 pods\/s; etcd 0\.50x sqlite's pods\/s/);
});

test('formatDeploymentStorage shows each storage, etcd against SQLite, and the load beside each figure', () => {
  const deployment = (seconds: number, ready: number) => ({ result: { replicas: 1000, readyReplicas: ready, reached: ready === 1000, seconds, milestones: [] }, stderrLines: 0 });
  const table = formatDeploymentStorage({ etcd: deployment(40, 1000), sqlite: deployment(20, 1000), load: { etcd: 1.5, sqlite: 2.25 } });
  assert.match(table, /sqlite \(baseline\)\s+1000\/1000\s+20\.0\s+50\s+-\s+2\.25/);
  assert.match(table, /etcd \(one local member\)\s+1000\/1000\s+40\.0\s+25\s+0\.50x\s+1\.50/);
  const late = formatDeploymentStorage({ etcd: deployment(900, 400), sqlite: deployment(20, 1000), load: { etcd: 1, sqlite: 1 } });
  assert.match(late, /400\/1000 \(timed out\)/);
});
