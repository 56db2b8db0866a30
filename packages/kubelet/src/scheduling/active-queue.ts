/**
 * kube-scheduler's activeQ under its default PrioritySort: the pods ready to be scheduled,
 * taken highest priority first, then in the order they came. The workqueue in front of it keeps
 * the delays, retries and rate limits.
 */

interface Entry {
  key: string;
  priority: number;
  seq: number;
}

const before = (a: Entry, b: Entry) => a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);

/** A priority queue of pod keys that workers wait on. */
export class ActiveQueue {
  private readonly heap: Entry[] = [];
  private readonly queued = new Set<string>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private seq = 0;
  private closed = false;

  /** Keys waiting. */
  get length(): number {
    return this.heap.length;
  }

  /** Adds a key (once: a key already waiting keeps its place). */
  push(key: string, priority: number): void {
    if (this.closed || this.queued.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) return waiter(key);
    this.queued.add(key);
    const h = this.heap;
    h.push({ key, priority, seq: this.seq++ });
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  /** The next key, waiting for one; undefined once closed. */
  pop(): Promise<string | undefined> {
    const top = this.take();
    if (top !== undefined || this.closed) return Promise.resolve(top);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes every waiting worker with undefined; nothing is queued any more. */
  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  private take(): string | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    this.queued.delete(top.key);
    return top.key;
  }
}
