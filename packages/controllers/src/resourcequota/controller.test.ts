import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ConfigMaps, Jobs, Namespaces, Pods, ResourceQuotas, Services, type FakeClock, type ResourceQuota } from '@kplane/runtime';
import { eventually } from '@kplane/api/testing';
import { startControllerBed, type TestKplane } from '../namespace/testing.js';
import { newJob } from '../job/test-support.js';
import { createResourceQuotaController, quotaUsage } from './controller.js';

/** A namespace of its own: `default` holds the API server's `kubernetes` Service, which a quota counts. */
const NS = 'quota-controller';
let kp: TestKplane;
let clock: FakeClock;
let stop: () => Promise<void>;

before(async () => {
  ({ kp, clock, stop } = await startControllerBed(async (mgr, kp) => {
    await kp.client.resource(Namespaces).create({ metadata: { name: NS } });
    createResourceQuotaController(mgr);
  }));
});
after(() => stop());

const quotas = () => kp.client.resource<ResourceQuota>(ResourceQuotas);
const status = async (name: string) => (await quotas().get(name, { namespace: NS })).status;
const pod = (name: string, cpu?: string, phase?: 'Succeeded') => ({
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox', ...(cpu ? { resources: { requests: { cpu }, limits: { cpu } } } : {}) }] },
  ...(phase ? { status: { phase } } : {}),
});

it('quotaUsage: every hard resource gets a value, "0" when nothing counts; terminal pods do not count', () => {
  const q: ResourceQuota = { spec: { hard: { pods: '5', 'requests.cpu': '2', 'count/jobs.batch': '3', secrets: '1' } } };
  const used = quotaUsage(q, (resource) => (resource === 'pods' ? [pod('a', '500m'), pod('b', '250m'), pod('c', '1', 'Succeeded')] : []));
  assert.deepEqual(used, { pods: '2', 'requests.cpu': '750m', 'count/jobs.batch': '0', secrets: '0' });
});

it('fills status.hard and status.used from the namespace and follows pods, services and other kinds', async () => {
  await quotas().create({ metadata: { name: 'q' }, spec: { hard: { pods: '10', 'requests.cpu': '4', services: '2', 'services.nodeports': '5', 'count/jobs.batch': '4', 'count/configmaps': '9' } } }, { namespace: NS });
  await eventually('status filled', async () => (await status('q'))?.used?.pods === '0');
  assert.deepEqual((await status('q'))?.hard, { pods: '10', 'requests.cpu': '4', services: '2', 'services.nodeports': '5', 'count/jobs.batch': '4', 'count/configmaps': '9' });
  await kp.client.resource(Pods).create(pod('p1', '500m'), { namespace: NS });
  await kp.client.resource(Pods).create(pod('p2', '1500m'), { namespace: NS });
  await kp.client.resource(Services).create({ metadata: { name: 's' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } }, { namespace: NS });
  await kp.client.resource(ConfigMaps).create({ metadata: { name: 'cm' } }, { namespace: NS });
  await eventually('pods, services and config maps counted', async () => {
    const u = (await status('q'))?.used;
    return u?.pods === '2' && u['requests.cpu'] === '2' && u.services === '1' && u['services.nodeports'] === '1' && u['count/configmaps'] === '1';
  });
  await kp.client.resource(Pods).delete('p2', { namespace: NS, gracePeriodSeconds: 0 });
  await eventually('a deleted pod is given back', async () => (await status('q'))?.used?.pods === '1');
  // Jobs are not followed by an informer: they are counted at the next resync, on the virtual clock.
  await kp.client.resource(Jobs).create(newJob('j'), { namespace: NS });
  await clock.advanceAsync(5 * 60_000 + 1000);
  await eventually('jobs counted at the resync', async () => (await status('q'))?.used?.['count/jobs.batch'] === '1');
});
