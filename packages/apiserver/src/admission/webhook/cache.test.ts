import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { eventually } from '@kplane/api/testing';
import { followedList, type Followable } from './cache.js';

const obj = (name: string, rv: number): KubeObject => ({ metadata: { name, resourceVersion: String(rv) } });

test('a followed list starts from a list, then follows the watch, and relists when the watch fails', async () => {
  let lists = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const events: { type: string; object: KubeObject; revision: number }[][] = [
    [
      { type: 'ADDED', object: obj('b', 2), revision: 2 },
      { type: 'DELETED', object: obj('a', 3), revision: 3 },
    ],
  ];
  const store: Followable = {
    async list() {
      lists++;
      return lists === 1 ? { items: [obj('a', 1)], metadata: { resourceVersion: '1' } } : { items: [obj('c', 9)], metadata: { resourceVersion: '9' } };
    },
    cache: {
      async *watch(_rv, signal) {
        const batch = events.shift();
        if (!batch) {
          await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
          return;
        }
        for (const e of batch) yield e;
        await released;
        throw new Error('too old resource version');
      },
    },
  };
  const errors: unknown[] = [];
  const list = followedList((e) => errors.push(e));
  await list.start(store);
  assert.ok(['a', 'b'].includes(list.items()[0]!.metadata!.name!));
  await eventually('followed the watch', async () => (list.items().map((o) => o.metadata?.name).join() === 'b' ? true : undefined));
  assert.equal(errors.length, 0);
  release();
  await eventually('relisted', async () => (list.items()[0]?.metadata?.name === 'c' ? true : undefined));
  assert.equal(lists, 2);
  assert.equal(errors.length, 1);
  list.stop();
});
