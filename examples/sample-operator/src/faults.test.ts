import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMaps, Secrets, type ConfigMap } from '@kplane/runtime';
import { createFaults, createRecorder, startControlPlane, type Faults, type Recorder, type TestControlPlane } from '@kplane/testing';
import { COPY_LABEL, secretData } from './controller.js';
import { runCopier } from './run-copier.js';

/** The name the controller's client goes by in the faults and the recorded calls. */
const WHO = 'secret-copier';

describe('secret-copier under injected faults, its calls recorded', () => {
  let cp: TestControlPlane;
  let faults: Faults;
  let recorder: Recorder;
  const stop = new AbortController();

  before(async () => {
    mock.method(console, 'error', () => undefined); // the manager logs each failed reconcile
    cp = await startControlPlane({ nodes: 0, controllers: false });
    // Seeded: a failing run replays exactly with the same seed.
    faults = createFaults({ seed: 7, clock: cp.clock });
    faults.add({ who: WHO, resource: 'secrets', verb: 'update', rate: 0.5, error: 409 });
    faults.add({ who: WHO, resource: 'secrets', verb: ['get', 'create'], rate: 0.3, error: 500 });
    recorder = createRecorder();
    // The controller's requests: recorded, then (maybe) failed, then served.
    await runCopier(cp, recorder.wrap(faults.wrap(cp.transport, WHO), WHO), stop.signal);
  });

  after(async () => {
    stop.abort();
    await cp.stop();
    mock.restoreAll();
  });

  const names = ['a', 'b', 'c', 'd', 'e'];

  it('converges despite conflicts and server errors (retried with backoff, on virtual time)', async () => {
    const cms = cp.client.resource<ConfigMap>(ConfigMaps);
    for (const name of names) await cms.create({ metadata: { name, labels: { [COPY_LABEL]: 'true' } }, data: { v: name } });
    for (const name of names) await cms.patch(name, { data: { v: `${name}2` } }, 'merge');
    await cp.settle({ advance: true });
    for (const name of names) {
      const secret = await cp.client.resource(Secrets).get(name);
      assert.deepEqual(secret.data, secretData(await cms.get(name)), `${name}:\n${faults.describe()}`);
    }
    assert.ok(recorder.writes({ who: WHO, ok: false }).length > 0, 'some writes failed');
  });

  it('writes nothing once settled', async () => {
    const mark = recorder.mark();
    await cp.advance(60_000);
    recorder.expectNoWrites({ who: WHO, since: mark });
  });
});
