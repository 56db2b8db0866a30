import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createGroupCommit, type Outcome } from './group-commit.js';

/** A sync the test completes by hand: `pending` holds the syncs started and not yet finished. */
function manualSync(): { sync: () => Promise<void>; pending: Array<{ resolve(): void; reject(err: Error): void }> } {
  const pending: Array<{ resolve(): void; reject(err: Error): void }> = [];
  return {
    pending,
    sync: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
  };
}

/** A "database": a log of committed values, each write returning its value or throwing. */
function log(): { rows: string[]; transaction: (writes: Array<() => string>) => Outcome<string>[] } {
  const rows: string[] = [];
  return {
    rows,
    transaction: (writes) =>
      writes.map((w) => {
        try {
          const v = w();
          rows.push(v);
          return { ok: true, value: v };
        } catch (error) {
          return { ok: false, error };
        }
      }),
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A group commit over a {@link log} with a {@link manualSync}, recording what it publishes. */
function synced() {
  const { sync, pending } = manualSync();
  const db = log();
  const published: string[] = [];
  const g = createGroupCommit({ transaction: db.transaction, committed: (v) => published.push(v), sync });
  return { pending, db, published, g };
}

test('group commit: writes settle only after the sync that follows their commit, in commit order', async () => {
  const { pending, db, published, g } = synced();
  const settled: string[] = [];
  const a = g.submit(() => 'a').then((v) => settled.push(v));
  const b = g.submit((): string => {
    throw new Error('conflict');
  }).catch((e: Error) => settled.push(e.message));
  await turn();
  // Committed (visible in the log), not yet synced: nothing published, nobody answered.
  assert.deepEqual(db.rows, ['a']);
  assert.equal(pending.length, 1);
  assert.equal(published.length, 0);
  assert.equal(settled.length, 0);

  // Two more batches commit while the first sync runs: they wait for one sync of their own.
  const c = g.submit(() => 'c').then((v) => settled.push(v));
  await turn();
  const d = g.submit(() => 'd').then((v) => settled.push(v));
  await turn();
  assert.deepEqual(db.rows, ['a', 'c', 'd']);
  assert.equal(pending.length, 1, 'one sync at a time');

  pending.shift()!.resolve();
  await Promise.all([a, b]);
  assert.deepEqual(settled, ['a', 'conflict']);
  assert.deepEqual(published, ['a']);
  assert.equal(pending.length, 1, 'the batches committed meanwhile share the next sync');
  pending.shift()!.resolve();
  await Promise.all([c, d]);
  assert.deepEqual(settled, ['a', 'conflict', 'c', 'd']);
  assert.deepEqual(published, ['a', 'c', 'd']);
  assert.equal(g.syncs(), 2);
});

test('group commit: values committed outside the queue are published in commit order after the sync', async () => {
  const { pending, published, g } = synced();
  const a = g.submit(() => 'a');
  await turn();
  const outside = g.committedOutside(['expired-1', 'expired-2']);
  const b = g.submit(() => 'b');
  await turn();
  pending.shift()!.resolve();
  await a;
  await turn();
  assert.deepEqual(published, ['a']);
  pending.shift()!.resolve();
  await Promise.all([outside, b]);
  assert.deepEqual(published, ['a', 'expired-1', 'expired-2', 'b']);
});

test('group commit: a failed sync rejects the writes waiting for it and every later one', async () => {
  const { pending, db, published, g } = synced();
  const a = g.submit(() => 'a');
  await turn();
  pending.shift()!.reject(new Error('EIO'));
  await assert.rejects(a, /EIO/);
  await assert.rejects(g.submit(() => 'b'), /EIO/);
  assert.deepEqual(db.rows, ['a'], 'nothing is written after a failed sync');
  assert.equal(published.length, 0);
  await g.drain();
});

test('group commit: drain commits the queue and waits for its sync', async () => {
  const { sync, pending } = manualSync();
  const db = log();
  const g = createGroupCommit({ transaction: db.transaction, committed: () => {}, sync });
  let done = false;
  const a = g.submit(() => 'a').then(() => (done = true));
  const drained = g.drain();
  assert.deepEqual(db.rows, ['a']);
  assert.equal(done, false);
  pending.shift()!.resolve();
  await drained;
  await a;
  assert.equal(done, true);
});

test('group commit: without a sync, writes settle at their commit', async () => {
  const db = log();
  const published: string[] = [];
  const g = createGroupCommit({ transaction: db.transaction, committed: (v) => published.push(v) });
  assert.deepEqual(await Promise.all([g.submit(() => 'a'), g.submit(() => 'b')]), ['a', 'b']);
  assert.deepEqual(published, ['a', 'b']);
  assert.equal(g.syncs(), 0);
});
