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

/** A response: whole (`body`) or streamed (`stream`, for watch). */
export interface RawResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body?: Uint8Array;
  stream?: AsyncIterable<Uint8Array>;
}

/** Sends one request. */
export type Transport = (req: RawRequest) => Promise<RawResponse>;
