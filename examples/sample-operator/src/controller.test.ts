import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMaps, Secrets, type Secret } from '@kplane/runtime';
import { createRecorder, startControlPlane, type Recorder, type TestControlPlane } from '@kplane/testing';
import { COPY_LABEL, secretData } from './controller.js';
import { runCopier } from './run-copier.js';

const base64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

describe('secret-copier', () => {
  let cp: TestControlPlane;
  let recorder: Recorder;
  const stop = new AbortController();

  before(async () => {
    // A control plane in this process: memory storage, the built-in controllers (the garbage
    // collector among them), no nodes, one virtual clock. The manager runs on that clock too,
    // so cp.settle() knows when its work is done.
    cp = await startControlPlane({ nodes: 0 });
    // The controller's requests are recorded, to assert what it wrote.
    recorder = createRecorder();
    await runCopier(cp, recorder.wrap(cp.transport, 'secret-copier'), stop.signal);
  });

  after(async () => {
    stop.abort();
    await cp.stop();
  });

  const configMaps = () => cp.client.resource(ConfigMaps);
  const secrets = () => cp.client.resource(Secrets);
  const secret = (name: string) => secrets().get(name, { namespace: 'default' });

  it('copies a labelled ConfigMap into a Secret it owns', async () => {
    const cm = await configMaps().create(
      { metadata: { name: 'settings', labels: { [COPY_LABEL]: 'true' } }, data: { user: 'admin', motd: 'hello' } },
      { namespace: 'default' },
    );
    await cp.settle(); // runs until idle: no sleep, no polling
    const copy = await secret('settings');
    assert.deepEqual(copy.data, { user: base64('admin'), motd: base64('hello') });
    assert.equal(copy.type, 'Opaque');
    assert.deepEqual(
      copy.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
      [['ConfigMap', 'settings', cm.metadata?.uid, true]],
    );
  });

  it('follows a change to the ConfigMap, with one write', async () => {
    const cm = await configMaps().get('settings', { namespace: 'default' });
    const mark = recorder.mark();
    await configMaps().update({ ...cm, data: { user: 'root' } });
    await cp.settle();
    assert.deepEqual((await secret('settings')).data, { user: base64('root') });
    // The Secret's own change wakes the ConfigMap again: that reconcile finds nothing to do.
    assert.equal(recorder.expectOneWrite({ since: mark }).action, 'update secrets default/settings');
  });

  it('puts back a Secret edited by hand', async () => {
    await secrets().update({ ...(await secret('settings')), data: { user: base64('intruder') } } as Secret);
    await cp.settle();
    assert.deepEqual((await secret('settings')).data, { user: base64('root') });
  });

  it('leaves an unlabelled ConfigMap alone', async () => {
    const mark = recorder.mark();
    await configMaps().create({ metadata: { name: 'plain' }, data: { a: 'b' } }, { namespace: 'default' });
    await cp.settle();
    await assert.rejects(secret('plain'), (err: { code?: number }) => err.code === 404);
    recorder.expectNoWrites({ since: mark });
  });

  it('the Secret goes with its ConfigMap (the garbage collector follows the owner reference)', async () => {
    await configMaps().delete('settings', { namespace: 'default' });
    // The collector retries on a timer: let virtual time move to each timer until idle.
    await cp.settle({ advance: true });
    await assert.rejects(secret('settings'), (err: { code?: number }) => err.code === 404);
  });

  it('encodes text as base64 and keeps binaryData', () => {
    assert.deepEqual(secretData({ data: { t: 'é' }, binaryData: { b: 'AAE=' } }), { t: 'w6k=', b: 'AAE=' });
  });
});
