/**
 * Request body decoding: JSON or YAML (by Content-Type) into plain JSON values, with malformed
 * input reported as ApiError 400 BadRequest and unknown media types as 415. Every body is held
 * to the same limits (see json-scan.ts): nesting depth, int64 integers, bounded YAML aliases;
 * duplicate keys are remembered for fieldValidation (see duplicateFields).
 */
import { createRequire } from 'node:module';
import { ApiError, badRequest } from './errors.js';
import { depthExceeded, scanJson } from './json-scan.js';

let yamlLib: typeof import('yaml') | undefined;
/** The YAML library, loaded at the first YAML body (most requests are JSON). */
const yaml = (): typeof import('yaml') => (yamlLib ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

/** Media types decodeBody understands (parameters such as `; charset=utf-8` are ignored). */
export const DECODABLE_MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

/** The media type of a Content-Type header, lower-cased and without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.trim();
}

/** Paths of duplicate keys in a YAML document's node tree, each map's before its children's (aliases are not followed). */
function yamlDuplicates(root: unknown): string[] {
  const { isMap: isYamlMap, isScalar: isYamlScalar, isSeq: isYamlSeq } = yaml();
  const out: string[] = [];
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    const children: [unknown, string][] = [];
    if (isYamlMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = isYamlScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (key === '<<') continue;
        const p = path ? `${path}.${key}` : key;
        if (seen.has(key)) out.push(p);
        else seen.add(key);
        children.push([pair.value, p]);
      }
    } else if (isYamlSeq(node)) {
      node.items.forEach((item, i) => children.push([item, `${path}[${i}]`]));
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return out;
}

function decodeYaml(text: string): unknown {
  const docs = yaml().parseAllDocuments(text, { merge: true, uniqueKeys: false });
  const list = Array.isArray(docs) ? docs : [docs];
  const real = list.filter((d) => d.contents !== null || d.errors.length > 0);
  if (real.length > 1) throw badRequest('yaml: the request body contains more than one document');
  const doc = real[0] ?? list[0];
  if (!doc) return null;
  if (doc.errors.length > 0) {
    const msg = doc.errors[0]!.message;
    if (/Maximum call stack size exceeded/.test(msg)) throw depthExceeded('yaml');
    throw badRequest(`yaml: ${firstLine(msg)}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (e) {
    if (e instanceof RangeError) throw depthExceeded('yaml');
    if (e instanceof ReferenceError && /alias/i.test(e.message)) throw badRequest('yaml: document contains excessive aliasing');
    throw badRequest(`yaml: ${firstLine(e instanceof Error ? e.message : String(e))}`);
  }
  // Aliases share objects in the parsed value: a JSON round trip gives every place its own copy
  // (as Go's decoder does) and lets the JSON limits apply to the expanded document.
  let json: string;
  try {
    json = JSON.stringify(value) ?? 'null';
  } catch (e) {
    if (e instanceof RangeError) throw depthExceeded('yaml');
    throw badRequest(`yaml: ${firstLine(e instanceof Error ? e.message : String(e))}`);
  }
  scanJson(json);
  const decoded = JSON.parse(json) as unknown;
  const duplicates = yamlDuplicates(doc.contents);
  if (duplicates.length > 0 && decoded !== null && typeof decoded === 'object') duplicatesOf.set(decoded, duplicates);
  return decoded;
}

/**
 * How many alias expansions a YAML body may make, weighted by the size of what they expand
 * (the `yaml` library's maxAliasCount): enough for manifests that reuse anchors, far too few
 * for a "billion laughs" document.
 */
export const MAX_YAML_ALIAS_COUNT = 1000;

const duplicatesOf = new WeakMap<object, string[]>();

/**
 * Paths of the keys that appeared more than once in the body `value` was decoded from
 * (`metadata.name`, `spec.containers[0].image`); empty when none did or `value` was not
 * returned by decodeBody (or cloneBody).
 */
export function duplicateFields(value: unknown): string[] {
  return value !== null && typeof value === 'object' ? (duplicatesOf.get(value) ?? []) : [];
}

/** A deep copy of a decoded body that keeps what duplicateFields knows about it. */
export function cloneBody<T>(value: T): T {
  const copy = structuredClone(value);
  const dups = duplicateFields(value);
  if (dups.length > 0) duplicatesOf.set(copy as object, dups);
  return copy;
}

/**
 * Decodes a request body. JSON media types (`application/json`, `...+json`) are parsed as
 * JSON; YAML ones (`application/yaml`, `application/apply-patch+yaml`) as YAML 1.2 (JSON is
 * valid YAML). A missing Content-Type is treated as JSON. Throws ApiError 400 BadRequest for
 * an empty or malformed body (the parser's message is included), nesting deeper than
 * MAX_NESTING_DEPTH, integer literals outside int64 and excessive YAML aliasing, and 415 for
 * other media types. Duplicate keys are not an error here (the last one wins): see
 * duplicateFields.
 */
export function decodeBody(bytes: Uint8Array | string | undefined, contentType: string | undefined): unknown {
  const type = mediaType(contentType) || 'application/json';
  const isJson = type === 'application/json' || type.endsWith('+json');
  const isYaml = type === 'application/yaml' || type === 'text/yaml' || type.endsWith('+yaml');
  if (!isJson && !isYaml) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${DECODABLE_MEDIA_TYPES.join(', ')}`,
    );
  }
  let text: string;
  try {
    text = typeof bytes === 'string' ? bytes : new TextDecoder('utf-8', { fatal: true }).decode(bytes ?? new Uint8Array());
  } catch {
    throw badRequest('the request body is not valid UTF-8');
  }
  if (text.trim() === '') throw badRequest('the request body is empty');
  if (isJson) {
    const { duplicates } = scanJson(text);
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (e) {
      throw badRequest(`json: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (duplicates.length > 0 && value !== null && typeof value === 'object') duplicatesOf.set(value, duplicates);
    return value;
  }
  return jsonAsYaml(text) ?? decodeYaml(text);
}

/**
 * A YAML body that is plain JSON (as clients send apply patches: JSON text under
 * `application/apply-patch+yaml`), parsed as JSON: JSON is YAML, so the value is the same, at a
 * fraction of the YAML parser's cost. Undefined when the text is not JSON, has duplicate keys
 * or breaks a limit: the YAML decoder then gives its own answer and messages.
 */
function jsonAsYaml(text: string): unknown {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    if (scanJson(text).duplicates.length > 0) return undefined;
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
