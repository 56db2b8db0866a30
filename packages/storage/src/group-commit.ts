/**
 * Group commit: the writes submitted in one turn of the event loop run together in one
 * transaction, so concurrent writers share one fsync, while each still gets its own result or
 * error.
 *
 * Guarantees:
 * - Writes run in the order they were submitted; each sees the effects of the earlier ones.
 * - A write's promise settles only after the transaction that holds it has committed (or
 *   failed: then every write of the batch rejects with the commit's error).
 * - `committed` runs for each successful write, in order, after the commit and before the
 *   write's promise resolves (the driver publishes watch events there).
 */

/** What one write of a batch came to. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** A queue of writes flushed once per event-loop turn. */
export interface GroupCommit<R> {
  /** Queues a write for the next flush. */
  submit(write: () => R): Promise<R>;
  /** Runs the queued writes now (before closing the database). */
  flush(): void;
}

interface Queued<R> {
  write: () => R;
  resolve(value: R): void;
  reject(err: unknown): void;
}

/**
 * Creates a group commit over `transaction`, which must run every write of a batch in one
 * transaction, each isolated from the others' errors, and return one outcome per write; it
 * throws when the transaction itself fails.
 */
export function createGroupCommit<R>(transaction: (writes: Array<() => R>) => Outcome<R>[], committed: (value: R) => void): GroupCommit<R> {
  let queue: Queued<R>[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    let outcomes: Outcome<R>[];
    try {
      outcomes = transaction(batch.map((q) => q.write));
    } catch (err) {
      for (const q of batch) q.reject(err);
      return;
    }
    batch.forEach((q, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) {
        committed(outcome.value);
        q.resolve(outcome.value);
      } else {
        q.reject(outcome.error);
      }
    });
  };
  return {
    submit(write) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ write, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          // setImmediate runs after the I/O callbacks of this turn: the writes of every request
          // parsed in it join the batch.
          setImmediate(flush);
        }
      });
    },
    flush,
  };
}
