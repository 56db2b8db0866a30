/**
 * A growable ring buffer of strings: O(1) push and shift without `Array.prototype.shift`'s
 * copying, and no allocation on the hot path once the buffer has grown to its working size.
 */
export class Fifo {
  private buf: (string | undefined)[];
  private head = 0;
  private size = 0;

  constructor(initialCapacity = 64) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.buf = new Array<string | undefined>(cap).fill(undefined);
  }

  /** Number of items held. */
  get length(): number {
    return this.size;
  }

  /** Appends `item` at the tail. */
  push(item: string): void {
    if (this.size === this.buf.length) this.grow();
    this.buf[(this.head + this.size) & (this.buf.length - 1)] = item;
    this.size++;
  }

  /** Removes and returns the head item, or undefined when empty. */
  shift(): string | undefined {
    if (this.size === 0) return undefined;
    const item = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.size--;
    return item;
  }

  /** Returns the items head to tail (a copy). */
  toArray(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.size; i++) out.push(this.buf[(this.head + i) & (this.buf.length - 1)]!);
    return out;
  }

  private grow(): void {
    const old = this.buf;
    const next = new Array<string | undefined>(old.length * 2).fill(undefined);
    for (let i = 0; i < this.size; i++) next[i] = old[(this.head + i) & (old.length - 1)];
    this.buf = next;
    this.head = 0;
  }
}
