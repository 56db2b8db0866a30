/**
 * Static tokens from a file, as kube-apiserver's `--token-auth-file`: CSV records
 * `token,user,uid[,"group1,group2"]` (more columns are ignored).
 */
import { readFile } from 'node:fs/promises';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { UserInfo } from '@kplane/api';
import { withImplicitAudiences, type TokenAuthenticator } from './token.js';

/**
 * Splits CSV text into records as Go's encoding/csv reader does (RFC 4180): fields may be quoted
 * (`""` is a quote inside), a quoted field may span lines, blank lines are skipped, a quote
 * inside an unquoted field is an error. Leading spaces are kept.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = 0;
  let line = 1;
  const n = text.length;
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  while (i < n) {
    if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n')) {
      i += text[i] === '\r' ? 2 : 1;
      line++;
      continue;
    }
    const record: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new Error(`record on line ${line}: extraneous or missing " in quoted-field`);
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (text[i] === '\n') line++;
          field += text[i++];
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          throw new Error(`record on line ${line}: extraneous or missing " in quoted-field`);
        }
      } else {
        while (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          if (text[i] === '"') throw new Error(`record on line ${line}: bare " in non-quoted-field`);
          field += text[i++];
        }
      }
      record.push(field);
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    records.push(record);
  }
  return records;
}

/**
 * Parses a token file's text into token → user. Throws for a record with fewer than 3 columns
 * (kube-apiserver refuses to start); records with an empty token are skipped; a token listed
 * twice keeps its last record. `warn` receives what kube-apiserver logs as warnings.
 */
export function parseTokenFile(text: string, path = 'token file', warn: (message: string) => void = () => {}): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  let recordNum = 0;
  for (const record of parseCsv(text)) {
    if (record.length < 3) throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    recordNum++;
    const [token, username, uid] = record as [string, string, string];
    if (token === '') {
      warn(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    if (tokens.has(token)) warn(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
    tokens.set(token, { username, uid, groups: record.length >= 4 ? record[3]!.split(',') : [] });
  }
  return tokens;
}

/** Reads and parses a `--token-auth-file`. */
export async function loadTokenFile(path: string, warn?: (message: string) => void): Promise<Map<string, UserInfo>> {
  return parseTokenFile(await readFile(path, 'utf8'), path, warn);
}

/**
 * Authenticates the static tokens given (token → user), good for the API server's audiences.
 * Tokens are compared through their SHA-256 digests in constant time.
 */
export function staticTokenAuthenticator(tokens: ReadonlyMap<string, UserInfo>, apiAudiences: readonly string[]): TokenAuthenticator {
  const digest = (t: string) => createHash('sha256').update(t).digest();
  const byDigest = new Map<string, { d: Buffer; user: UserInfo }>();
  for (const [t, user] of tokens) byDigest.set(digest(t).toString('hex'), { d: digest(t), user });
  return withImplicitAudiences(apiAudiences, (token) => {
    const d = digest(token);
    const hit = byDigest.get(d.toString('hex'));
    return hit && timingSafeEqual(hit.d, d) ? hit.user : undefined;
  });
}
