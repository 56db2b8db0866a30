import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { createStore, objectKey, type IndexFunc } from './store.js';

const obj = (name: string, rv: string, team?: string): KubeObject => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv, uid: `uid-${name}`, labels: team === undefined ? {} : { team } },
});

/** An index by the `team` label that throws for objects without one, or for everyone once `broken` is set. */
function teamIndex() {
  const state = { broken: false };
  const fn: IndexFunc = (o) => {
    const team = o.metadata?.labels?.team;
    if (state.broken || team === undefined) throw new Error(`no team for ${o.metadata?.name}`);
    return [team];
  };
  return { fn, state };
}

describe('store: index functions that throw', () => {
  it('stores the object, files it in the other indexes, and reports the index and key', () => {
    const errors: string[] = [];
    const { fn } = teamIndex();
    const store = createStore({ indexers: { byTeam: fn }, onIndexError: (err, index, key) => errors.push(`${index} ${key} ${(err as Error).message}`) });
    store.apply({ type: 'apply', object: obj('a', '1', 'red') });
    store.apply({ type: 'apply', object: obj('b', '2') });
    assert.equal(store.size(), 2);
    assert.ok(store.get('ns/b'));
    assert.deepEqual(store.byIndex('byTeam', 'red').map(objectKey), ['ns/a']);
    assert.deepEqual(store.byIndex('byNamespace', 'ns').map(objectKey).sort(), ['ns/a', 'ns/b']);
    assert.deepEqual(errors, ['byTeam ns/b no team for b']);
    // It gets a team later: filed then.
    store.apply({ type: 'apply', object: obj('b', '3', 'red') });
    assert.deepEqual(store.byIndex('byTeam', 'red').map(objectKey).sort(), ['ns/a', 'ns/b']);
  });

  it('removes an object from an index whose function throws only now (found by identity)', () => {
    const { fn, state } = teamIndex();
    const store = createStore({ indexers: { byTeam: fn }, onIndexError: () => {} });
    store.apply({ type: 'apply', object: obj('a', '1', 'red') });
    store.apply({ type: 'apply', object: obj('b', '2', 'red') });
    state.broken = true;
    store.apply({ type: 'delete', object: obj('a', '3', 'red') });
    store.apply({ type: 'apply', object: obj('b', '4', 'blue') });
    state.broken = false;
    assert.deepEqual(store.byIndex('byTeam', 'red'), [], 'no stale entry for the deleted or the changed object');
    assert.deepEqual(store.byIndex('byTeam', 'blue'), [], 'the new version could not be indexed');
    assert.deepEqual(store.listKeys(), ['ns/b']);
  });

  it('treats a result that is not an array as an error, not as a list of characters', () => {
    const errors: string[] = [];
    const store = createStore({
      indexers: { byName: ((o: KubeObject) => o.metadata!.name) as unknown as IndexFunc },
      onIndexError: (err) => errors.push(String(err)),
    });
    store.apply({ type: 'apply', object: obj('abc', '1') });
    assert.deepEqual(store.byIndex('byName', 'a'), []);
    assert.deepEqual(errors, ['TypeError: index function byName returned string, not an array of strings']);
  });

  it('completes a relist and addIndexer over content with objects the function throws on', () => {
    const errors: string[] = [];
    const store = createStore({ onIndexError: (_err, index, key) => errors.push(`${index} ${key}`) });
    for (const e of [{ type: 'init' }, { type: 'initApply', object: obj('a', '1', 'red') }, { type: 'initApply', object: obj('b', '2') }, { type: 'initApply', object: obj('c', '3', 'red') }, { type: 'initDone' }] as const) {
      store.apply(e);
    }
    const { fn } = teamIndex();
    store.addIndexer('byTeam', fn);
    assert.deepEqual(store.byIndex('byTeam', 'red').map(objectKey).sort(), ['ns/a', 'ns/c']);
    assert.deepEqual(errors, ['byTeam ns/b']);
    // A relist rebuilds the index the same way.
    for (const e of [{ type: 'init' }, { type: 'initApply', object: obj('b', '5') }, { type: 'initApply', object: obj('d', '6', 'red') }, { type: 'initDone' }] as const) {
      store.apply(e);
    }
    assert.deepEqual(store.byIndex('byTeam', 'red').map(objectKey), ['ns/d']);
    assert.deepEqual(store.listKeys().sort(), ['ns/b', 'ns/d']);
    assert.deepEqual(errors, ['byTeam ns/b', 'byTeam ns/b']);
  });

  it('without onIndexError, logs instead of throwing', () => {
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const store = createStore({ indexers: { byTeam: teamIndex().fn } });
      store.apply({ type: 'apply', object: obj('b', '1') });
      assert.equal(store.size(), 1);
    } finally {
      console.error = original;
    }
    assert.equal(logged.length, 1);
    assert.match(String(logged[0]![0]), /^panic: no team for b \[recovered\] in indexer \(key="ns\/b" name="byTeam"\)$/);
  });
});
