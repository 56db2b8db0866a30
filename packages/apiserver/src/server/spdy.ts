/**
 * SPDY/3.1 as the streaming subresources use it (kubectl's and client-go's fallback protocol,
 * and the protocol kubectl's port-forward tunnels inside a websocket): frames, header blocks
 * compressed with zlib and SPDY/3's dictionary (one compression context per direction for the
 * whole connection), and a server session whose peer opens the streams. Like the Go library the
 * Kubernetes clients use, there is no flow control: WINDOW_UPDATE and SETTINGS are read and
 * ignored, and data is never held back for a window.
 */
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';

/** The header names of SPDY/3's compression dictionary, each written with a 32-bit length before it. */
const DICTIONARY_WORDS = [
  'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language',
  'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding',
  'content-language', 'content-length', 'content-location', 'content-md5', 'content-range', 'content-type', 'date', 'etag',
  'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since',
  'last-modified', 'location', 'max-forwards', 'pragma', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer',
  'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning',
  'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public', 'set-cookie', 'keep-alive',
  'origin',
];

/** The text that ends SPDY/3's dictionary, without length prefixes. */
const DICTIONARY_TAIL =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
  '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,' +
  'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

/** SPDY/3's zlib dictionary for header blocks (1423 bytes). */
export const SPDY_DICTIONARY: Buffer = Buffer.concat([
  ...DICTIONARY_WORDS.map((w) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(w.length);
    return Buffer.concat([len, Buffer.from(w, 'latin1')]);
  }),
  Buffer.from(DICTIONARY_TAIL, 'latin1'),
]);

/** Control frame types. */
export const FrameType = { SYN_STREAM: 1, SYN_REPLY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, HEADERS: 8, WINDOW_UPDATE: 9 } as const;
/** RST_STREAM status codes. */
export const RstStatus = { PROTOCOL_ERROR: 1, INVALID_STREAM: 2, REFUSED_STREAM: 3, CANCEL: 5, INTERNAL_ERROR: 6, STREAM_IN_USE: 8, STREAM_ALREADY_CLOSED: 9, FRAME_TOO_LARGE: 11 } as const;
/** The FIN flag (data and control frames). */
export const FLAG_FIN = 0x01;
/** The largest frame payload read; bigger ones end the session (SPDY allows 2^24 - 1). */
export const MAX_FRAME_LENGTH = 1 << 20;
/** The most header bytes one block may decompress to. */
export const MAX_HEADER_BLOCK = 256 * 1024;
/** Data frames written are cut at this size. */
const DATA_CHUNK = 32 * 1024;
/** How long a closed session waits for the peer to close the connection before dropping it. */
const CLOSE_GRACE_MS = 5000;

/** A frame's header and undecoded payload. */
export type RawFrame =
  | { control: false; streamId: number; flags: number; payload: Buffer }
  | { control: true; version: number; type: number; flags: number; payload: Buffer };

/** Header name → values, names lowercase as SPDY writes them. */
export type SpdyHeaders = Map<string, string[]>;

/** Why a session failed: a malformed frame or header block. */
export class SpdyProtocolError extends Error {}

/** Splits a byte stream into frames; `push` chunks, then `next()` until it gives undefined. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  /** Appends received bytes. */
  push(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
  }

  /** The next complete frame, or undefined until more bytes arrive (throws on a frame too long). */
  next(): RawFrame | undefined {
    if (this.buf.length < 8) return undefined;
    const length = this.buf.readUIntBE(5, 3);
    if (length > MAX_FRAME_LENGTH) throw new SpdyProtocolError(`frame of ${length} bytes is over the ${MAX_FRAME_LENGTH} byte limit`);
    if (this.buf.length < 8 + length) return undefined;
    const first = this.buf.readUInt32BE(0);
    const flags = this.buf[4]!;
    const payload = this.buf.subarray(8, 8 + length);
    this.buf = this.buf.subarray(8 + length);
    if (first & 0x80000000) return { control: true, version: (first >>> 16) & 0x7fff, type: first & 0xffff, flags, payload };
    return { control: false, streamId: first & 0x7fffffff, flags, payload };
  }
}

