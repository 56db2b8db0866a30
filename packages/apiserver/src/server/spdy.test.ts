import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { until } from '@kplane/api/testing';
import { controlFrame, dataFrame, decodeHeaderBlock, encodeHeaderBlock, FrameReader, FrameType, HeaderCodec, MAX_FRAME_LENGTH, SPDY_DICTIONARY, SpdyProtocolError, SpdySession, type SpdyStream } from './spdy.js';
import { TestSpdyClient } from './spdy-client.fixture.js';

describe('SPDY/3.1 framing', () => {
  it('builds the 1423-byte SPDY/3 dictionary: length-prefixed names, then the status and date text', () => {
    assert.equal(SPDY_DICTIONARY.length, 1423);
    assert.deepEqual([...SPDY_DICTIONARY.subarray(0, 11)], [0, 0, 0, 7, ...Buffer.from('options')]);
    assert.equal(SPDY_DICTIONARY.subarray(-7).toString(), ',enq=0.');
  });

  it('splits a byte stream into control and data frames, whatever the chunking', () => {
    const bytes = Buffer.concat([controlFrame(FrameType.PING, 0, Buffer.from([0, 0, 0, 1])), dataFrame(3, Buffer.from('hello'), true), controlFrame(FrameType.RST_STREAM, 0, Buffer.from([0, 0, 0, 3, 0, 0, 0, 5]))]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const r = new FrameReader();
      const frames = [];
      r.push(bytes.subarray(0, cut));
      for (let f = r.next(); f; f = r.next()) frames.push(f);
      r.push(bytes.subarray(cut));
      for (let f = r.next(); f; f = r.next()) frames.push(f);
      assert.equal(frames.length, 3);
      assert.deepEqual(frames[0], { control: true, version: 3, type: FrameType.PING, flags: 0, payload: Buffer.from([0, 0, 0, 1]) });
      assert.deepEqual(frames[1], { control: false, streamId: 3, flags: 1, payload: Buffer.from('hello') });
      assert.equal(frames[2]!.control && frames[2]!.type, FrameType.RST_STREAM);
    }
  });

  it('refuses a frame longer than the limit before reading it', () => {
    const r = new FrameReader();
    const head = Buffer.alloc(8);
    head.writeUInt32BE(1);
    head.writeUIntBE(MAX_FRAME_LENGTH + 1, 5, 3);
    r.push(head);
    assert.throws(() => r.next(), SpdyProtocolError);
  });

  it('encodes header blocks with lowercase names and NUL-joined values, and decodes them back', () => {
    const block = encodeHeaderBlock(new Map([['streamType', ['stdout']], ['port', ['80', '81']]]));
    assert.deepEqual(decodeHeaderBlock(block), new Map([['streamtype', ['stdout']], ['port', ['80', '81']]]));
    assert.throws(() => decodeHeaderBlock(block.subarray(0, block.length - 1)), SpdyProtocolError);
    assert.throws(() => decodeHeaderBlock(Buffer.concat([block, Buffer.from([0])])), SpdyProtocolError);
    assert.throws(() => decodeHeaderBlock(Buffer.from([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0])), /empty header name/);
  });

  it('compresses header blocks in one context per direction, with the dictionary', async () => {
    const d = new HeaderCodec('deflate');
    const i = new HeaderCodec('inflate');
    const blocks = [0, 1, 2].map((n) => encodeHeaderBlock(new Map([['streamtype', [n % 2 ? 'data' : 'error']], ['requestid', [String(n)]]])));
    const compressed = [];
    for (const b of blocks) compressed.push(await d.run(b));
    // The first block carries the zlib header naming the dictionary; later ones continue the stream.
    assert.ok(inflateSync(compressed[0]!, { dictionary: SPDY_DICTIONARY, finishFlush: 2 }).equals(blocks[0]!));
    assert.ok(compressed[2]!.length < blocks[2]!.length);
    for (const [n, c] of compressed.entries()) assert.ok((await i.run(c)).equals(blocks[n]!));
    await assert.rejects(new HeaderCodec('inflate').run(Buffer.from('not zlib at all')), SpdyProtocolError);
    d.close();
    i.close();
  });
});

