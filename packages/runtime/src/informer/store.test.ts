import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { CONTROLLER_OWNER_INDEX, NAMESPACE_INDEX, createStore, freezeSharing, objectKey, type StoreDelta } from './store.js';
import type { WatcherEvent } from './watcher.js';

const obj = (ns: string | undefined, name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  metadata: { namespace: ns, name, resourceVersion: rv, uid: `uid-${ns}-${name}`, ...extra },
});

const relist = (...objects: KubeObject[]): WatcherEvent[] => [
  { type: 'init' },
  ...objects.map((object) => ({ type: 'initApply' as const, object })),
  { type: 'initDone' },
];

const applyAll = (store: ReturnType<typeof createStore>, events: WatcherEvent[]): StoreDelta[] => events.flatMap((e) => store.apply(e));

const brief = (deltas: StoreDelta[]): string[] =>
  deltas.map((d) => (d.type === 'update' ? `update:${objectKey(d.object)}@${d.old.metadata!.resourceVersion}->${d.object.metadata!.resourceVersion}` : `${d.type}:${objectKey(d.object)}@${d.object.metadata!.resourceVersion}`));

describe('store', () => {
  it('keys by namespace/name or name', () => {
    assert.equal(objectKey(obj('default', 'a', '1')), 'default/a');
    assert.equal(objectKey(obj(undefined, 'node-1', '1')), 'node-1');
  });

  it('reports a relist as its difference, replacing the content in one step', () => {
    const store = createStore();
    assert.deepEqual(brief(applyAll(store, relist(obj('ns', 'a', '1'), obj('ns', 'b', '2'), obj('ns', 'c', '3')))), ['add:ns/a@1', 'add:ns/b@2', 'add:ns/c@3']);
    const b = store.get('ns/b');
    // During the disconnect: a deleted, b unchanged, c changed, d created.
    const events = relist(obj('ns', 'b', '2'), obj('ns', 'c', '7'), obj('ns', 'd', '8'));
    assert.deepEqual(store.apply(events[0]!), []);
    assert.deepEqual(store.apply(events[1]!), []);
    assert.equal(store.size(), 3, 'nothing changes before initDone');
    const deltas = applyAll(store, events.slice(2));
    assert.deepEqual(brief(deltas), ['delete:ns/a@1', 'update:ns/c@3->7', 'add:ns/d@8']);
    assert.deepEqual(store.listKeys().sort(), ['ns/b', 'ns/c', 'ns/d']);
    assert.equal(store.get('ns/b'), b, 'an unchanged object keeps its identity');
  });

  it('reports an object re-created under the same key as delete then add', () => {
    const store = createStore();
    applyAll(store, relist(obj('ns', 'a', '1')));
    const again = obj('ns', 'a', '5', { uid: 'new-uid' });
    assert.deepEqual(brief(applyAll(store, relist(again))), ['delete:ns/a@1', 'add:ns/a@5']);
    assert.deepEqual(brief(store.apply({ type: 'apply', object: obj('ns', 'a', '9', { uid: 'third' }) })), ['delete:ns/a@5', 'add:ns/a@9']);
  });

  it('applies watch events, ignoring replays and deletes of unknown keys', () => {
    const store = createStore();
    applyAll(store, relist());
    assert.deepEqual(brief(store.apply({ type: 'apply', object: obj('ns', 'a', '2') })), ['add:ns/a@2']);
    assert.deepEqual(brief(store.apply({ type: 'apply', object: obj('ns', 'a', '3') })), ['update:ns/a@2->3']);
    assert.deepEqual(store.apply({ type: 'apply', object: obj('ns', 'a', '3') }), []);
    assert.deepEqual(brief(store.apply({ type: 'delete', object: obj('ns', 'a', '4') })), ['delete:ns/a@4']);
    assert.deepEqual(store.apply({ type: 'delete', object: obj('ns', 'a', '4') }), []);
    assert.equal(store.size(), 0);
  });

  it('freezes stored objects deeply', () => {
    const store = createStore();
    const o = obj('ns', 'a', '1', { labels: { app: 'web' } });
    store.apply({ type: 'apply', object: o });
    const got = store.get('ns/a')!;
    assert.ok(Object.isFrozen(got) && Object.isFrozen(got.metadata) && Object.isFrozen(got.metadata!.labels));
    assert.throws(() => {
      (got.metadata!.labels as Record<string, string>)['app'] = 'x';
    }, TypeError);
  });

  it('maintains the namespace, controller-owner and custom indexes', () => {
    const owner = (uid: string, controller: boolean) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller });
    const store = createStore({ indexers: { byApp: (o) => (o.metadata?.labels?.['app'] ? [o.metadata.labels['app']] : []) } });
    applyAll(store, relist(
      obj('a', 'p1', '1', { ownerReferences: [owner('rs-1', true)], labels: { app: 'web' } }),
      obj('a', 'p2', '2', { ownerReferences: [owner('rs-1', false), owner('rs-2', true)], labels: { app: 'db' } }),
      obj('b', 'p3', '3', { ownerReferences: [owner('rs-1', true)], labels: { app: 'web' } }),
      obj(undefined, 'node', '4'),
    ));
    const names = (os: KubeObject[]) => os.map(objectKey).sort();
    assert.deepEqual(names(store.byIndex(NAMESPACE_INDEX, 'a')), ['a/p1', 'a/p2']);
    assert.deepEqual(names(store.byIndex(NAMESPACE_INDEX, '')), ['node']);
    assert.deepEqual(names(store.byIndex(CONTROLLER_OWNER_INDEX, 'rs-1')), ['a/p1', 'b/p3']);
    assert.deepEqual(names(store.byIndex(CONTROLLER_OWNER_INDEX, 'rs-2')), ['a/p2']);
    assert.deepEqual(names(store.byIndex('byApp', 'web')), ['a/p1', 'b/p3']);
    // Updates move entries between index values; deletes remove them.
    store.apply({ type: 'apply', object: obj('a', 'p1', '5', { labels: { app: 'db' } }) });
    store.apply({ type: 'delete', object: obj('b', 'p3', '6') });
    assert.deepEqual(names(store.byIndex('byApp', 'web')), []);
    assert.deepEqual(names(store.byIndex('byApp', 'db')), ['a/p1', 'a/p2']);
    assert.deepEqual(store.indexKeys(CONTROLLER_OWNER_INDEX, 'rs-1'), []);
    // An index added later covers the existing content; a relist rebuilds every index.
    store.addIndexer('byName', (o) => [o.metadata!.name!]);
    assert.deepEqual(store.indexKeys('byName', 'p2'), ['a/p2']);
    applyAll(store, relist(obj('c', 'p2', '9')));
    assert.deepEqual(store.indexKeys('byName', 'p2'), ['c/p2']);
    assert.deepEqual(store.indexKeys(NAMESPACE_INDEX, 'a'), []);
    assert.throws(() => store.byIndex('nope', 'x'), /Index with name nope does not exist/);
    assert.throws(() => store.addIndexer('byName', () => []), /indexer conflict: byName/);
  });

  it('shares the parts an object has in common with the one stored before it', () => {
    const store = createStore();
    const make = (name: string, rv: string, owner: string) => ({
      metadata: { namespace: 'ns', name, resourceVersion: rv, uid: `uid-${name}`, labels: { app: 'web', tier: 'front' }, creationTimestamp: '2026-01-01T00:00:00Z' },
      data: { config: 'x'.repeat(200), owner },
      list: [{ a: 1 }, { b: [2, 3] }],
    });
    const inputs = [make('a', '1', 'team'), make('b', '2', 'team'), make('c', '3', 'other')];
    const copies = structuredClone(inputs);
    applyAll(store, relist(...(inputs as KubeObject[])));
    const [a, b, c] = ['ns/a', 'ns/b', 'ns/c'].map((k) => store.get(k) as unknown as (typeof inputs)[0]);
    assert.deepEqual([a, b, c], copies, 'stored objects equal what was received');
    assert.equal(b!.metadata.labels, a!.metadata.labels, 'equal labels are one object');
    assert.equal(b!.data, a!.data, 'equal data is one object');
    assert.equal(b!.list, a!.list, 'equal arrays are one array');
    assert.notEqual(c!.data, b!.data, 'different data is not shared');
    assert.equal(c!.list, b!.list);
    assert.notEqual(b!.metadata, a!.metadata);
    // Equal strings in parts that differ are still one string (V8 cannot show identity of strings: check via the parts).
    assert.ok(Object.isFrozen(c!.data) && Object.isFrozen(c!.list[1]!.b));
  });

  it('freezeSharing compares entries, ignores unfrozen siblings and never assigns __proto__', () => {
    const sibling = Object.freeze({ m: Object.freeze({ x: '1', y: '2' }) });
    const reordered = { m: { y: '2', x: '1' } };
    assert.equal(freezeSharing(reordered, sibling), sibling, 'the same entries in another order are equal');
    const more = { m: { x: '1', y: '2', z: '3' } };
    assert.notEqual(freezeSharing(more, sibling).m, sibling.m, 'an extra key is a difference');
    const fewer = { m: { x: '1' } };
    assert.notEqual(freezeSharing(fewer, sibling).m, sibling.m, 'a missing key is a difference');
    const equal = { m: { x: '1', y: '2' } };
    assert.equal(freezeSharing(equal, sibling), sibling, 'a wholly equal object is the sibling');
    const notFrozen = { m: { x: '1', y: '2' } };
    const other = { m: { x: '1', y: '2' } };
    assert.notEqual(freezeSharing(other, notFrozen).m, notFrozen.m, 'only frozen (stored) siblings are shared');
    const evil = JSON.parse('{"__proto__":{"polluted":true},"a":"b"}') as Record<string, unknown>;
    const frozen = freezeSharing(evil, Object.freeze(JSON.parse('{"__proto__":{"polluted":true},"a":"b"}')));
    assert.equal(Object.getPrototypeOf(frozen), Object.prototype);
    assert.ok(Object.isFrozen(frozen) && Object.isFrozen(frozen['__proto__']));
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});
