/** A local HTTPS admission webhook for tests: records each AdmissionReview and answers what the test says. */
import { createServer } from 'node:https';
import type { KubeObject } from '@kplane/api';
import { createCa, issueCertificate } from '../../auth/pki.js';
import type { Webhook, WebhookSource } from './plugin.js';
import type { ClientConfig } from './resolve.js';

/** An AdmissionReview as a webhook receives it. */
export interface ReceivedReview {
  apiVersion: string;
  kind: string;
  request: {
    uid: string;
    operation: string;
    kind: { group: string; version: string; kind: string };
    resource: { group: string; version: string; resource: string };
    requestKind: { group: string; version: string; kind: string };
    requestResource: { group: string; version: string; resource: string };
    name?: string;
    namespace?: string;
    object: KubeObject | null;
    oldObject: KubeObject | null;
  };
}

/** A running review server. */
export interface ReviewServer {
  /** The webhook URL of a path (`clientConfig.url`). */
  url(path: string): string;
  /** The base64 CA bundle that verifies the server. */
  readonly caBundle: string;
  /** The reviews received, in order, with the path each was posted to. */
  readonly received: { path: string; review: ReceivedReview }[];
  /** TLS connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** The v1 answer to a review: its uid echoed, `allowed` true unless `response` says otherwise. */
export function reply(review: ReceivedReview, response: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true, ...response } };
}

/** A webhook called on CREATE of v1 ConfigMaps (failurePolicy Fail, no side effects, AdmissionReview v1); `extra` overrides. */
export function configMapWebhook(name: string, clientConfig: ClientConfig, extra: Partial<Webhook> = {}): Webhook {
  return {
    name,
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    clientConfig,
    ...extra,
  };
}

/** A JSONPatch response field pair (base64 patch and its type). */
export function jsonPatch(ops: unknown[]): { patch: string; patchType: 'JSONPatch' } {
  return { patch: Buffer.from(JSON.stringify(ops)).toString('base64'), patchType: 'JSONPatch' };
}

/**
 * Starts an HTTPS server on 127.0.0.1 with a certificate for 127.0.0.1 from a fresh CA;
 * `answer(review, path)` gives the body answered (default: allowed).
 */
export async function startReviewServer(answer: (review: ReceivedReview, path: string) => unknown = (r) => reply(r)): Promise<ReviewServer> {
  const ca = await createCa('test-webhook-ca');
  const serving = await issueCertificate(ca, { subject: 'CN=127.0.0.1', usage: 'server', ipAddresses: ['127.0.0.1'] });
  const received: ReviewServer['received'] = [];
  const server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url!.split('?')[0]!;
      const review = JSON.parse(Buffer.concat(chunks).toString()) as ReceivedReview;
      received.push({ path, review });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(review, path)));
    });
  });
  let connections = 0;
  server.on('secureConnection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    caBundle: Buffer.from(ca.pem.cert).toString('base64'),
    received,
    connections: () => connections,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** A webhook source over fixed webhooks (one configuration of each type), every namespace labelled with its name. */
export function staticSource(validating: Webhook[], mutating: Webhook[] = [], extra: Partial<WebhookSource> = {}): WebhookSource {
  return {
    validating: () => (validating.length ? [{ metadata: { name: 'v' }, webhooks: validating }] : []),
    mutating: () => (mutating.length ? [{ metadata: { name: 'm' }, webhooks: mutating }] : []),
    namespace: async (name) => ({ metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }),
    objects: { list: async () => [] },
    ...extra,
  };
}
