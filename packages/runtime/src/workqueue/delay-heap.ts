/**
 * A min-heap of keys by ready time with one entry per key: re-inserting a key keeps the
 * earlier of the two ready times (client-go's delaying queue rule).
 */
interface Entry {
  key: string;
  readyAt: number;
  seq: number;
  index: number;
}

export class DelayHeap {
  private heap: Entry[] = [];
  private byKey = new Map<string, Entry>();
  private seq = 0;

  /** Number of waiting keys. */
  get size(): number {
    return this.heap.length;
  }

  /** Ready time of the earliest entry, or undefined when empty. */
  peekReadyAt(): number | undefined {
    return this.heap.length > 0 ? this.heap[0].readyAt : undefined;
  }

  /** Ready time of `key`, or undefined when it is not waiting. */
  readyAtOf(key: string): number | undefined {
    return this.byKey.get(key)?.readyAt;
  }

  /** Inserts `key`, or moves it earlier when it is already waiting for a later time. */
  insert(key: string, readyAt: number): void {
    const existing = this.byKey.get(key);
    if (existing !== undefined) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.up(existing.index);
      }
      return;
    }
    const e: Entry = { key, readyAt, seq: this.seq++, index: this.heap.length };
    this.heap.push(e);
    this.byKey.set(key, e);
    this.up(e.index);
  }

  /** Removes and returns the earliest key if it is ready at `now`, else undefined. */
  popReady(now: number): string | undefined {
    if (this.heap.length === 0 || this.heap[0].readyAt > now) return undefined;
    const top = this.heap[0];
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      last.index = 0;
      this.down(0);
    }
    this.byKey.delete(top.key);
    return top.key;
  }

  /** Drops every entry. */
  clear(): void {
    this.heap = [];
    this.byKey.clear();
  }

  private less(a: Entry, b: Entry): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const h = this.heap;
    const t = h[i];
    h[i] = h[j];
    h[j] = t;
    h[i].index = i;
    h[j].index = j;
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.heap[i], this.heap[p])) return;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(this.heap[l], this.heap[m])) m = l;
      if (r < n && this.less(this.heap[r], this.heap[m])) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
