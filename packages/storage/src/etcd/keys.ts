/**
 * Where kplane's keys live in etcd.
 *
 * kplane's storage keys already follow kube-apiserver's layout: `/registry/<resource>/<ns>/<name>`
 * (`/registry/deployments/default/web`, `/registry/apiextensions.k8s.io/customresourcedefinitions/x`,
 * a CRD's objects under `/registry/<group>/<plural>/...`). The driver stores a key under
 * `<namespace><prefix><rest>`: `prefix` (kube-apiserver's --etcd-prefix, default `/registry`)
 * replaces the leading `/registry`; `namespace` (default empty) isolates several stores in
 * one etcd. Keys outside `/registry` are stored as they are, after the namespace.
 *
 * Beside the data the driver keeps two kinds of bookkeeping keys, never seen by callers:
 * - `<namespace>\0kplane/ttl/<expiry ms, 15 digits><stored key>`: a key's TTL, written in the
 *   same transaction as the key, so it shares the key's mod revision: it holds while the key's
 *   mod revision is still the entry's (a later write or a delete makes it stale). Sorted by
 *   expiry, so the keys due are one range;
 * - `<stored key>\0`: the final value of a key deleted by deleteWithFinalValue, written in
 *   the delete's transaction (an etcd delete carries no value). It sits right after the key,
 *   so every watch that sees the delete sees it too; it is removed by the driver's next write,
 *   and `<namespace>\0kplane/final<stored key>` records that it is still there.
 * No kplane key contains NUL, so neither kind can collide with data.
 */

const TIME_DIGITS = 15;
const pad = (ms: number): string => String(Math.max(0, ms)).padStart(TIME_DIGITS, '0');

/** The default of the prefix option, as kube-apiserver's --etcd-prefix. */
export const DEFAULT_PREFIX = '/registry';

const REGISTRY = '/registry';
const META = '\0kplane/';

/** Maps keys between kplane and etcd for one store. */
export class KeySpace {
  readonly ttlRoot: string;
  readonly finalRoot: string;

  constructor(
    readonly namespace: string,
    readonly prefix: string,
  ) {
    if (namespace.includes('\0') || prefix.includes('\0')) throw new Error('etcd key prefixes cannot contain NUL');
    this.ttlRoot = `${namespace}${META}ttl`;
    this.finalRoot = `${namespace}${META}final`;
  }

  /** The etcd key of a kplane key (or of a kplane key prefix). */
  toEtcd(key: string): string {
    const rest = this.prefix !== REGISTRY && key.startsWith(REGISTRY) ? this.prefix + key.slice(REGISTRY.length) : key;
    return this.namespace + rest;
  }

  /** The kplane key of an etcd data key (the inverse of toEtcd). */
  fromEtcd(etcdKey: string): string {
    const rest = etcdKey.slice(this.namespace.length);
    return this.prefix !== REGISTRY && rest.startsWith(this.prefix) ? REGISTRY + rest.slice(this.prefix.length) : rest;
  }

  /**
   * The etcd range [start, end) holding the data keys under a kplane prefix. The empty prefix
   * starts past the bookkeeping keys (`<namespace>\0…`).
   */
  range(prefix: string): { start: Buffer; end: Buffer } {
    const etcdPrefix = this.toEtcd(prefix);
    const start = prefix === '' ? `${this.namespace}\x01` : etcdPrefix;
    return { start: Buffer.from(start), end: rangeEnd(Buffer.from(etcdPrefix)) };
  }

  /** True for a key that holds a final value (`<key>\0`). */
  isFinalValueKey(etcdKey: string): boolean {
    return etcdKey.endsWith('\0');
  }

  /** The key holding the final value of a deleted key. */
  finalValueKey(etcdKey: string): string {
    return `${etcdKey}\0`;
  }

  /** The bookkeeping key that marks a final-value key as still to be removed. */
  finalMarkerKey(etcdKey: string): string {
    return this.finalRoot + etcdKey.slice(this.namespace.length);
  }

  /** The data key a final-value marker stands for. */
  fromFinalMarker(markerKey: string): string {
    return this.namespace + markerKey.slice(this.finalRoot.length);
  }

  /** The TTL entry of a data key expiring at `expiresAt` (ms). */
  ttlKey(etcdKey: string, expiresAt: number): string {
    return `${this.ttlRoot}/${pad(expiresAt)}${etcdKey.slice(this.namespace.length)}`;
  }

  /** The end (exclusive) of the TTL entries expiring at or before `time` (ms). */
  ttlDueEnd(time: number): string {
    return `${this.ttlRoot}/${pad(Math.floor(time) + 1)}`;
  }

  /** The data key and expiry of a TTL entry. */
  fromTtlKey(ttlKey: string): { key: string; expiresAt: number } {
    const at = this.ttlRoot.length + 1;
    return { key: this.namespace + ttlKey.slice(at + TIME_DIGITS), expiresAt: Number(ttlKey.slice(at, at + TIME_DIGITS)) };
  }
}

/**
 * etcd's range end of a prefix: the prefix with its last byte below 0xff incremented (and the
 * bytes after it dropped); `\0` (every key) when all bytes are 0xff or the prefix is empty.
 */
export function rangeEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i] < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i] += 1;
      return end;
    }
  }
  return Buffer.from([0]);
}
