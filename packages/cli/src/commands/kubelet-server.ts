/**
 * The HTTPS port of `kplane kubelet`, as a kubelet's port 10250 serves the API server:
 * /containerLogs/NS/POD/CONTAINER (the container's log, with follow, previous, timestamps,
 * tailLines, sinceSeconds and sinceTime), and the upgrades /exec/NS/POD/CONTAINER,
 * /attach/NS/POD/CONTAINER and /portForward/NS/POD (websocket or SPDY, served as the API server
 * serves its in-process kubelets). Only the API server may call it: a client certificate of the
 * cluster's CA naming kube-apiserver-kubelet-client.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { ApiError, badRequest, notFound } from '@kplane/api';
import { issueCertificate, KUBELET_CLIENT_USER, logContainer, logUnavailable, podLogOptions, serveStreamUpgrade, statusResponse, writeResponse, type LocalStreams, type StreamTarget } from '@kplane/apiserver';
import { loadSigningCa } from '@kplane/controllers';
import type { Kubelet } from '@kplane/kubelet';

/** Options of startKubeletServer. */
export interface KubeletServerOptions {
  /** The kubelet whose pods are served (undefined while it starts: 503). */
  kubelet: () => Kubelet | undefined;
  /** Serving certificate and key (PEM). */
  cert: string;
  key: string;
  /** The CA of the API server's client certificate. */
  clientCa: string;
  host?: string;
  /** 0 picks a free port. */
  port: number;
  local?: LocalStreams;
}

/** A listening kubelet port. */
export interface KubeletServer {
  port: number;
  close(): Promise<void>;
}

/** The hint of `kplane kubelet`'s flags, for the clear error of simulated containers. */
function kubeletHint(sub: string, local: LocalStreams): string {
  if (sub === 'exec') return local.execDir === undefined ? 'start kplane kubelet with --exec-local to run exec commands as local processes' : '';
  if (sub === 'portforward') return 'start kplane kubelet with --port-forward POD_PORT=HOST:PORT to forward pod ports to local addresses';
  return '';
}

/** Who called, or the kubelet's 401 / 403 answer. */
function caller(req: IncomingMessage, verb: string): ApiError | undefined {
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return new ApiError(401, 'Unauthorized', 'Unauthorized');
  const cn = socket.getPeerCertificate().subject?.CN;
  const user = Array.isArray(cn) ? cn[0] : cn;
  if (user !== KUBELET_CLIENT_USER) return new ApiError(403, 'Forbidden', `Forbidden (user=${user ?? ''}, verb=${verb}, resource=nodes, subresource=proxy)`);
  return undefined;
}

function text(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(message);
}

const segment = (s: string) => decodeURIComponent(s);

/** Serves the kubelet's port until closed. */
export async function startKubeletServer(options: KubeletServerOptions): Promise<KubeletServer> {
  const local = options.local ?? {};
  const server: Server = createServer({ cert: options.cert, key: options.key, ca: options.clientCa, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    void serveRequest(req, res).catch((err) => {
      if (!res.headersSent) text(res, err instanceof ApiError ? err.code : 500, err instanceof Error ? err.message : String(err));
      else res.destroy();
    });
  });

  async function serveRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const denied = caller(req, 'get');
    if (denied) return text(res, denied.code, denied.message);
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (!m || req.method !== 'GET') return text(res, 404, '404 page not found');
    const [namespace, name, container] = [segment(m[1]!), segment(m[2]!), segment(m[3]!)];
    const kubelet = options.kubelet();
    if (!kubelet) return text(res, 503, 'the kubelet is starting');
    const pod = kubelet.pod(namespace, name);
    if (!pod) return text(res, 404, `pod "${namespace}/${name}" not found`);
    const q = Object.fromEntries(url.searchParams);
    const opts = podLogOptions(name, q, Date.now());
    logContainer(pod, container);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const read = kubelet.logs.read(pod.metadata!.uid!, container, { ...opts, signal: abort.signal });
    if (!(Symbol.asyncIterator in read)) throw logUnavailable(pod, container, read.reason);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.flushHeaders();
    for await (const chunk of read) if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
    res.end();
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      const denied = caller(req, 'create');
      if (denied) return writeResponse(socket, statusResponse(denied));
      const url = new URL(req.url ?? '/', 'https://kubelet');
      const m = /^\/(exec|attach)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname) ?? /^\/(portForward)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (!m) return writeResponse(socket, statusResponse(notFound('', '', url.pathname)));
      const sub = m[1] === 'portForward' ? 'portforward' : (m[1] as 'exec' | 'attach');
      const [namespace, name] = [segment(m[2]!), segment(m[3]!)];
      const pod = options.kubelet()?.pod(namespace, name);
      if (!pod) return writeResponse(socket, statusResponse(new ApiError(404, 'NotFound', `pod "${namespace}/${name}" not found`)));
      const container = sub === 'portforward' ? undefined : logContainer(pod, segment(m[4]!));
      const t: StreamTarget = { namespace, pod: name, uid: pod.metadata?.uid, sub, container, query: url.searchParams };
      serveStreamUpgrade(req, socket, head, t, { local, hint: (s) => kubeletHint(s, local) });
    } catch (err) {
      writeResponse(socket, statusResponse(err instanceof ApiError ? err : badRequest(String(err))));
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A serving certificate for the kubelet's address, signed by the cluster's CA (PEM). */
export async function kubeletServingCertificate(caCert: string, caKey: string, address: string): Promise<{ cert: string; key: string }> {
  const ca = await loadSigningCa(caCert, caKey);
  const isIp = /^[\d.]+$|:/.test(address);
  return issueCertificate(
    // Only the private key signs; the issuer's key identifier comes from the CA certificate.
    { keys: { privateKey: ca.key, publicKey: ca.key } as unknown as Parameters<typeof issueCertificate>[0]['keys'], cert: ca.cert },
    { subject: 'CN=kplane-kubelet, O=system:nodes', usage: 'server', dnsNames: ['localhost', ...(isIp ? [] : [address])], ipAddresses: ['127.0.0.1', ...(isIp && address !== '127.0.0.1' ? [address] : [])] },
  );
}
