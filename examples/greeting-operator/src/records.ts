/**
 * The external resource the operator keeps for each Greeting with a host: a record in a file,
 * standing for a DNS entry at a provider. The garbage collector knows nothing of it, which is
 * why the operator guards each Greeting with a finalizer.
 *
 * The file has one line per record, `<host> <namespace>/<name>` (the Greeting that owns it),
 * sorted, rewritten whole (to a temporary file, then renamed) on each change.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { realClock, type Clock } from '@kplane/runtime';

/** A store of records: host names owned by Greetings (keys `namespace/name`). */
export interface RecordStore {
  /** Every record, owner → host. */
  list(): Promise<Map<string, string>>;
  /** Makes `owner`'s record point `host`; resolves false when it already did (no write). */
  upsert(owner: string, host: string, signal?: AbortSignal): Promise<boolean>;
  /** Removes `owner`'s record; resolves false when there was none (no write). */
  remove(owner: string, signal?: AbortSignal): Promise<boolean>;
}

/** Options of fileRecords. */
export interface FileRecordsOptions {
  /** How long each change takes, as a provider's API would (default 0), on `clock`. */
  latencyMs?: number;
  /** The clock the latency runs on (default the real one). */
  clock?: Clock;
}

/** Parses the file's text into owner → host (blank lines and `#` comments skipped). */
export function parseRecords(text: string): Map<string, string> {
  const records = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [host, owner] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (host && owner) records.set(owner, host);
  }
  return records;
}

/** The file's text for `records`, one line per record, sorted by host. */
export function formatRecords(records: Map<string, string>): string {
  return [...records].map(([owner, host]) => `${host} ${owner}\n`).sort().join('');
}

/**
 * The records kept in the file at `path` (created on the first change). Changes are made one
 * at a time, in the order asked, each after `latencyMs`.
 */
export function fileRecords(path: string, { latencyMs = 0, clock = realClock }: FileRecordsOptions = {}): RecordStore {
  let chain: Promise<unknown> = Promise.resolve();
  const read = async () => parseRecords(await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? '' : Promise.reject(err))));
  const write = async (records: Map<string, string>) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(`${path}.tmp`, formatRecords(records));
    await rename(`${path}.tmp`, path);
  };
  /** Runs `change` after the ones before it; it returns the new records, or undefined for no change. */
  const serialized = (change: (records: Map<string, string>) => Map<string, string> | undefined, signal?: AbortSignal): Promise<boolean> => {
    const run = chain.then(async () => {
      const records = await read();
      const next = change(records);
      if (!next) return false;
      if (latencyMs > 0) await clock.sleep(latencyMs, signal);
      await write(next);
      return true;
    });
    chain = run.catch(() => undefined);
    return run;
  };
  return {
    list: read,
    upsert: (owner, host, signal) =>
      serialized((records) => (records.get(owner) === host ? undefined : new Map(records).set(owner, host)), signal),
    remove: (owner, signal) =>
      serialized((records) => {
        if (!records.has(owner)) return undefined;
        const next = new Map(records);
        next.delete(owner);
        return next;
      }, signal),
  };
}
