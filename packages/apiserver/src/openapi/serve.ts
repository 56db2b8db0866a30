/**
 * Serving the OpenAPI documents as kube-apiserver does (kube-openapi's handlers).
 *
 * /openapi/v2 (behind a gzip handler): the Accept header picks JSON or gnostic protobuf (`*`
 * wildcards match, clauses by quality, 406 with an empty body when none matches),
 * `Vary: Accept-Encoding, Accept`, a quoted upper-case SHA-512 `ETag` shared by both encodings,
 * `Last-Modified`, 304 on a matching If-None-Match (or an If-Modified-Since not older than the
 * document), and gzip when the client accepts it and the body is at least 1400 bytes.
 *
 * /openapi/v3 and /openapi/v3/<group/version>: the same ETag, Last-Modified and 304; a
 * group/version document is JSON (`Vary: Accept`, 406 otherwise), and asked for with its
 * `hash` it is `Cache-Control: public, immutable` with an `Expires` a year ahead, while a stale
 * hash is redirected (301) to the current one.
 */
import { gzipSync } from 'node:zlib';
import type { RawRequest, RawResponse } from '@kplane/api';

/** kube-apiserver's protobuf media type for the v2 document (the Content-Type of its answers). */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The older spelling of the same media type, which kubectl and client-go send. */
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

/** A built document: its bytes, their ETag (unquoted) and when it was built. */
export interface ServedDocument {
  readonly json: Uint8Array;
  readonly etag: string;
  readonly lastModified: Date;
}

/**
 * Go's http.ServeContent on a document: Last-Modified and Accept-Ranges, or a 304 (ETag kept,
 * Content-Type dropped) when If-None-Match matches the ETag or, without one, If-Modified-Since
 * is not older than the document. `headers` already holds the ETag and Content-Type.
 */
function serveContent(req: RawRequest, doc: { etag: string; lastModified: Date }, headers: Record<string, string>, body: () => Uint8Array): RawResponse {
  const modified = new Date(Math.floor(doc.lastModified.getTime() / 1000) * 1000);
  const inm = req.headers?.['if-none-match'];
  const ims = req.headers?.['if-modified-since'];
  const notModified = inm !== undefined ? etagMatches(inm, doc.etag) : ims !== undefined && !Number.isNaN(Date.parse(ims)) && modified.getTime() <= Date.parse(ims);
  if (notModified) {
    const { 'content-type': _type, ...rest } = headers;
    return { status: 304, headers: rest, body: new Uint8Array() };
  }
  return { status: 200, headers: { ...headers, 'last-modified': modified.toUTCString(), 'accept-ranges': 'bytes' }, body: body() };
}

/** The first offer the Accept header's clauses (best first) take, if any. */
function negotiate<T extends { subType: string }>(accept: string | undefined, offers: T[]): T | undefined {
  for (const clause of parseAcceptClauses(accept)) {
    for (const offer of offers) {
      if (clause.type !== 'application' && clause.type !== '*') continue;
      if (clause.subType === offer.subType || clause.subType === '*') return offer;
    }
  }
  return undefined;
}

/** Answers a request for /openapi/v2 from the (lazily built) document. */
export function serveOpenAPIV2(req: RawRequest, spec: () => SwaggerSpec): RawResponse {
  const headers: Record<string, string> = { vary: 'Accept-Encoding, Accept' };
  const offer = negotiate(req.headers?.accept, OFFERS);
  if (!offer) return { status: 406, headers, body: new Uint8Array() };
  const s = spec();
  const r = serveContent(req, s, { ...headers, 'content-type': offer.contentType, etag: `"${s.etag}"` }, () => (offer.protobuf ? s.protobuf() : s.json));
  if (r.status === 200 && r.body!.byteLength >= GZIP_MIN_SIZE && acceptsGzip(req.headers?.['accept-encoding'])) {
    return { ...r, headers: { ...r.headers, 'content-encoding': 'gzip' }, body: gzipSync(r.body!) };
  }
  return r;
}

/** Answers a request for the /openapi/v3 root document. */
export function serveOpenAPIV3Root(req: RawRequest, root: ServedDocument): RawResponse {
  return serveContent(req, root, { 'content-type': 'application/json', etag: `"${root.etag}"` }, () => root.json);
}

/**
 * Answers a request for one /openapi/v3 group/version document (`key` is "api/v1" or
 * "apis/<group>/<version>"); `now` dates the Expires header of hashed requests.
 */
export function serveOpenAPIV3Document(req: RawRequest, key: string, doc: ServedDocument, now: Date): RawResponse {
  const headers: Record<string, string> = { vary: 'Accept' };
  if (!negotiate(req.headers?.accept, [{ subType: 'json' }])) return { status: 406, headers, body: new Uint8Array() };
  headers['content-type'] = 'application/json';
  headers.etag = `"${doc.etag}"`;
  const hash = req.query?.hash;
  if (hash) {
    if (hash !== doc.etag) {
      const location = `/openapi/v3/${key}?hash=${doc.etag}`;
      return { status: 301, headers: { ...headers, location, 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(`<a href="${location}">Moved Permanently</a>.\n\n`) };
    }
    headers['cache-control'] = 'public, immutable';
    const expires = new Date(now.getTime());
    expires.setUTCFullYear(expires.getUTCFullYear() + 1);
    headers.expires = expires.toUTCString().replace(/GMT$/, 'UTC');
  }
  return serveContent(req, doc, headers, () => doc.json);
}
