/**
 * Per-node credentials for `kplane kubelet`, as a kubelet's TLS bootstrap: for each node a new
 * key and a CertificateSigningRequest for a client certificate with CN=system:node:NAME,
 * O=system:nodes (signer kubernetes.io/kube-apiserver-client), approved with the bootstrap
 * identity (the kubeconfig's user, which needs `approve` on the signer) and signed by the
 * controller manager's signer; the node then talks to the API server with that certificate
 * only, so the Node authorizer and NodeRestriction apply to it.
 */
import { randomBytes } from 'node:crypto';
import { NODES_GROUP, nodeUsername } from '@kplane/api';
import { createClient, createHttpsTransport, type Client, type HttpsTransport, type HttpsTransportOptions } from '@kplane/client';
import { CertificateSigningRequests, createClientCertificateRequest, KUBE_APISERVER_CLIENT_SIGNER } from '@kplane/controllers';

/** Options of nodeClientFactory. */
export interface NodeCredentialOptions {
  /** The bootstrap client: creates and approves the requests. */
  bootstrap: Client;
  /** How to reach the API server (its URL and CA are used; its credentials are not). */
  server: HttpsTransportOptions;
  userAgent?: string;
  /** How long to wait for the signer (default 30 s). */
  timeoutMs?: number;
  /** Between looks at the request while waiting (default 200 ms). */
  pollMs?: number;
}

/** Requests, approves and waits for a node's client certificate; resolves with its PEM certificate and key. */
export async function requestNodeCertificate(options: NodeCredentialOptions, nodeName: string): Promise<{ cert: string; key: string }> {
  const csrs = options.bootstrap.resource(CertificateSigningRequests);
  const { request, key } = await createClientCertificateRequest(nodeUsername(nodeName), [NODES_GROUP]);
  const name = `node-client-${nodeName}-${randomBytes(4).toString('hex')}`;
  const created = await csrs.create({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(request).toString('base64'), signerName: KUBE_APISERVER_CLIENT_SIGNER, usages: ['digital signature', 'key encipherment', 'client auth'] },
  });
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await csrs.updateSubresource(name, 'approval', {
    ...created,
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: `kplane kubelet approved the client certificate of node ${nodeName}`, lastUpdateTime: now }] },
  });
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const csr = await csrs.get(name);
    const status = (csr.status ?? {}) as { certificate?: string; conditions?: { type: string; message?: string }[] };
    if (status.certificate) return { cert: Buffer.from(status.certificate, 'base64').toString('utf8'), key };
    const failed = status.conditions?.find((c) => c.type === 'Failed' || c.type === 'Denied');
    if (failed) throw new Error(`the client certificate of node ${nodeName} was not issued (${failed.type}: ${failed.message ?? ''})`);
    if (Date.now() > deadline) throw new Error(`the client certificate of node ${nodeName} was not signed in time (is a controller manager with the CSR signer running?)`);
    await new Promise((r) => setTimeout(r, options.pollMs ?? 200));
  }
}

/**
 * Requests a client certificate for each node and returns a client per node that presents only
 * that certificate, and a function that closes their connections.
 */
export async function nodeClients(options: NodeCredentialOptions, nodeNames: readonly string[]): Promise<{ clientFor: (node: string) => Client; close(): void }> {
  const { cert: _c, key: _k, token: _t, tokenFile: _f, username: _u, password: _p, ...connection } = options.server;
  const transports = new Map<string, HttpsTransport>();
  try {
    for (const node of nodeNames) {
      const credentials = await requestNodeCertificate(options, node);
      transports.set(node, createHttpsTransport({ ...connection, ...credentials, userAgent: options.userAgent }));
    }
  } catch (err) {
    for (const t of transports.values()) t.close();
    throw err;
  }
  const clients = new Map([...transports].map(([node, transport]) => [node, createClient({ transport })]));
  return {
    clientFor: (node) => {
      const c = clients.get(node);
      if (!c) throw new Error(`no credentials for node ${node}`);
      return c;
    },
    close: () => transports.forEach((t) => t.close()),
  };
}
