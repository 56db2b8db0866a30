/**
 * Builds large JSON responses (lists, streams of watch events) as bytes, piece by piece,
 * without first joining them into one big string: the pieces are written as UTF-8 straight
 * into fixed-size buffers. Joining hundreds of thousands of strings and converting the result
 * costs more than the encoding itself, and huge strings are slow to allocate.
 */

/** Bytes per chunk (a chunk grows beyond this only for one piece that does not fit). */
const CHUNK_BYTES = 64 * 1024;

/** Collects UTF-8 pieces into chunks; `take()` hands out what was written so far. */
export class JsonWriter {
  private chunks: Buffer[] = [];
  private current: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  private total = 0;

  /** Bytes written and not taken yet. */
  get size(): number {
    return this.total;
  }

  /** Appends a string as UTF-8. */
  write(text: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8.
    if (this.used + text.length * 3 > this.current.length) {
      this.seal();
      if (text.length * 3 > CHUNK_BYTES) {
        const big = Buffer.from(text);
        this.chunks.push(big);
        this.total += big.length;
        return;
      }
    }
    const n = this.current.write(text, this.used);
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
    this.current = Buffer.allocUnsafe(CHUNK_BYTES);
    this.used = 0;
  }
}

const STORED_HEAD = /^\{"apiVersion":"[^"\\]*","kind":"[^"\\]*","metadata":\{/;

/** Length of the stored head `{"apiVersion":"…","kind":"…","metadata":{`, or 0 when the JSON does not start so. */
export function storedHeadLength(json: string): number {
  const head = STORED_HEAD.exec(json);
  return head ? head[0].length : 0;
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