/** Encodes a header block (uncompressed): pair count, then length-prefixed names and NUL-joined values. */
export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [u32(headers.size)];
  for (const [name, values] of headers) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(values.join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

/** Decodes an uncompressed header block (throws SpdyProtocolError when malformed). */
export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  const headers: SpdyHeaders = new Map();
  let at = 0;
  const take = (): Buffer => {
    if (at + 4 > block.length) throw new SpdyProtocolError('truncated header block');
    const len = block.readUInt32BE(at);
    at += 4;
    if (at + len > block.length) throw new SpdyProtocolError('truncated header block');
    const b = block.subarray(at, at + len);
    at += len;
    return b;
  };
  if (block.length < 4) throw new SpdyProtocolError('truncated header block');
  const count = block.readUInt32BE(0);
  at = 4;
  for (let i = 0; i < count; i++) {
    const name = take().toString('utf8');
    if (name.length === 0) throw new SpdyProtocolError('empty header name');
    const values = take().toString('utf8').split('\0');
    headers.set(name.toLowerCase(), [...(headers.get(name.toLowerCase()) ?? []), ...values]);
  }
  if (at !== block.length) throw new SpdyProtocolError('trailing bytes after the header block');
  return headers;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** A control frame with the given payload. */
export function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE((0x8000 | 3) * 0x10000 + type);
  head[4] = flags;
  head.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([head, payload]);
}

/** A data frame. */
export function dataFrame(streamId: number, data: Buffer, fin = false): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff);
  head[4] = fin ? FLAG_FIN : 0;
  head.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([head, data]);
}

/** One direction's header compression context (zlib with SPDY/3's dictionary, a sync flush per block). */
export class HeaderCodec {
  private readonly zlib: Inflate | Deflate;
  private failed: Error | undefined;

  constructor(direction: 'inflate' | 'deflate') {
    this.zlib = direction === 'inflate' ? createInflate({ dictionary: SPDY_DICTIONARY }) : createDeflate({ dictionary: SPDY_DICTIONARY });
    this.zlib.on('error', (err) => (this.failed = err));
  }

  /** Runs one header block through the context; calls must not overlap (the session orders them). */
  run(block: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.failed) return reject(new SpdyProtocolError(`header block: ${this.failed.message}`));
      const out: Buffer[] = [];
      let size = 0;
      const onData = (c: Buffer) => {
        out.push(c);
        size += c.length;
      };
      const onError = (err: Error) => {
        this.zlib.off('data', onData);
        reject(new SpdyProtocolError(`header block: ${err.message}`));
      };
      this.zlib.on('data', onData);
      this.zlib.once('error', onError);
      this.zlib.write(block);
      this.zlib.flush(constants.Z_SYNC_FLUSH, () => {
        this.zlib.off('data', onData);
        this.zlib.off('error', onError);
        if (this.failed) return;
        if (size > MAX_HEADER_BLOCK) return reject(new SpdyProtocolError(`header block over ${MAX_HEADER_BLOCK} bytes`));
        resolve(Buffer.concat(out));
      });
    });
  }

  /** Frees the zlib context. */
  close(): void {
    this.zlib.destroy();
  }
}

/** A stream the peer opened: readable is what it sends, writable what we send back. */
export class SpdyStream extends Duplex {
  /** The peer's headers, names lowercase, the first value of each. */
  readonly headers: Record<string, string>;
  private replied = false;
  private localFin = false;
  private remoteFin = false;

  constructor(
    readonly id: number,
    headers: SpdyHeaders,
    private readonly session: SpdySession,
    remoteFin: boolean,
  ) {
    super({ allowHalfOpen: true });
    this.headers = Object.fromEntries([...headers].map(([k, v]) => [k, v[0] ?? '']));
    if (remoteFin) this.onRemoteFin();
  }

  /** Accepts the stream (SYN_REPLY with no headers); data written before is sent after it. */
  reply(): void {
    if (this.replied) return;
    this.replied = true;
    this.session.sendHeaders(FrameType.SYN_REPLY, this.id, new Map(), false);
  }

