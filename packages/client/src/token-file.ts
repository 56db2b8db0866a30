/**
 * Bearer tokens read from a file and re-read now and then, as client-go's cached file token
 * source: projected ServiceAccount tokens are rotated by the kubelet, so a long-running client
 * must pick up the new one.
 */
import { readFileSync } from 'node:fs';

/** Something that tells the time in ms (a runtime Clock fits). */
export interface NowSource {
  now(): number;
}

/** How long a token read from a file is used before the file is read again (client-go: one minute). */
export const TOKEN_FILE_REFRESH_MS = 60_000;

/** A token source over a file. */
export interface FileTokenSource {
  /** The token: from the cache while fresh, else read again. */
  token(): string;
}

/**
 * Reads the bearer token in `path` (trimmed) and re-reads it once `refreshMs` (default one
 * minute) has passed on `clock`. When a re-read fails the last token is kept (and `onError`
 * told), as client-go does; the first read failing throws.
 */
export function createFileTokenSource(
  path: string,
  options: { clock?: NowSource; refreshMs?: number; onError?: (err: unknown) => void } = {},
): FileTokenSource {
  const now = () => (options.clock ?? Date).now();
  const refreshMs = options.refreshMs ?? TOKEN_FILE_REFRESH_MS;
  let cached: { value: string; at: number } | undefined;
  return {
    token() {
      if (cached && now() - cached.at < refreshMs) return cached.value;
      try {
        cached = { value: readFileSync(path, 'utf8').trim(), at: now() };
      } catch (err) {
        if (!cached) throw err;
        (options.onError ?? ((e) => console.error(`reading token file ${path} (using the cached token):`, e)))(err);
        cached = { value: cached.value, at: now() };
      }
      return cached.value;
    },
  };
}
