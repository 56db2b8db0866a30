import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Transport } from '@kplane/api';
import { startTestServer, type TestServer } from '@kplane/apiserver/testing';
import { createClient } from '@kplane/client';
import { ConfigMaps, type ConfigMap } from '@kplane/runtime';
import { createFaults } from './faults/index.js';
import { createRecorder } from './recorder.js';

let server: TestServer;
let direct: Transport;
before(async () => {
  server = await startTestServer();
  direct = (req) => server.server.handle(req);
});
after(async () => {
  await server.close();
});

const cm = (name: string, data: Record<string, string> = {}): ConfigMap => ({ metadata: { name, namespace: 'default' }, data });

describe('createRecorder', () => {
  it('records each request with its verb, resource, status and body, per client', async () => {
    const rec = createRecorder();
    const ctl = createClient({ transport: rec.wrap(direct, 'ctl') }).resource<ConfigMap>(ConfigMaps);
    const user = createClient({ transport: rec.wrap(direct) }).resource<ConfigMap>(ConfigMaps);
    const created = await ctl.create(cm('rec-a', { v: '1' }));
    await ctl.get('rec-a');
    await ctl.update({ ...created, data: { v: '2' } });
    await assert.rejects(ctl.update({ ...created, data: { v: '3' } }), { code: 409 });
    await ctl.patch('rec-a', { data: { w: '1' } }, 'merge', { dryRun: true });
    await user.list();
    await ctl.delete('rec-a');

    assert.deepEqual(rec.actions(), [
      'create configmaps default/rec-a',
      'get configmaps default/rec-a',
      'update configmaps default/rec-a',
      'update configmaps default/rec-a',
      'patch configmaps default/rec-a',
      'list configmaps -n default',
      'delete configmaps default/rec-a',
    ]);
    const calls = rec.calls({ who: 'ctl' });
    assert.equal(calls.length, 6);
    assert.deepEqual(calls.map((c) => c.status), [201, 200, 200, 409, 200, 200]);
    assert.equal(calls[3]!.error, 'Conflict');
    assert.deepEqual((calls[0]!.body as ConfigMap).data, { v: '1' });
    assert.equal(calls[4]!.contentType, 'application/merge-patch+json');
    assert.equal(calls[4]!.dryRun, true);
    assert.equal(rec.calls({ who: 'client' }).length, 1);
    // A dry run changes nothing: not a write. Failed writes are writes (select them with ok).
    assert.deepEqual(rec.writes({ who: 'ctl' }).map((c) => `${c.verb} ${c.status}`), ['create 201', 'update 200', 'update 409', 'delete 200']);
    assert.equal(rec.writes({ who: 'ctl', ok: true }).length, 3);
    assert.equal(rec.writes({ who: 'ctl', ok: false }).length, 1);
  });

  it('selects calls since a mark, forgets them on clear, and records thrown errors', async () => {
    const rec = createRecorder();
    const faults = createFaults({ seed: 1 });
    faults.add({ verb: 'get', disconnect: true, count: 1 });
    const cms = createClient({ transport: rec.wrap(faults.wrap(direct, 'ctl'), 'ctl') }).resource<ConfigMap>(ConfigMaps);
    await cms.create(cm('rec-b'));
    const mark = rec.mark();
    await assert.rejects(cms.get('rec-b'), { code: 'ECONNREFUSED' });
    const since = rec.calls({ since: mark });
    assert.equal(since.length, 1);
    assert.equal(since[0]!.status, 0);
    assert.equal(since[0]!.error, 'connect ECONNREFUSED');
    rec.clear();
    assert.deepEqual(rec.calls(), []);
    await cms.delete('rec-b');
    assert.equal(rec.calls()[0]!.seq, 3, 'positions go on after clear');
  });

  it('asserts one write, no writes and an action sequence, listing the calls when it fails', async () => {
    const rec = createRecorder();
    const cms = createClient({ transport: rec.wrap(direct, 'ctl') }).resource<ConfigMap>(ConfigMaps);
    const a = await cms.create(cm('rec-c'));
    const one = rec.expectOneWrite({ who: 'ctl', resource: 'configmaps' });
    assert.equal(one.verb, 'create');
    const mark = rec.mark();
    rec.expectNoWrites({ since: mark });
    await cms.update({ ...a, data: { x: 'y' } });
    assert.throws(
      () => rec.expectNoWrites({ who: 'ctl', since: mark }, 'idle once settled'),
      (err: Error) => err.name === 'AssertionError' && err.message === 'idle once settled: expected 0 writes (who="ctl", since=1), got 1:\n  #2 [ctl] update configmaps default/rec-c -> 200',
    );
    assert.throws(() => rec.expectOneWrite({ who: 'other' }), /expected 1 write \(who="other"\), got 0$/);
    rec.expectWrites({ verb: ['create', 'update'] }, 2);
    rec.expectActions({ who: 'ctl' }, ['create configmaps default/rec-c', 'update configmaps default/rec-c']);
    assert.throws(() => rec.expectActions({}, ['create configmaps default/rec-c']), /the actions differ; expected:\n {2}create configmaps default\/rec-c\ngot:\n {2}#1 \[ctl\] create configmaps default\/rec-c -> 201\n {2}#2/);
    await cms.delete('rec-c');
  });
});
