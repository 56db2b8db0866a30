import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ContainerLogs, logTimestamp } from './container-log.js';

const T0 = Date.parse('2025-06-01T12:00:00Z');

async function all(it: AsyncIterable<string> | { reason: string }): Promise<string> {
  assert.ok(Symbol.asyncIterator in it, JSON.stringify(it));
  let s = '';
  for await (const c of it as AsyncIterable<string>) s += c;
  return s;
}

describe('container logs', () => {
  it('keeps lines in order, bounded, with tail, since and timestamps', async () => {
    const logs = new ContainerLogs(3);
    for (let i = 1; i <= 5; i++) logs.write('u', 'c', T0 + i * 1000, `line ${i}`);
    assert.equal(await all(logs.read('u', 'c')), 'line 3\nline 4\nline 5\n');
    assert.equal(await all(logs.read('u', 'c', { tailLines: 1 })), 'line 5\n');
    assert.equal(await all(logs.read('u', 'c', { tailLines: 0 })), '');
    assert.equal(await all(logs.read('u', 'c', { sinceMs: T0 + 4000 })), 'line 4\nline 5\n');
    assert.equal(await all(logs.read('u', 'c', { timestamps: true, tailLines: 1 })), '2025-06-01T12:00:05.000000000Z line 5\n');
    assert.equal(logTimestamp(T0 + 1), '2025-06-01T12:00:00.001000000Z');
  });

  it('keeps the previous instance on restart; unknown containers and missing previous are reported', async () => {
    const logs = new ContainerLogs();
    assert.deepEqual(logs.read('u', 'c'), { reason: 'NoContainer' });
    logs.write('u', 'c', T0, 'first run');
    assert.deepEqual(logs.read('u', 'c', { previous: true }), { reason: 'NoPrevious' });
    logs.restart('u', 'c');
    logs.write('u', 'c', T0 + 1, 'second run');
    assert.equal(await all(logs.read('u', 'c', { previous: true })), 'first run\n');
    assert.equal(await all(logs.read('u', 'c')), 'second run\n');
    logs.remove('u');
    assert.deepEqual(logs.read('u', 'c'), { reason: 'NoContainer' });
  });

  it('follows new lines until the instance stops', async () => {
    const logs = new ContainerLogs();
    logs.write('u', 'c', T0, 'a');
    const got: string[] = [];
    const reading = (async () => {
      for await (const c of logs.read('u', 'c', { follow: true }) as AsyncIterable<string>) got.push(c);
    })();
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(got, ['a\n']);
    logs.write('u', 'c', T0 + 1, 'b', 'c');
    await new Promise<void>((r) => setImmediate(r));
    assert.deepEqual(got, ['a\n', 'b\n', 'c\n']);
    logs.stop('u', 'c');
    await reading;
  });

  it('ends every follow when the kubelet stops', async () => {
    const logs = new ContainerLogs();
    logs.write('u', 'c', T0, 'a');
    const reading = all(logs.read('u', 'c', { follow: true }));
    await new Promise<void>((r) => setImmediate(r));
    logs.stopAll();
    assert.equal(await reading, 'a\n');
  });

  it('ends a follow when the reader aborts', async () => {
    const logs = new ContainerLogs();
    logs.write('u', 'c', T0, 'a');
    const ac = new AbortController();
    const reading = all(logs.read('u', 'c', { follow: true, signal: ac.signal }));
    await new Promise<void>((r) => setImmediate(r));
    ac.abort();
    assert.equal(await reading, 'a\n');
  });
});
