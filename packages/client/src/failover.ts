/**
 * One client over several API servers of one cluster (a kubeconfig that lists them): requests
 * go to one server until it cannot be reached, then to the next. A request that never reached
 * a server (connection refused, host unreachable, ...) is sent again to the next one; one that
 * failed after it may have been received (a reset connection) fails as it would without
 * failover, unless it is a read, and the next request goes elsewhere.
 */
import type { RawRequest, RawResponse } from '@kplane/api';
import { createHttpsTransport, type HttpsTransport, type HttpsTransportOptions } from './https-transport.js';

/** Errors of a connection that was never made: the request was not sent. */
const NOT_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN']);
/** Errors of a connection lost on the way: the request may have been received. */
const LOST = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

const codeOf = (err: unknown): string | undefined => {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.message === 'string' && e.message === 'socket hang up' ? 'ECONNRESET' : undefined;
};

/** Reads are sent again after a lost connection; writes only when they were never sent. */
const isRead = (req: RawRequest): boolean => req.method === 'GET' || req.method === 'HEAD';

/**
 * A transport over several servers with the same credentials and CA (`options.server` is
 * ignored): each request is tried on the current server, then on the others in turn.
 */
export function createFailoverTransport(servers: readonly string[], options: Omit<HttpsTransportOptions, 'server' | 'servers'>): HttpsTransport {
  if (servers.length === 0) throw new Error('createFailoverTransport: no server');
  const transports = servers.map((server) => createHttpsTransport({ ...options, server, servers: undefined }));
  let current = 0;
  const transport = async (req: RawRequest): Promise<RawResponse> => {
    const first = current;
    for (let tried = 0; ; tried++) {
      const i = (first + tried) % transports.length;
      try {
        const res = await transports[i]!(req);
        current = i;
        return res;
      } catch (err) {
        const code = codeOf(err);
        const retry = code !== undefined && (NOT_SENT.has(code) || (LOST.has(code) && isRead(req)));
        if (code !== undefined && (NOT_SENT.has(code) || LOST.has(code)) && current === i) current = (i + 1) % transports.length;
        if (!retry || req.signal?.aborted || tried + 1 >= transports.length) throw err;
      }
    }
  };
  return Object.assign(transport, {
    close() {
      for (const t of transports) t.close();
    },
  });
}
