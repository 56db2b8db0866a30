/** The /openapi/v3 root document: one entry per group/version, with a content hash in its URL. */
import { createHash } from 'node:crypto';

/** The hash kube-apiserver puts in serverRelativeURL: SHA-512 of the JSON document, upper-case hex. */
export function openAPIV3Hash(doc: object): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

/** The path key of a group/version: "api/v1" or "apis/<group>/<version>". */
export function openAPIV3PathKey(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/**
 * Builds /openapi/v3 from the documents keyed "api/v1", "apis/apps/v1", ...; each document must
 * be served as `JSON.stringify(doc)` for the hash to match.
 */
export function openAPIV3Root(docs: Map<string, object>): { paths: Record<string, { serverRelativeURL: string }> } {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of [...docs.keys()].sort()) {
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${openAPIV3Hash(docs.get(key)!)}` };
  }
  return { paths };
}