  /** Refuses or aborts the stream with RST_STREAM. */
  reset(status: number = RstStatus.CANCEL): void {
    if (!this.localFin || !this.remoteFin) this.session.send(controlFrame(FrameType.RST_STREAM, 0, Buffer.concat([u32(this.id), u32(status)])));
    this.localFin = this.remoteFin = true;
    this.session.forget(this.id);
    this.destroy();
  }

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.reply();
    let sent: Promise<void> = Promise.resolve();
    for (let at = 0; at < chunk.length; at += DATA_CHUNK) sent = this.session.send(dataFrame(this.id, chunk.subarray(at, at + DATA_CHUNK)));
    sent.then(() => cb(), cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.reply();
    if (!this.localFin) {
      this.localFin = true;
      this.session.send(dataFrame(this.id, Buffer.alloc(0), true));
      if (this.remoteFin) this.session.forget(this.id);
    }
    cb();
  }

  /** Data from the peer. */
  onData(data: Buffer): void {
    if (!this.remoteFin && data.length) this.push(data);
  }

  /** The peer will send no more. */
  onRemoteFin(): void {
    if (this.remoteFin) return;
    this.remoteFin = true;
    this.push(null);
    if (this.localFin) this.session.forget(this.id);
  }

  /** The peer reset the stream, or the session ended. */
  onReset(): void {
    this.localFin = this.remoteFin = true;
    if (!this.readableEnded) this.push(null);
    this.destroy();
  }
}

/** Options of a SpdySession. */
export interface SpdySessionOptions {
  /** Streams the peer may have open at once (more are refused). */
  maxStreams?: number;
}

/**
 * The server side of a SPDY/3.1 connection over `io` (a socket after the HTTP upgrade, or a
 * websocket tunnel): emits `stream` for each SYN_STREAM (a SpdyStream, not yet replied to) and
 * `close` once the connection ends; answers PINGs; ignores SETTINGS and WINDOW_UPDATE.
 */
export class SpdySession extends EventEmitter {
  private readonly reader = new FrameReader();
  private readonly inflater = new HeaderCodec('inflate');
  private readonly deflater = new HeaderCodec('deflate');
  private readonly streams = new Map<number, SpdyStream>();
  private lastStreamId = 0;
  private inbound: Promise<void> = Promise.resolve();
  private outbound: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly maxStreams: number;

  constructor(
    private readonly io: Duplex,
    options: SpdySessionOptions = {},
  ) {
    super();
    this.maxStreams = options.maxStreams ?? 1000;
    io.on('data', (chunk: Buffer) => {
      this.reader.push(chunk);
      this.inbound = this.inbound.then(() => this.drain()).catch((err) => this.fail(err));
    });
    io.on('end', () => (this.inbound = this.inbound.then(() => this.end())));
    io.on('close', () => (this.inbound = this.inbound.then(() => this.end())));
    io.on('error', () => this.end());
  }

