/**
 * Request body decoding: JSON or YAML (by Content-Type) into plain JSON values, with malformed
 * input reported as ApiError 400 BadRequest and unknown media types as 415.
 */
import { parseAllDocuments } from 'yaml';
import { ApiError, badRequest } from './errors.js';

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

function decodeYaml(text: string): unknown {
  const docs = parseAllDocuments(text, { merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  const real = list.filter((d) => d.contents !== null || d.errors.length > 0);
  if (real.length > 1) throw badRequest('yaml: the request body contains more than one document');
  const doc = real[0] ?? list[0];
  if (!doc) return null;
  if (doc.errors.length > 0) throw badRequest(`yaml: ${firstLine(doc.errors[0]!.message)}`);
  return doc.toJS({ maxAliasCount: 1000 });
}

/**
 * Decodes a request body. JSON media types (`application/json`, `...+json`) are parsed as
 * JSON; YAML ones (`application/yaml`, `application/apply-patch+yaml`) as YAML 1.2 (JSON is
 * valid YAML). A missing Content-Type is treated as JSON. Throws ApiError 400 BadRequest for
 * an empty or malformed body (the parser's message is included) and 415 for other media types.
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
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw badRequest(`json: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return decodeYaml(text);
}
