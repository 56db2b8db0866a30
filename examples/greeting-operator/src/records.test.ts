import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeClock } from '@kplane/runtime';
import { fileRecords, formatRecords, parseRecords } from './records.js';

test('the file: one record a line, sorted by host, comments and blank lines skipped', () => {
  const records = parseRecords('# zone\nb.apps.example.com demo/b\n\na.apps.example.com demo/a # first\n');
  assert.deepEqual([...records], [['demo/b', 'b.apps.example.com'], ['demo/a', 'a.apps.example.com']]);
  assert.equal(formatRecords(records), 'a.apps.example.com demo/a\nb.apps.example.com demo/b\n');
});

test('upsert and remove write only on a change, one at a time, after the latency', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'greeting-records-'));
  try {
    const clock = createFakeClock();
    const path = join(dir, 'sub', 'records');
    const store = fileRecords(path, { latencyMs: 500, clock });
    const first = store.upsert('demo/a', 'a.apps.example.com');
    const second = store.upsert('demo/b', 'b.apps.example.com');
    const read = () => readFile(path, 'utf8').catch(() => '');
    while (clock.pendingTimers() === 0) await new Promise((r) => setImmediate(r));
    assert.equal(await read(), '', 'nothing written before the latency');
    await clock.advanceAsync(500);
    assert.equal(await first, true);
    while (clock.pendingTimers() === 0) await new Promise((r) => setImmediate(r));
    await clock.advanceAsync(500);
    assert.equal(await second, true);
    assert.equal(await read(), 'a.apps.example.com demo/a\nb.apps.example.com demo/b\n');
    assert.equal(await store.upsert('demo/a', 'a.apps.example.com'), false, 'unchanged: no write, no wait');
    assert.equal(await store.remove('demo/zzz'), false);
    const removing = store.remove('demo/a');
    while (clock.pendingTimers() === 0) await new Promise((r) => setImmediate(r));
    await clock.advanceAsync(500);
    assert.equal(await removing, true);
    assert.deepEqual([...(await store.list())], [['demo/b', 'b.apps.example.com']]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
