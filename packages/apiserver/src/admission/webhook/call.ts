/** One call of an admission webhook: the AdmissionReview v1 posted over HTTPS, the answer checked. */
import type { ClientRequest } from 'node:http';
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';

/** Where a webhook is reached: the URL kube names it by, and the address dialled. */
export interface WebhookTarget {
  /** The URL as errors name it, e.g. "https://hook.default.svc:443/validate?timeout=10s". */
  url: string;
  /** The host name the certificate is checked against. */
  serverName: string;
  /** The address and port dialled. */
  host: string;
  port: number;
  /** The path and query sent. */
  path: string;
}

/**
 * A webhook that could not be called or answered badly (kube's ErrCallingWebhook). `code` is
 * the status kube records for it in the webhook metrics: the webhook's HTTP status when it
 * answered with an error, 400 when it could not be called, 503 for an invalid answer.
 */
export class WebhookCallError extends Error {
  constructor(
    readonly webhook: string,
    readonly reason: string,
    readonly code: number = 400,
  ) {
    super(`failed calling webhook "${webhook}": ${reason}`);
  }
}

/** Go's wording of a connection or TLS failure, as net/http reports it. */
function goError(err: NodeJS.ErrnoException & { address?: string; port?: number }, target: WebhookTarget): string {
  const addr = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${target.host}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${target.serverName}`;
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return err.message;
  }
}

/**
 * Connections to webhooks stay open between calls, as kube-apiserver's webhook clients keep
 * theirs: one TLS handshake per connection rather than per call (Node pools them by address,
 * server name and CA; idle ones do not keep the process alive and close after a minute).
 */
const keepAlive = new Agent({ keepAlive: true, timeout: 60_000 });

/** Errors of a kept-alive connection the server closed just as it was reused: the call is sent again on a new one. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * Posts `body` to the target and returns the parsed answer. The CA bundle (PEM, from the
 * configuration's base64 caBundle) verifies the server; without one the system's roots do.
 * Failures are WebhookCallErrors worded as kube-apiserver words them.
 */
export function postReview(name: string, target: WebhookTarget, body: unknown, caBundle: string | undefined, timeoutMs: number): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(body));
  const failed = (why: string, code?: number) => new WebhookCallError(name, `failed to call webhook: Post "${target.url}": ${why}`, code);
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    let req: ClientRequest;
    const send = (retry: boolean) => {
      req = request(
        {
          host: target.host,
          port: target.port,
          path: target.path,
          method: 'POST',
          servername: isIP(target.serverName) ? undefined : target.serverName,
          ca: caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined,
          headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': payload.length },
          agent: keepAlive,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) => done(() => reject(failed(goError(err, target)))));
          res.on('end', () =>
            done(() => {
              const text = Buffer.concat(chunks).toString('utf8');
              const code = res.statusCode ?? 0;
              if (code < 200 || code > 299) {
                reject(failed(`the server responded with the status code ${code} but did not return more information`, code));
                return;
              }
              try {
                resolve(JSON.parse(text));
              } catch (err) {
                reject(new WebhookCallError(name, `received invalid webhook response: ${(err as Error).message}`));
              }
            }),
          );
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (retry && !settled && req.reusedSocket && STALE_CONNECTION.has(err.code ?? '')) return send(false);
        done(() => reject(failed(goError(err, target))));
      });
      req.end(payload);
    };
    // Node checks the certificate against `servername` (SNI) when set, else against the host.
    const timer = setTimeout(() => {
      done(() => reject(failed('context deadline exceeded')));
      req.destroy();
    }, timeoutMs);
    send(true);
  });
}
