/**
 * Group commit: the writes submitted in one turn of the event loop run together in one
 * transaction, so concurrent writers share one commit, while each still gets its own result or
 * error. With a `sync` (the driver's fsync), the commit's flush to disk runs off the event loop:
 * the batches committed while one sync is in flight share the next one, and requests are served
 * meanwhile.
 *
 * Guarantees:
 * - Writes run in the order they were submitted; each sees the effects of the earlier ones.
 * - A write's promise settles only after the transaction that holds it has committed (or
 *   failed: then every write of the batch rejects with the commit's error) and, with a `sync`,
 *   after a sync that started once it had committed.
 * - `committed` runs for each successful write, in commit order, after that commit (and its
 *   sync) and before the write's promise resolves (the driver publishes watch events there).
 * - Once a sync fails, the writes waiting for it and every later write reject with its error:
 *   the store can no longer promise what is on disk (as PostgreSQL stops after a failed fsync).
 */

/** What one write of a batch came to. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** A queue of writes flushed once per event-loop turn. */
export interface GroupCommit<R> {
  /** Queues a write for the next flush. */
  submit(write: () => R): Promise<R>;
  /**
   * Takes values committed outside the queue (e.g. expired keys deleted in a transaction of
   * their own): `committed` runs for them in commit order, after the next sync; resolves then.
   */
  committedOutside(values: R[]): Promise<void>;
  /** Runs the queued writes now (their promises still settle after their sync). */
  flush(): void;
  /** Runs the queued writes and waits until every committed write has been synced and settled. */
  drain(): Promise<void>;
  /** Syncs started so far. */
  syncs(): number;
}

/** Options of createGroupCommit. */
export interface GroupCommitOptions<R> {
  /**
   * Runs every write of a batch in one transaction, each isolated from the others' errors, and
   * returns one outcome per write; throws when the transaction itself fails.
   */
  transaction: (writes: Array<() => R>) => Outcome<R>[];
  /** Called for each successful write, in commit order, before its promise resolves. */
  committed: (value: R) => void;
  /** Makes every commit made so far durable (an fsync); without one, writes settle at their commit. */
  sync?: () => Promise<void>;
}

interface Queued<R> {
  write: () => R;
  resolve(value: R): void;
  reject(err: unknown): void;
}

/** A committed write waiting for its sync: settles it either way. */
interface Settle {
  ok(): void;
  fail(err: unknown): void;
}

/** Creates a group commit (see the module comment). */
export function createGroupCommit<R>(options: GroupCommitOptions<R>): GroupCommit<R> {
  const { transaction, committed, sync } = options;
  let queue: Queued<R>[] = [];
  let scheduled = false;
  /** Committed, waiting for the next sync. */
  let waiting: Settle[] = [];
  let syncing: Promise<void> | undefined;
  let syncCount = 0;
  let broken: { error: unknown } | undefined;

  const startSync = (): void => {
    const batch = waiting;
    waiting = [];
    syncCount++;
    syncing = sync!().then(
      () => {
        for (const s of batch) s.ok();
      },
      (error: unknown) => {
        broken ??= { error };
        for (const s of batch) s.fail(error);
      },
    ).finally(() => {
      syncing = undefined;
      if (waiting.length > 0) startSync();
    });
  };

  /** Settles committed writes now (no sync) or after the next sync, in commit order. */
  const afterCommit = (settles: Settle[]): void => {
    if (!sync) {
      for (const s of settles) s.ok();
      return;
    }
    if (broken) {
      for (const s of settles) s.fail(broken.error);
      return;
    }
    waiting.push(...settles);
    // One sync at a time: what commits while it runs shares the next one.
    if (!syncing) startSync();
  };

  const flush = (): void => {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    if (broken) {
      for (const q of batch) q.reject(broken.error);
      return;
    }
    let outcomes: Outcome<R>[];
    try {
      outcomes = transaction(batch.map((q) => q.write));
    } catch (err) {
      for (const q of batch) q.reject(err);
      return;
    }
    afterCommit(
      batch.map((q, i): Settle => {
        const outcome = outcomes[i]!;
        return outcome.ok
          ? {
              ok: () => {
                committed(outcome.value);
                q.resolve(outcome.value);
              },
              fail: (err) => q.reject(err),
            }
          : { ok: () => q.reject(outcome.error), fail: () => q.reject(outcome.error) };
      }),
    );
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
    committedOutside(values) {
      return new Promise<void>((resolve, reject) => {
        const settles = values.map((value): Settle => ({ ok: () => committed(value), fail: () => {} }));
        settles.push({ ok: resolve, fail: reject });
        afterCommit(settles);
      });
    },
    flush,
    async drain() {
      flush();
      while (syncing) await syncing;
    },
    syncs: () => syncCount,
  };
}
