/**
 * A minimal SPDY/3.1 client for tests: opens streams with headers (as client-go does: odd ids,
 * compressed header blocks), sends data, and records what the server sends per stream.
 */
import type { Duplex } from 'node:stream';
import { controlFrame, dataFrame, decodeHeaderBlock, encodeHeaderBlock, FLAG_FIN, FrameReader, FrameType, HeaderCodec, type RawFrame } from './spdy.js';

/** What the server did to one stream. */
export interface ClientStream {
  replied: boolean;
  data: Buffer;
  fin: boolean;
  reset?: number;
}

/** The client side of a SPDY session over `io`. */
export class TestSpdyClient {
  readonly streams = new Map<number, ClientStream>();
  readonly pings: number[] = [];
  goaway = false;
  closed = false;
  private nextId = 1;
  private readonly reader = new FrameReader();
  private readonly deflater = new HeaderCodec('deflate');
  private readonly inflater = new HeaderCodec('inflate');
  private chain: Promise<void> = Promise.resolve();
  private outbound: Promise<void> = Promise.resolve();
  private waiters: (() => void)[] = [];

  constructor(readonly io: Duplex) {
    io.on('data', (c: Buffer) => {
      this.reader.push(c);
      this.chain = this.chain.then(async () => {
        for (let f = this.reader.next(); f; f = this.reader.next()) await this.handle(f);
        this.wake();
      });
    });
    io.on('close', () => {
      this.chain = this.chain.then(() => {
        this.closed = true;
        this.wake();
      });
    });
    io.on('error', () => {});
  }

  /** Opens a stream with these headers; resolves with its id. */
  open(headers: Record<string, string>, fin = false): number {
    const id = this.nextId;
    this.nextId += 2;
    this.streams.set(id, { replied: false, data: Buffer.alloc(0), fin: false });
    const block = encodeHeaderBlock(new Map(Object.entries(headers).map(([k, v]) => [k, [v]])));
    this.outbound = this.outbound.then(async () => {
      const z = await this.deflater.run(block);
      const head = Buffer.alloc(10);
      head.writeUInt32BE(id);
      this.io.write(controlFrame(FrameType.SYN_STREAM, fin ? FLAG_FIN : 0, Buffer.concat([head, z])));
    });
    return id;
  }

  /** Sends data on a stream (FIN with `fin`). */
  send(id: number, data: Buffer | string, fin = false): void {
    this.outbound = this.outbound.then(() => void this.io.write(dataFrame(id, Buffer.from(data), fin)));
  }

  /** Sends raw bytes after what is queued. */
  raw(bytes: Buffer): void {
    this.outbound = this.outbound.then(() => void this.io.write(bytes));
  }

  /** Resolves once `ok` holds (checked after every batch of frames and at close). */
  until(ok: () => boolean): Promise<void> {
    if (ok()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (ok()) resolve();
        else if (this.closed) reject(new Error('the session closed first'));
        else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }

  /** Frees the compression contexts and the connection. */
  close(): void {
    this.deflater.close();
    this.inflater.close();
    this.io.destroy();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }

  private async handle(f: RawFrame): Promise<void> {
    if (!f.control) {
      const s = this.streams.get(f.streamId);
      if (!s) return;
      s.data = Buffer.concat([s.data, f.payload]);
      if (f.flags & FLAG_FIN) s.fin = true;
      return;
    }
    const id = f.payload.length >= 4 ? f.payload.readUInt32BE(0) & 0x7fffffff : 0;
    if (f.type === FrameType.SYN_REPLY) {
      decodeHeaderBlock(await this.inflater.run(f.payload.subarray(4)));
      const s = this.streams.get(id);
      if (s) s.replied = true;
    } else if (f.type === FrameType.RST_STREAM) {
      const s = this.streams.get(id);
      if (s) s.reset = f.payload.readUInt32BE(4);
    } else if (f.type === FrameType.PING) this.pings.push(id);
    else if (f.type === FrameType.GOAWAY) this.goaway = true;
  }
}
