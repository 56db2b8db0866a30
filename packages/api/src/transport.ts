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
