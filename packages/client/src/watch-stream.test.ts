import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Status, WatchEvent } from '@kplane/api';
import { decodeWatchEventBatches, decodeWatchEvents, splitLines } from './watch-stream.js';

async function* chunksOf(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  const enc = new TextEncoder();
  for (const p of parts) yield typeof p === 'string' ? enc.encode(p) : p;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const events: WatchEvent[] = [
  { type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '1' }, data: { k: 'héllo ✓ 😀' } } },
  { type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '2' } } },
  { type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '3' } } },
  { type: 'DELETED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '4' } } },
];
const wire = new TextEncoder().encode(events.map((e) => JSON.stringify(e) + '\n').join(''));

test('several events in one chunk', async () => {
  assert.deepEqual(await collect(decodeWatchEvents(chunksOf(wire))), events);
});

test('events split at every possible byte boundary (including inside multi-byte characters)', async () => {
  for (let cut = 1; cut < wire.byteLength; cut++) {
    const got = await collect(decodeWatchEvents(chunksOf(wire.slice(0, cut), wire.slice(cut))));
    assert.deepEqual(got, events, `split at ${cut}`);
  }
});

test('batches hold the complete events of each chunk, an event split across chunks in the batch that completes it', async () => {
  const lines = events.map((e) => JSON.stringify(e) + '\n');
  const firstTwo = lines[0]! + lines[1]!;
  const third = lines[2]!;
  const batches = await collect(decodeWatchEventBatches(chunksOf(firstTwo + third.slice(0, 10), third.slice(10) + lines[3]!)));
  assert.deepEqual(batches, [[events[0], events[1]], [events[2], events[3]]]);
  // A chunk without a complete event yields no (empty) batch.
  const split = await collect(decodeWatchEventBatches(chunksOf(third.slice(0, 5), third.slice(5, 9), third.slice(9))));
  assert.deepEqual(split, [[events[2]]]);
});

test('one byte per chunk', async () => {
  const parts = Array.from(wire, (b) => Uint8Array.of(b));
  assert.deepEqual(await collect(decodeWatchEvents(chunksOf(...parts))), events);
});

test('blank lines, CRLF and a final frame without newline are handled', async () => {
  const a = JSON.stringify(events[0]);
  const b = JSON.stringify(events[1]);
  assert.deepEqual(await collect(decodeWatchEvents(chunksOf('\n', a, '\r\n\n', b))), [events[0], events[1]]);
});

test('splitLines yields raw lines across chunks', async () => {
  const dec = new TextDecoder();
  const lines = (await collect(splitLines(chunksOf('ab', 'c\nde', '\n\nf')))).map((l) => dec.decode(l));
  assert.deepEqual(lines, ['abc', 'de', '', 'f']);
});

test('an undecodable frame ends the stream with an ERROR event carrying a 500 Status', async () => {
  const got = await collect(decodeWatchEvents(chunksOf(JSON.stringify(events[0]) + '\n{not json\n' + JSON.stringify(events[1]) + '\n')));
  assert.equal(got.length, 2);
  assert.deepEqual(got[0], events[0]);
  assert.equal(got[1]!.type, 'ERROR');
  const status = got[1]!.object as unknown as Status;
  assert.equal(status.kind, 'Status');
  assert.equal(status.code, 500);
  assert.equal(status.reason, 'InternalError');
  assert.match(status.message!, /^an error on the server \("unable to decode an event from the watch stream: .+"\) has prevented the request from succeeding$/);
  assert.deepEqual(status.details!.causes!.map((c) => c.reason), ['UnexpectedServerResponse', 'ClientWatchDecoding']);
});

test('a JSON frame that is not an event is reported as a decode error', async () => {
  const got = await collect(decodeWatchEvents(chunksOf('{"kind":"ConfigMap"}\n')));
  assert.equal(got.length, 1);
  assert.equal(got[0]!.type, 'ERROR');
});
