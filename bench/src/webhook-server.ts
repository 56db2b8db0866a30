/**
 * An admission webhook that allows everything: a plain `node:https` server answering each
 * AdmissionReview v1 with `allowed: true` and the request's uid, under a certificate for
 * 127.0.0.1 from a CA of its own (the caBundle of the configuration that calls it).
 */
import { createServer } from 'node:https';
import { createCa, issueCertificate } from '@kplane/apiserver';

/** A running allow-all webhook. */
export interface AllowAllWebhook {
  /** The URL to call (`clientConfig.url`), on 127.0.0.1. */
  url: string;
  /** The base64 PEM CA bundle that verifies it. */
  caBundle: string;
  /** Reviews answered so far. */
  answered(): number;
  close(): Promise<void>;
}

/** Starts the webhook on 127.0.0.1 at a free port. */
export async function startAllowAllWebhook(): Promise<AllowAllWebhook> {
  const ca = await createCa('bench-webhook-ca');
  const serving = await issueCertificate(ca, { subject: 'CN=127.0.0.1', usage: 'server', ipAddresses: ['127.0.0.1'] });
  let answered = 0;
  const server = createServer({ cert: serving.cert, key: serving.key, keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const uid = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request?: { uid?: string } }).request?.uid ?? '';
      answered++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}/validate`,
    caBundle: Buffer.from(ca.pem.cert).toString('base64'),
    answered: () => answered,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
