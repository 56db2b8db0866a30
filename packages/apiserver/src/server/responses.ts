/** The responses the handler builds, and the representation a client's Accept header asks for. */
import { notAcceptable, toApiError, type RawResponse, type Status } from '@kplane/api';
import type { WriteOptions } from '../registry/store.js';

/** The media type of JSON bodies. */
export const JSON_TYPE = 'application/json';

/** A JSON response. */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}, contentType = JSON_TYPE): RawResponse {
  return { status, headers: { 'content-type': contentType, ...headers }, body: Buffer.from(JSON.stringify(body)) };
}

/** A response whose body is JSON text already. */
export function textJson(status: number, json: string | Uint8Array): RawResponse {
  return { status, headers: { 'content-type': JSON_TYPE }, body: typeof json === 'string' ? Buffer.from(json) : json };
}

/** A Status response for an error. */
export function errorResponse(err: unknown): RawResponse {
  const e = toApiError(err);
  // As kube-apiserver: a Status that says when to retry says it in Retry-After too.
  const retry = e.details?.retryAfterSeconds;
  return statusResponse(e.code, e.toStatus(), retry ? { 'retry-after': String(retry) } : {});
}

/** A meta/v1 Status response, written as kube-apiserver's JSON encoder does (trailing newline). */
export function statusResponse(code: number, status: Status, headers: Record<string, string> = {}): RawResponse {
  return { status: code, headers: { 'content-type': JSON_TYPE, ...headers }, body: Buffer.from(JSON.stringify(status) + '\n') };
}

/** A plain-text response. */
export function text(status: number, body: string): RawResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: Buffer.from(body) };
}

/** One media range of an Accept header, its type lower-cased. */
export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

/** The media ranges of an Accept header. */
export function parseAccept(accept: string | undefined): MediaRange[] {
  if (!accept) return [];
  return accept.split(',').map((part) => {
    const [type, ...ps] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of ps) {
      const i = p.indexOf('=');
      if (i > 0) params[p.slice(0, i).trim()] = p.slice(i + 1).trim();
    }
    return { type: (type ?? '').toLowerCase(), params };
  });
}

/** What representation the client asked for. */
export type Representation = 'object' | 'table' | 'metadata';

/** The representation an Accept header asks for (406 when none of its types can be served). */
export function negotiate(accept: string | undefined): Representation {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return 'object';
  let sawUsable = false;
  for (const r of ranges) {
    const usable = r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*' || r.type === 'application/yaml';
    if (!usable) continue;
    sawUsable = true;
    if (r.params.as === 'Table' && r.params.g === 'meta.k8s.io' && (r.params.v === 'v1' || r.params.v === 'v1beta1')) return 'table';
    if ((r.params.as === 'PartialObjectMetadata' || r.params.as === 'PartialObjectMetadataList') && r.params.g === 'meta.k8s.io') return 'metadata';
    if (!r.params.as) return 'object';
  }
  if (!sawUsable) {
    if (ranges.some((r) => r.type === 'application/vnd.kubernetes.protobuf')) return 'object';
    throw notAcceptable('only the following media types are accepted: application/json, application/yaml');
  }
  return 'object';
}

/** The `Warning` headers of a write's warnings. */
export function warningHeaders(opts: WriteOptions): Record<string, string> {
  if (!opts.warnings?.length) return {};
  return { warning: opts.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') };
}