  /**
   * Writes bytes after everything queued before them; resolves once the connection took them
   * (after a 'drain' when its buffer was full), so writers can wait (backpressure).
   */
  send(bytes: Buffer): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.outbound = this.outbound.then(async () => {
      if (this.closed || !this.io.writable || this.io.write(bytes)) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.io.off('drain', done);
          this.io.off('close', done);
          resolve();
        };
        this.io.on('drain', done);
        this.io.on('close', done);
      });
    });
    return this.outbound;
  }

  /** Queues a SYN_REPLY or HEADERS frame (its header block compressed in order). */
  sendHeaders(type: number, streamId: number, headers: SpdyHeaders, fin: boolean): void {
    if (this.closed) return;
    this.outbound = this.outbound.then(async () => {
      const block = await this.deflater.run(encodeHeaderBlock(headers));
      if (!this.closed && this.io.writable) this.io.write(controlFrame(type, fin ? FLAG_FIN : 0, Buffer.concat([u32(streamId), block])));
    }).catch((err) => this.fail(err));
  }

  /** Sends GOAWAY and closes the connection once everything queued is written. */
  close(): void {
    if (this.closed) return;
    this.send(controlFrame(FrameType.GOAWAY, 0, Buffer.concat([u32(this.lastStreamId), u32(0)])));
    void this.outbound.then(() => this.finish());
  }

  /** Ends our side; the peer closes its side (or the socket is dropped after a grace period). */
  private finish(): void {
    this.io.end();
    setTimeout(() => this.io.destroy(), CLOSE_GRACE_MS).unref();
    this.end(false);
  }

  /** Drops a fully closed stream. */
  forget(id: number): void {
    this.streams.delete(id);
  }

  private async drain(): Promise<void> {
    for (let f = this.reader.next(); f; f = this.reader.next()) {
      if (this.closed) return;
      await this.handle(f);
    }
  }

  private async handle(f: RawFrame): Promise<void> {
    if (!f.control) {
      const s = this.streams.get(f.streamId);
      if (!s) {
        if (f.streamId > this.lastStreamId || f.streamId === 0) this.send(controlFrame(FrameType.RST_STREAM, 0, Buffer.concat([u32(f.streamId), u32(RstStatus.INVALID_STREAM)])));
        return;
      }
      s.onData(f.payload);
      if (f.flags & FLAG_FIN) s.onRemoteFin();
      return;
    }
    if (f.version !== 3) throw new SpdyProtocolError(`unsupported SPDY version ${f.version}`);
    const p = f.payload;
    const need = (n: number) => {
      if (p.length < n) throw new SpdyProtocolError(`control frame type ${f.type} of ${p.length} bytes is too short`);
    };
    switch (f.type) {
      case FrameType.SYN_STREAM: {
        need(10);
        const id = p.readUInt32BE(0) & 0x7fffffff;
        // The block is always inflated, so the shared compression context stays in step.
        const headers = decodeHeaderBlock(await this.inflater.run(p.subarray(10)));
        if (id === 0 || id % 2 === 0 || id <= this.lastStreamId) {
          this.send(controlFrame(FrameType.RST_STREAM, 0, Buffer.concat([u32(id), u32(RstStatus.PROTOCOL_ERROR)])));
          return;
        }
        this.lastStreamId = id;
        if (this.streams.size >= this.maxStreams) {
          this.send(controlFrame(FrameType.RST_STREAM, 0, Buffer.concat([u32(id), u32(RstStatus.REFUSED_STREAM)])));
          return;
        }
        const s = new SpdyStream(id, headers, this, (f.flags & FLAG_FIN) !== 0);
        this.streams.set(id, s);
        this.emit('stream', s);
        return;
      }
      case FrameType.SYN_REPLY:
      case FrameType.HEADERS: {
        need(4);
        await this.inflater.run(p.subarray(4));
        const s = this.streams.get(p.readUInt32BE(0) & 0x7fffffff);
        if (s && f.flags & FLAG_FIN) s.onRemoteFin();
        return;
      }
      case FrameType.RST_STREAM: {
        need(8);
        const id = p.readUInt32BE(0) & 0x7fffffff;
        const s = this.streams.get(id);
        this.streams.delete(id);
        s?.onReset();
        return;
      }
      case FrameType.PING: {
        need(4);
        // Our own pings would be even; answer the peer's (odd) ones.
        if (p.readUInt32BE(0) % 2 === 1) this.send(controlFrame(FrameType.PING, 0, p.subarray(0, 4)));
        return;
      }
      case FrameType.GOAWAY:
        this.close();
        return;
      default:
        // SETTINGS, WINDOW_UPDATE, CREDENTIAL and unknown types are ignored, as the spec asks of unknown ones.
        return;
    }
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    if (err instanceof SpdyProtocolError) {
      this.io.write(controlFrame(FrameType.GOAWAY, 0, Buffer.concat([u32(this.lastStreamId), u32(1)])));
    }
    this.finish();
  }

  private end(destroyIo = true): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.streams.values()) s.onReset();
    this.streams.clear();
    this.inflater.close();
    this.deflater.close();
    if (destroyIo) this.io.destroy();
    this.emit('close');
  }
}