describe('SpdySession (server side)', () => {
  let server: Server;
  let port: number;
  const sessions: SpdySession[] = [];
  let floodWritten = -1;
  before(async () => {
    server = createServer((socket) => {
      const session = new SpdySession(socket, { maxStreams: 3 });
      sessions.push(session);
      session.on('stream', (s: SpdyStream) => {
        if (s.headers.streamtype === 'refuse') return s.reset();
        s.reply();
        if (s.headers.streamtype === 'echo') s.pipe(s);
        if (s.headers.streamtype === 'bye') session.close();
        if (s.headers.streamtype === 'flood') {
          // Writes until the stream asks to wait; reports how much it took, then ends once drained.
          let written = 0;
          const chunk = Buffer.alloc(64 * 1024, 1);
          while (s.write(chunk) && written < 256 * 1024 * 1024) written += chunk.length;
          floodWritten = written;
          s.once('drain', () => s.end());
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  after(() => server.close());

  const dial = () => new Promise<Socket>((r) => { const s = connect(port, '127.0.0.1', () => r(s)); });

  it('replies to streams, echoes data both ways until FIN, answers pings, resets refused streams', async () => {
    const c = new TestSpdyClient(await dial());
    const echo = c.open({ streamType: 'echo' });
    const big = randomBytes(200_000);
    c.send(echo, big);
    c.send(echo, 'end', true);
    const refused = c.open({ streamType: 'refuse' });
    c.raw(controlFrame(FrameType.PING, 0, Buffer.from([0, 0, 0, 7])));
    c.raw(controlFrame(FrameType.SETTINGS, 0, Buffer.from([0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 9])));
    c.raw(controlFrame(FrameType.WINDOW_UPDATE, 0, Buffer.from([0, 0, 0, 1, 0, 0, 16, 0])));
    await c.until(() => c.streams.get(echo)!.fin && c.streams.get(refused)!.reset !== undefined && c.pings.length === 1);
    assert.ok(c.streams.get(echo)!.replied);
    assert.ok(c.streams.get(echo)!.data.equals(Buffer.concat([big, Buffer.from('end')])));
    assert.equal(c.streams.get(refused)!.reset, 5);
    assert.deepEqual(c.pings, [7]);
    c.close();
  });

  it('refuses streams past the limit, even-numbered ones, and data for unknown streams', async () => {
    const c = new TestSpdyClient(await dial());
    const ids = [c.open({ streamType: 'hold' }), c.open({ streamType: 'hold' }), c.open({ streamType: 'hold' }), c.open({ streamType: 'hold' })];
    c.raw(dataFrame(99, Buffer.from('x')));
    await c.until(() => c.streams.get(ids[3]!)!.reset !== undefined);
    assert.equal(c.streams.get(ids[3]!)!.reset, 3);
    assert.equal(c.streams.get(ids[0]!)!.reset, undefined);
    c.close();
  });

  it('sends GOAWAY and closes when asked, and on a malformed frame', async () => {
    const c = new TestSpdyClient(await dial());
    c.open({ streamType: 'bye' });
    await c.until(() => c.goaway && c.closed);
    const bad = new TestSpdyClient(await dial());
    bad.raw(controlFrame(FrameType.SYN_STREAM, 0, Buffer.concat([Buffer.from([0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), Buffer.from('garbage header block')])));
    await bad.until(() => bad.goaway && bad.closed);
    const v2 = new TestSpdyClient(await dial());
    const head = controlFrame(FrameType.PING, 0, Buffer.from([0, 0, 0, 1]));
    head.writeUInt16BE(0x8002, 0);
    v2.raw(head);
    await v2.until(() => v2.closed);
  });

  it('holds writers back while the peer does not read (backpressure through the connection)', async () => {
    const socket = await dial();
    const c = new TestSpdyClient(socket);
    socket.pause();
    const id = c.open({ streamType: 'flood' });
    // Let the server run until its stream asks to wait.
    await until('the flood to wait', () => floodWritten >= 0, { intervalMs: 0 });
    assert.ok(floodWritten < 64 * 1024 * 1024, `wrote ${floodWritten} bytes before waiting`);
    socket.resume();
    await c.until(() => c.streams.get(id)!.fin);
    assert.ok(c.streams.get(id)!.data.length > floodWritten);
    c.close();
  });

  it('survives random bytes (fuzz): the session ends, the process does not fail', async () => {
    for (let n = 0; n < 40; n++) {
      const c = new TestSpdyClient(await dial());
      // Half the runs start with a valid stream so the garbage lands mid-session.
      if (n % 2) c.open({ streamType: 'echo' });
      const junk = randomBytes(1 + (n * 97) % 3000);
      if (n % 3 === 0) junk[0]! |= 0x80;
      c.raw(junk);
      c.raw(controlFrame(FrameType.PING, 0, Buffer.from([0, 0, 0, 1])));
      c.io.end();
      await c.until(() => c.closed).catch(() => {});
      c.close();
    }
  });
});
