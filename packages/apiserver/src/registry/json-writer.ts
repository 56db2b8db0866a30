/**
 * Builds large JSON responses (lists, streams of watch events) as bytes, piece by piece,
 * without first joining them into one big string: the pieces are written as UTF-8 straight
 * into fixed-size buffers. Joining hundreds of thousands of strings and converting the result
 * costs more than the encoding itself, and huge strings are slow to allocate.
 */

/** Bytes per chunk at most (a chunk grows beyond this only for one piece that does not fit). */
const CHUNK_BYTES = 64 * 1024;
/**
 * Bytes of the first chunk; each next one is twice as big, up to CHUNK_BYTES. Most writers
 * write little (a watch's initial events of a kind with a few objects, or none), and a chunk's
 * whole buffer lives as long as the bytes handed out in it.
 */
const FIRST_CHUNK_BYTES = 4 * 1024;
const EMPTY = Buffer.alloc(0);

/** Collects UTF-8 pieces into chunks; `take()` hands out what was written so far. */
export class JsonWriter {
  private chunks: Buffer[] = [];
  /** The chunk being written (allocated at the first write that needs room). */
  private current: Buffer = EMPTY;
  private nextChunkBytes = FIRST_CHUNK_BYTES;
  private used = 0;
  private total = 0;

  /** Bytes written and not taken yet. */
  get size(): number {
    return this.total;
  }

  /** Appends a string as UTF-8. */
  write(text: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8.
    const room = text.length * 3;
    if (this.used + room > this.current.length) {
      this.seal();
      if (room > CHUNK_BYTES) {
        const big = Buffer.from(text);
        this.chunks.push(big);
        this.total += big.length;
        return;
      }
      let bytes = this.nextChunkBytes;
      while (bytes < room) bytes *= 2;
      this.current = Buffer.allocUnsafe(bytes);
      this.nextChunkBytes = Math.min(CHUNK_BYTES, bytes * 2);
    }
    const n = this.current.write(text, this.used);
    this.used += n;
    this.total += n;
  }

  /**
   * Appends bytes that are already UTF-8 (a stored value read as bytes): copied into the chunk
   * being written, or, larger than a chunk, kept as they are (the caller must not change them).
   * `start` and `end` bound the part of `source` written.
   */
  writeBytes(source: Uint8Array, start = 0, end = source.byteLength): void {
    // A plain view: a Buffer's subarray costs a Buffer (species) construction.
    const bytes = start === 0 && end === source.byteLength ? source : new Uint8Array(source.buffer, source.byteOffset + start, end - start);
    const n = bytes.byteLength;
    if (this.used + n > this.current.length) {
      this.seal();
      if (n > CHUNK_BYTES) {
        this.chunks.push(Buffer.from(bytes.buffer, bytes.byteOffset, n));
        this.total += n;
        return;
      }
      let size = this.nextChunkBytes;
      while (size < n) size *= 2;
      this.current = Buffer.allocUnsafe(size);
      this.nextChunkBytes = Math.min(CHUNK_BYTES, size * 2);
    }
    this.current.set(bytes, this.used);
    this.used += n;
    this.total += n;
  }

  /** Everything written so far, as one byte array, and starts over. */
  take(): Buffer {
    this.seal();
    const out = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.total);
    this.chunks = [];
    this.total = 0;
    return out;
  }

  /** Everything written so far, as the chunks it was written into (no copy), and starts over. */
  takeChunks(): Buffer[] {
    this.seal();
    const out = this.chunks;
    this.chunks = [];
    this.total = 0;
    return out;
  }

  private seal(): void {
    if (this.used === 0) return;
    this.chunks.push(this.current.subarray(0, this.used));
    this.current = EMPTY;
    this.used = 0;
  }
}

/**
 * Index just past the `}` that closes the object whose content starts at `from` (just after
 * its `{`) in valid JSON, strings and nesting skipped; 0 when the text ends first.
 */
export function objectEnd(json: string, from: number): number {
  let depth = 1;
  for (let i = from; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < json.length; i++) {
        const d = json.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (--depth === 0) return i + 1;
    }
  }
  return 0;
}

/** Length of the stored head `{"apiVersion":"…","kind":"…","metadata":{`, or 0 when the JSON does not start so. */
export function storedHeadLength(json: string): number {
  // By hand: a regular expression costs more than the rest of serving the object (LIST of many).
  if (!json.startsWith('{"apiVersion":"')) return 0;
  const apiEnd = json.indexOf('"', 15);
  if (apiEnd < 0 || !json.startsWith('","kind":"', apiEnd)) return 0;
  const kindEnd = json.indexOf('"', apiEnd + 10);
  if (kindEnd < 0 || !json.startsWith('","metadata":{', kindEnd)) return 0;
  const at = kindEnd + 14;
  // An escaped quote inside apiVersion or kind would have ended them early.
  for (let i = 15; i < kindEnd; i++) if (json.charCodeAt(i) === 0x5c /* \\ */) return 0;
  return at;
}

/**
 * Splices `"resourceVersion":"N"` into stored JSON whose head is apiVersion, kind, metadata (as
 * encode writes it); undefined for any other layout (older data), which is then re-encoded.
 */
export function withResourceVersion(json: string, revision: number): string | undefined {
  const at = storedHeadLength(json);
  if (at === 0) return undefined;
  const rv = `"resourceVersion":"${revision}"`;
  return json.slice(0, at) + rv + (json[at] === '}' ? '' : ',') + json.slice(at);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HEAD_START = Buffer.from('{"apiVersion":"');
const HEAD_KIND = Buffer.from('","kind":"');
const HEAD_METADATA = Buffer.from('","metadata":{');

/** objectEnd of UTF-8 bytes: the structural characters are ASCII, never part of a multi-byte character. */
export function objectEndOfBytes(json: Uint8Array, from: number): number {
  let depth = 1;
  for (let i = from; i < json.length; i++) {
    const c = json[i]!;
    if (c === QUOTE) {
      for (i++; i < json.length; i++) {
        const d = json[i]!;
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (--depth === 0) return i + 1;
    }
  }
  return 0;
}

/** Does `b` hold `pattern` at `at`? (By hand: Buffer.compare's argument checks cost more than these few bytes.) */
function holdsAt(b: Uint8Array, pattern: Uint8Array, at: number): boolean {
  if (at + pattern.length > b.length) return false;
  for (let i = 0; i < pattern.length; i++) if (b[at + i] !== pattern[i]) return false;
  return true;
}

/** storedHeadLength of UTF-8 bytes (a stored value read as bytes). */
export function storedHeadLengthOfBytes(json: Uint8Array): number {
  const b = Buffer.isBuffer(json) ? json : Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  if (!holdsAt(b, HEAD_START, 0)) return 0;
  const apiEnd = b.indexOf(QUOTE, HEAD_START.length);
  if (apiEnd < 0 || !holdsAt(b, HEAD_KIND, apiEnd)) return 0;
  const kindEnd = b.indexOf(QUOTE, apiEnd + HEAD_KIND.length);
  if (kindEnd < 0 || !holdsAt(b, HEAD_METADATA, kindEnd)) return 0;
  // An escaped quote inside apiVersion or kind would have ended them early.
  for (let i = HEAD_START.length; i < kindEnd; i++) if (b[i] === BACKSLASH) return 0;
  return kindEnd + HEAD_METADATA.length;
}
