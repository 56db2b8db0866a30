import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { createOwnWrites } from './own-writes.js';

const obj = (rv: string, uid = 'u', note = ''): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name: 'x', namespace: 'ns', uid, resourceVersion: rv, annotations: { note } } });

describe('own writes', () => {
  it('starts from the last write while the cache shows a version of its chain, then from the cache', () => {
    const w = createOwnWrites<KubeObject>();
    const v10 = obj('10');
    assert.equal(w.latest('ns/x', v10), v10, 'nothing written yet');
    const v12 = obj('12', 'u', 'first');
    w.wrote('ns/x', '10', v12);
    assert.equal(w.latest('ns/x', v10), v12, 'cache behind the write');
    const v15 = obj('15', 'u', 'second');
    w.wrote('ns/x', '12', v15); // based on the remembered write
    assert.equal(w.latest('ns/x', v10), v15);
    assert.equal(w.latest('ns/x', obj('12')), v15, 'cache at an intermediate own version');
    assert.ok(w.isOwn('ns/x', obj('12')));
    assert.ok(w.isOwn('ns/x', obj('15')));
    assert.ok(!w.isOwn('ns/x', obj('10')), 'the base version is not ours');
    const cached15 = obj('15');
    assert.equal(w.latest('ns/x', cached15), cached15, 'cache caught up: the cache copy');
    assert.equal(w.latest('ns/x', v10), v10, 'the record is gone once caught up');
  });

  it('drops the record when someone else wrote, or the object was recreated', () => {
    const w = createOwnWrites<KubeObject>();
    w.wrote('ns/x', '10', obj('12'));
    const foreign = obj('13');
    assert.equal(w.latest('ns/x', foreign), foreign);
    assert.ok(!w.isOwn('ns/x', obj('12')));
    w.wrote('ns/x', '20', obj('21'));
    const recreated = obj('20', 'other-uid');
    assert.equal(w.latest('ns/x', recreated), recreated, 'another object under the same name');
    w.wrote('ns/x', '30', obj('31'));
    w.forget('ns/x');
    const v30 = obj('30');
    assert.equal(w.latest('ns/x', v30), v30);
  });
});
