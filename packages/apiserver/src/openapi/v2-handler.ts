/**
 * Serving /openapi/v2 as kube-apiserver does (kube-openapi's handler behind a gzip handler):
 * the Accept header picks JSON or gnostic protobuf (`*` wildcards match, clauses by quality,
 * 406 with an empty body when none matches), `Vary: Accept-Encoding, Accept`, a quoted
 * upper-case SHA-512 `ETag` shared by both encodings, `Last-Modified`, 304 on a matching
 * If-None-Match (or an If-Modified-Since not older than the document), and gzip when the client
 * accepts it and the body is at least 1400 bytes.
 */
import { gzipSync } from 'node:zlib';
import type { RawRequest, RawResponse } from '@kplane/api';

/** kube-apiserver's protobuf media type for the v2 document, and the older spelling kubectl sends. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
export const OPENAPI_V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** gziphandler's default: smaller bodies are sent as they are. */
const GZIP_MIN_SIZE = 1400;

/** One built /openapi/v2 document and its encodings. */
export interface SwaggerSpec {
  /** The JSON bytes. */
  readonly json: Uint8Array;
  /** SHA-512 of the JSON, upper-case hex (unquoted). */
  readonly etag: string;
  /** When the document was built. */
  readonly lastModified: Date;
  /** The gnostic protobuf bytes (encoded on first use). */
  protobuf(): Uint8Array;
}

interface Clause {
  type: string;
  subType: string;
  q: number;
}

/** Accept header clauses, best first (goautoneg's order: quality, then concrete before wildcards). */
export function parseAcceptClauses(header: string | undefined): Clause[] {
  const clauses: Clause[] = [];
  for (const part of (header || '*/*').split(',')) {
    const [media, ...params] = part.split(';').map((x) => x.trim());
    if (!media) continue;
    const slash = media.indexOf('/');
    const type = slash < 0 ? media : media.slice(0, slash);
    const subType = slash < 0 ? '*' : media.slice(slash + 1);
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((x) => x.trim());
      if (k === 'q' && v !== undefined && !Number.isNaN(Number(v))) q = Number(v);
    }
    clauses.push({ type, subType, q });
  }
  return clauses
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || rank(a.c) - rank(b.c) || a.i - b.i)
    .map((x) => x.c);
}

function rank(c: Clause): number {
  return (c.type === '*' ? 2 : 0) + (c.subType === '*' ? 1 : 0);
}

const OFFERS = [
  { subType: 'json', contentType: 'application/json', protobuf: false },
  { subType: OPENAPI_V2_PROTOBUF_DEPRECATED.slice('application/'.length), contentType: OPENAPI_V2_PROTOBUF, protobuf: true },
  { subType: OPENAPI_V2_PROTOBUF.slice('application/'.length), contentType: OPENAPI_V2_PROTOBUF, protobuf: true },
];

function etagMatches(header: string, etag: string): boolean {
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === `"${etag}"`;
  });
}

function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Answers a request for /openapi/v2 from the (lazily built) document. */
export function serveOpenAPIV2(req: RawRequest, spec: () => SwaggerSpec): RawResponse {
  const headers: Record<string, string> = { vary: 'Accept-Encoding, Accept' };
  for (const clause of parseAcceptClauses(req.headers?.accept)) {
    for (const offer of OFFERS) {
      if (clause.type !== 'application' && clause.type !== '*') continue;
      if (clause.subType !== offer.subType && clause.subType !== '*') continue;
      const s = spec();
      headers['content-type'] = offer.contentType;
      headers.etag = `"${s.etag}"`;
      const modified = new Date(Math.floor(s.lastModified.getTime() / 1000) * 1000);
      const inm = req.headers?.['if-none-match'];
      const ims = req.headers?.['if-modified-since'];
      const notModified = inm !== undefined ? etagMatches(inm, s.etag) : ims !== undefined && !Number.isNaN(Date.parse(ims)) && modified.getTime() <= Date.parse(ims);
      if (notModified) {
        // Go's ServeContent: a 304 keeps the ETag and drops the entity headers.
        const { 'content-type': _type, ...rest } = headers;
        return { status: 304, headers: rest, body: new Uint8Array() };
      }
      headers['last-modified'] = modified.toUTCString();
      headers['accept-ranges'] = 'bytes';
      let body = offer.protobuf ? s.protobuf() : s.json;
      if (body.byteLength >= GZIP_MIN_SIZE && acceptsGzip(req.headers?.['accept-encoding'])) {
        body = gzipSync(body);
        headers['content-encoding'] = 'gzip';
      }
      return { status: 200, headers, body };
    }
  }
  return { status: 406, headers, body: new Uint8Array() };
}
