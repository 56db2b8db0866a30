/**
 * The name and hash of a ControllerRevision, computed as Kubernetes' controller history
 * (pkg/controller/history) computes them: FNV-32 (FNV-1, not FNV-1a) over the revision's raw
 * data, then the collision count written as decimal text, the 32-bit sum printed in decimal and
 * mapped onto rand.SafeEncodeString's alphabet.
 *
 * The raw data is the JSON encoding Go's encoding/json gives a map: keys sorted at every level,
 * `<`, `>`, `&`, U+2028 and U+2029 escaped. A revision's data built from the same object therefore
 * hashes to the same value as kube-controller-manager's, as far as the object's JSON is the same.
 */
import { safeEncodeString } from '../deployment/hash.js';

/** The label carrying the hash of a ControllerRevision's data. */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';

/** Longest prefix kept in a revision name, so that `<prefix>-<hash>` stays within 253 bytes. */
const MAX_PREFIX_LENGTH = 223;

/** `<prefix>-<hash>`, the prefix cut to 223 characters (ControllerRevisionName). */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > MAX_PREFIX_LENGTH ? prefix.slice(0, MAX_PREFIX_LENGTH) : prefix}-${hash}`;
}

/** 32-bit FNV-1 over bytes, continuing from `hash` (Go's hash/fnv New32). */
export function fnv32(bytes: Uint8Array, hash = 0x811c9dc5): number {
  let h = hash;
  for (const b of bytes) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h ^= b;
  }
  return h >>> 0;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const member = (v as Record<string, unknown>)[k];
      if (member !== undefined) out[k] = sortKeys(member);
    }
    return out;
  }
  return v;
}

const GO_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * JSON as Go's json.Marshal writes a decoded map: compact, keys sorted (Go sorts map keys by
 * their UTF-8 bytes, which for the keys of API objects is the code-unit order used here), HTML
 * characters and the two JavaScript line separators escaped.
 */
export function goJsonMarshal(value: unknown): string {
  // The escaped characters can only occur inside strings, so replacing them everywhere is safe.
  return (JSON.stringify(sortKeys(value)) ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]!);
}

/** The raw bytes of a revision's data (its Go JSON encoding). */
export function revisionDataBytes(data: unknown): Uint8Array {
  return new TextEncoder().encode(data === undefined ? '' : goJsonMarshal(data));
}

/**
 * HashControllerRevision: FNV-32 over the data's raw bytes, then `probe` (the collision count)
 * as decimal text when given; the sum in decimal made safe with rand.SafeEncodeString.
 */
export function hashControllerRevision(data: unknown, probe?: number): string {
  let h = fnv32(revisionDataBytes(data));
  if (probe !== undefined && probe !== null) h = fnv32(new TextEncoder().encode(String(Math.trunc(probe))), h);
  return safeEncodeString(String(h));
}
