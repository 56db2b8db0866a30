/**
 * The pod-template-hash (controller.ComputeHash): FNV-32a over an encoding of the pod template,
 * then the collision count, printed in decimal and made safe with rand.SafeEncodeString.
 *
 * Kubernetes hashes Go's printing of the template struct, which cannot be reproduced here; we
 * hash a canonical JSON encoding instead (keys sorted, null/empty values dropped). The value is
 * therefore not the one real Kubernetes computes for the same template, but it is stable and
 * deterministic: the same template always gives the same hash, across processes and restarts.
 */
import type { PodTemplateSpec } from '@kplane/runtime';

/** The label added to a Deployment's ReplicaSets, their selector and their pods. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** apimachinery's rand.SafeEncodeString alphabet: no vowels, no confusable characters. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** Maps every character to the safe alphabet (rand.SafeEncodeString). */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of s) out += ALPHANUMS[ch.codePointAt(0)! % ALPHANUMS.length];
  return out;
}

/** 32-bit FNV-1a over bytes, continuing from `hash`. */
export function fnv32a(bytes: Uint8Array, hash = 0x811c9dc5): number {
  let h = hash;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const isEmpty = (v: unknown): boolean =>
  v === null || v === undefined || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/** Drops null and empty values (which Kubernetes' semantic equality does not tell apart from unset) and sorts keys. */
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const n = normalize((v as Record<string, unknown>)[k]);
      if (!isEmpty(n)) out[k] = n;
    }
    return out;
  }
  return v;
}

/** The canonical encoding of a value: JSON with sorted keys, without null or empty members. */
export function canonicalEncoding(value: unknown): string {
  return JSON.stringify(normalize(value) ?? null);
}

/** The pod-template-hash of a template and a Deployment's status.collisionCount. */
export function computeHash(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonicalEncoding(template ?? {})));
  if (collisionCount !== undefined && collisionCount !== null) {
    // Go writes the uint32, little-endian, into an 8-byte buffer and hashes all 8 bytes.
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(bytes, h);
  }
  return safeEncodeString(String(h));
}

/** Two templates equal but for the pod-template-hash label (EqualIgnoreHash). */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined): unknown => {
    if (!t) return {};
    const labels = { ...(t.metadata?.labels ?? {}) };
    delete labels[POD_TEMPLATE_HASH_LABEL];
    return { ...t, metadata: { ...(t.metadata ?? {}), labels } };
  };
  return canonicalEncoding(strip(a)) === canonicalEncoding(strip(b));
}
