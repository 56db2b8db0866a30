import type { WatchEvent } from './types.js';

/**
 * The raw request/response pair that joins a client to an API server. Over HTTPS it is carried
 * by node:https; in-process the API server's handler is called directly with the same shapes,
 * so both paths have the same semantics.
 */
export interface RawRequest {
  method: string;
  /** The path without the query, e.g. "/api/v1/namespaces/default/configmaps". */
  path: string;
  /** Query parameters (already decoded). */
  query?: Record<string, string>;
  /** Lower-case header names. */
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** Aborts a streaming response (watch). */
  signal?: AbortSignal;
  /**
   * Who sends the request. The HTTPS server always sets it from the request's credentials
   * (never from anything the client sends); an in-process caller sets it to act as a given
   * identity (a controller's ServiceAccount, a node). See the API server's auth README.
   */
  user?: UserInfo;
  /** The client's address, as the HTTPS server saw the connection (audit's sourceIPs); absent in-process. */
  remoteAddress?: string;
  /**
   * In-process only: the caller takes a watch's events as objects (`RawResponse.events`)
   * rather than bytes, and treats them as read-only. The API server then answers a watch of
   * whole objects with the objects its watch cache already decoded, deep-frozen and shared
   * with every other such watcher, with no encoding or parsing. Anything that carries the
   * request elsewhere (HTTPS, another thread) leaves it out: the answer is then bytes.
   */
  objects?: boolean;
}

/**
 * An authenticated identity, as Kubernetes' user.Info (and authentication.k8s.io/v1 UserInfo):
 * user name, uid, groups and extra attributes.
 */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A response: whole (`body`), streamed (`stream`, for watch), or a watch's events as objects (`events`). */
export interface RawResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body?: Uint8Array;
  stream?: AsyncIterable<Uint8Array>;
  /**
   * A watch answered as objects (only to a request with `objects: true`), in batches: the
   * events the stream's bytes would carry, decoded, in the same order. Their objects are
   * deep-frozen and may be shared with other watchers; the arrays are the reader's own.
   */
  events?: AsyncIterable<WatchEvent[]>;
}

/** Sends one request. */
export type Transport = (req: RawRequest) => Promise<RawResponse>;

/**
 * `req` without `objects`: for a transport that carries requests elsewhere (another thread, a
 * wrapper that reads the response's bytes), whose answer must be bytes.
 */
export function withoutObjects(req: RawRequest): RawRequest {
  if (req.objects === undefined) return req;
  const { objects: _objects, ...rest } = req;
  return rest;
}
