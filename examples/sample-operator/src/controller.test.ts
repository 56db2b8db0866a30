import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '@kplane/api/testing';
import { startTestKplane, type TestKplane } from '@kplane/apiserver/testing';
import { ConfigMaps, Secrets, createFakeClock, createManager, type Secret } from '@kplane/runtime';
import { COPY_LABEL, addSecretCopier, secretData } from './controller.js';

const base64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

describe('secret-copier', () => {
  let kplane: TestKplane;
  const stop = new AbortController();

  before(async () => {
    // A real API server in this process, on memory storage; the manager on a fake clock.
    kplane = await startTestKplane();
    const mgr = createManager({ client: kplane.client, clock: createFakeClock() });
    addSecretCopier(mgr);
    void mgr.start(stop.signal);
  });

  after(async () => {
    stop.abort();
    await kplane.close();
  });

  const configMaps = () => kplane.client.resource(ConfigMaps);
  const secrets = () => kplane.client.resource(Secrets);
  const secretNamed = (name: string) => () => secrets().get(name, { namespace: 'default' });

  it('copies a labelled ConfigMap into a Secret it owns', async () => {
    const cm = await configMaps().create(
      { metadata: { name: 'settings', labels: { [COPY_LABEL]: 'true' } }, data: { user: 'admin', motd: 'hello' } },
      { namespace: 'default' },
    );
    const secret = await eventually('the Secret settings exists', secretNamed('settings'));
    assert.deepEqual(secret.data, { user: base64('admin'), motd: base64('hello') });
    assert.equal(secret.type, 'Opaque');
    assert.deepEqual(
      secret.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
      [['ConfigMap', 'settings', cm.metadata?.uid, true]],
    );
  });

  it('follows a change to the ConfigMap', async () => {
    const cm = await configMaps().get('settings', { namespace: 'default' });
    await configMaps().update({ ...cm, data: { user: 'root' } });
    await eventually('the Secret has the new data', async () => (await secretNamed('settings')()).data?.user === base64('root'));
    assert.deepEqual((await secretNamed('settings')()).data, { user: base64('root') });
  });

  it('puts back a Secret edited by hand', async () => {
    const secret = await secretNamed('settings')();
    await secrets().update({ ...secret, data: { user: base64('intruder') } } as Secret);
    await eventually('the Secret is restored', async () => (await secretNamed('settings')()).data?.user === base64('root'));
  });

  it('leaves an unlabelled ConfigMap alone', async () => {
    await configMaps().create({ metadata: { name: 'plain' }, data: { a: 'b' } }, { namespace: 'default' });
    // A labelled ConfigMap created after it: once its copy exists, the plain one has been seen too.
    await configMaps().create({ metadata: { name: 'marker', labels: { [COPY_LABEL]: 'true' } } }, { namespace: 'default' });
    await eventually('the Secret marker exists', secretNamed('marker'));
    await assert.rejects(secretNamed('plain')(), (err: { code?: number }) => err.code === 404);
  });

  it('encodes text as base64 and keeps binaryData', () => {
    assert.deepEqual(secretData({ data: { t: 'é' }, binaryData: { b: 'AAE=' } }), { t: 'w6k=', b: 'AAE=' });
  });
});
