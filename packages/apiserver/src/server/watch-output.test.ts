import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { afterFlush, gapAfterPass, GAP_AFTER_WATCHES, isPushable, MAX_PASS_GAP_MS, PUSH_TO, WatchOutbox, withStreamEnd, type PushableStream } from './watch-output.js';

/** The end of the flush pass scheduled now. */
const pass = afterFlush;

/** A target that records what it is given and answers `write` with `room()`. */
function recorder(room: () => boolean = () => true) {
  const writes: Uint8Array[] = [];
  let ends = 0;
  return {
    writes,
    get ends() {
      return ends;
    },
    target: {
      write(chunk: Uint8Array) {
        writes.push(chunk);
        return room();
      },
      end() {
        ends++;
      },
    },
  };
}

const text = (chunks: Uint8Array[]) => chunks.map((c) => Buffer.from(c).toString('utf8'));

describe('WatchOutbox, pushed', () => {
  it('writes what a turn brought as one chunk, and the same bytes to every outbox that holds the same parts', async () => {
    const a = new WatchOutbox();
    const b = new WatchOutbox();
    const ra = recorder();
    const rb = recorder();
    a.pushTo(ra.target);
    b.pushTo(rb.target);
    const parts = ['{"n":1}\n', '{"n":2}\n', '{"n":3}\n'].map((s) => Buffer.from(s));
    for (const p of parts) {
      a.push(p);
      b.push(p);
    }
    assert.equal(ra.writes.length, 0, 'nothing is written before the pass');
    await pass();
    assert.deepEqual(text(ra.writes), ['{"n":1}\n{"n":2}\n{"n":3}\n']);
    assert.equal(rb.writes[0], ra.writes[0], 'one join for both');
    // A single part is written as it is.
    a.push(parts[0]!);
    await pass();
    assert.equal(ra.writes[1], parts[0]);
  });

  it('waits for ready() when the target is full, then writes the rest; ends once after the last chunk', async () => {
    const deliveries = { queued: 0 };
    const out = new WatchOutbox(deliveries);
    let room = false;
    const r = recorder(() => room);
    const control = out.pushTo(r.target);
    out.push(Buffer.from('a\n'));
    await pass();
    assert.deepEqual(text(r.writes), ['a\n']);
    out.push(Buffer.from('b\n'));
    out.push(Buffer.from('c\n'));
    out.close();
    await pass();
    assert.deepEqual(text(r.writes), ['a\n'], 'no write while the target is full');
    assert.equal(deliveries.queued, 2);
    assert.equal(r.ends, 0);
    room = true;
    control.ready();
    await pass();
    assert.deepEqual(text(r.writes), ['a\n', 'b\nc\n']);
    assert.equal(r.ends, 1);
    assert.equal(deliveries.queued, 0);
    control.cancel();
    await pass();
    assert.equal(r.ends, 1, 'end() is called once');
  });

  it('a cancelled outbox drops what it held and ends', async () => {
    const deliveries = { queued: 0 };
    const out = new WatchOutbox(deliveries);
    const r = recorder(() => false);
    const control = out.pushTo(r.target);
    out.push(Buffer.from('a\n'));
    await pass();
    out.push(Buffer.from('b\n'));
    control.cancel();
    await pass();
    assert.deepEqual(text(r.writes), ['a\n']);
    assert.equal(r.ends, 1);
    assert.equal(deliveries.queued, 0);
    out.push(Buffer.from('c\n'));
    await pass();
    assert.equal(r.writes.length, 1, 'nothing after the end');
  });

  it('tells the producer of room through below() and onRoom once a full outbox was written', async () => {
    const out = new WatchOutbox();
    const r = recorder();
    out.pushTo(r.target);
    while (!out.full) out.push(Buffer.from('x\n'));
    let told = 0;
    out.onRoom = () => told++;
    const below = out.below();
    await pass();
    await below;
    assert.equal(told, 1);
    assert.equal(out.full, false);
  });
});

describe('withStreamEnd', () => {
  it('keeps a pushable stream pushable and calls onEnd once when it ends', async () => {
    const out = new WatchOutbox();
    const inner: PushableStream = { [Symbol.asyncIterator]: () => out[Symbol.asyncIterator](), [PUSH_TO]: (t) => out.pushTo(t) };
    let ended = 0;
    const wrapped = withStreamEnd(inner, () => ended++);
    assert.ok(isPushable(wrapped));
    const r = recorder();
    const control = wrapped[PUSH_TO](r.target);
    out.push(Buffer.from('a\n'));
    out.close();
    await pass();
    assert.deepEqual(text(r.writes), ['a\n']);
    assert.equal(r.ends, 1);
    assert.equal(ended, 1);
    control.cancel();
    await pass();
    assert.equal(ended, 1);
  });

  it('wraps a stream that can only be pulled as a generator that calls onEnd when read or closed', async () => {
    let ended = 0;
    const wrapped = withStreamEnd((async function* () {
      yield Buffer.from('a');
      yield Buffer.from('b');
    })(), () => ended++);
    assert.equal(isPushable(wrapped), false);
    const it = wrapped[Symbol.asyncIterator]();
    assert.equal(Buffer.from((await it.next()).value as Uint8Array).toString(), 'a');
    await it.return?.();
    assert.equal(ended, 1);
  });
});

describe('gapAfterPass', () => {
  it('pauses after a pass of many watches, in proportion to its length and capped', () => {
    assert.equal(gapAfterPass(GAP_AFTER_WATCHES + 1, 2), 4);
    assert.equal(gapAfterPass(2000, 50), MAX_PASS_GAP_MS);
  });
  it('never pauses after a pass of a few watches, however long (an informer reading its first list)', () => {
    assert.equal(gapAfterPass(1, 30), 0);
    assert.equal(gapAfterPass(GAP_AFTER_WATCHES, 30), 0);
  });
});
