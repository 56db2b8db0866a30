import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@kplane/client';
import { CustomResourceDefinitions, Deployments, Namespaces, createManager } from '@kplane/runtime';
import { createFaults, createRecorder, startControlPlane, type Faults, type Recorder, type TestControlPlane } from '@kplane/testing';
import { addGreetingController } from './controller.js';
import { Greetings } from './kind.js';
import { fileRecords, type RecordStore } from './records.js';

const WHO = 'greeting-operator';

/**
 * The operator under injected faults (seeded; a failure prints the seed and every fault): 500s
 * on its applies, 409s on its status writes, a finalizer patch that lands but whose answer is
 * lost, dropped watches, and a DNS provider that fails once. It still converges, retrying with
 * backoff on virtual time, removes the finalizer only after the record is gone, and writes
 * nothing once settled.
 */
describe('the Greeting operator under faults', () => {
  let cp: TestControlPlane;
  let faults: Faults;
  let recorder: Recorder;
  let dir: string;
  const stop = new AbortController();
  let providerFailures = 0;
  const removals: string[] = [];

  before(async () => {
    faults = createFaults();
    recorder = createRecorder();
    cp = await startControlPlane({ nodes: 1 });
    faults.attach(cp);
    dir = await mkdtemp(join(tmpdir(), 'greeting-faults-'));
    await cp.client.resource(CustomResourceDefinitions).create(Greetings.crd());
    await cp.client.resource(Namespaces).create({ metadata: { name: 'demo' } });
    await cp.settle();
    const client = createClient({ transport: recorder.wrap(faults.wrap(cp.transport, WHO), WHO), defaultNamespace: 'demo' });
    const mgr = createManager({ client, clock: cp.clock });
    const file = fileRecords(join(dir, 'records'));
    const flaky: RecordStore = {
      ...file,
      async remove(owner, signal) {
        if (providerFailures > 0) {
          providerFailures--;
          removals.push('failed');
          throw new Error('DNS provider: 503 Service Unavailable');
        }
        const removed = await file.remove(owner, signal);
        removals.push(removed ? 'removed' : 'absent');
        return removed;
      },
    };
    addGreetingController(mgr, { records: flaky, log: () => undefined });
    void mgr.start(stop.signal);
  });
  after(async () => {
    stop.abort();
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const records = () => readFile(join(dir, 'records'), 'utf8').catch(() => '');

  it('converges despite failed writes and dropped watches, then writes nothing', async () => {
    faults.add({ who: WHO, verb: 'patch', resource: ['deployments', 'services', 'ingresses'], rate: 0.5, times: 6, error: 500 });
    faults.add({ who: WHO, verb: 'patch', resource: 'greetings', subresource: 'status', rate: 0.5, times: 4, error: 409 });
    faults.add({ who: WHO, verb: 'patch', resource: 'greetings', subresource: '', count: 1, error: 500, passThrough: true });
    faults.add({ who: WHO, verb: 'watch', rate: 0.3, times: 3, drop: { afterEvents: [0, 5] } });
    for (const name of ['one', 'two']) {
      await cp.client.resource(Greetings).create({ metadata: { name }, spec: { version: '1.0', host: `${name}.apps.example.com` } }, { namespace: 'demo' });
    }
    await cp.settle({ advance: true, maxVirtualMs: 60_000 });
    faults.clear();
    await cp.settle({ advance: true, maxVirtualMs: 60_000 });

    for (const name of ['one', 'two']) {
      const g = await cp.client.resource(Greetings).get(name, { namespace: 'demo' });
      assert.equal(g.status?.conditions?.find((c) => c.type === 'Ready')?.message, '2/2 replicas ready', faults.describe());
      assert.equal((await cp.client.resource(Deployments).get(name, { namespace: 'demo' })).status?.readyReplicas, 2, faults.describe());
    }
    assert.equal(await records(), 'one.apps.example.com demo/one\ntwo.apps.example.com demo/two\n', faults.describe());
    const settled = recorder.mark();
    await cp.advance(30_000);
    recorder.expectNoWrites({ who: WHO, since: settled });
  });

  it('keeps the finalizer while the DNS provider fails, and removes it once the record is gone', async () => {
    providerFailures = 2;
    removals.length = 0;
    faults.add({ who: WHO, verb: 'patch', resource: 'greetings', subresource: '', count: 1, error: 500 });
    await cp.client.resource(Greetings).delete('one', { namespace: 'demo' });
    await cp.settle({ advance: true, maxVirtualMs: 60_000 });
    await assert.rejects(cp.client.resource(Greetings).get('one', { namespace: 'demo' }), { code: 404 }, faults.describe());
    // Two failures, then the removal; the finalizer patch's lost answer reruns the (idempotent) cleanup.
    assert.deepEqual(removals.slice(0, 3), ['failed', 'failed', 'removed'], faults.describe());
    assert.ok(removals.slice(3).every((r) => r === 'absent'), removals.join());
    assert.equal(await records(), 'two.apps.example.com demo/two\n');
  });
});
