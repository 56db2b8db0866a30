/**
 * How the API server reaches a kubelet in another process, as kube-apiserver does with
 * --kubelet-client-certificate: HTTPS to the address and port its Node reports
 * (status.addresses, status.daemonEndpoints.kubeletEndpoint.Port), a client certificate of
 * kplane's CA, the kubelet's serving certificate checked against that CA. `pods/log` reads
 * /containerLogs/NS/POD/CONTAINER; exec, attach and portforward upgrades are proxied as they
 * came (websocket or SPDY) to /exec, /attach and /portForward.
 */
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { connect } from 'node:tls';
import type { Duplex } from 'node:stream';
import { ApiError, badRequest, type KubeObject } from '@kplane/api';
import type { Store } from '../registry/store.js';
import type { ContainerLogQuery, LogRead, NodeContainers } from './nodes.js';
import { statusResponse, writeResponse, type StreamTarget } from './stream-sessions.js';

/** The user the API server's kubelet client certificate names (kubeadm's). */
export const KUBELET_CLIENT_USER = 'kube-apiserver-kubelet-client';

/** The API server's credentials towards kubelets. */
export interface KubeletClientConfig {
  /** Client certificate and key (PEM), signed by a CA the kubelets trust. */
  cert: string;
  key: string;
  /** The CA that signed the kubelets' serving certificates. */
  ca: string;
  /** How long a connection may take (default 5 s). */
  connectTimeoutMs?: number;
}

interface NodeStatus {
  status?: { addresses?: { type: string; address: string }[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
}

/** The kubelets of other processes, reached over HTTPS. */
export interface KubeletClient {
  /** The container logs of a node's kubelet, or undefined when its Node names no kubelet port. */
  containers(node: string): Promise<NodeContainers | undefined>;
  /** Proxies a streaming upgrade to the kubelet of `node`; false when its Node names no kubelet port. */
  proxyUpgrade(node: string, t: StreamTarget, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<boolean>;
}

/** The address types tried in order (kube-apiserver's --kubelet-preferred-address-types, IP first). */
const ADDRESS_TYPES = ['InternalIP', 'ExternalIP', 'InternalDNS', 'ExternalDNS', 'Hostname'];

/** Headers of the client's request that are not passed on to the kubelet. */
const DROPPED = /^(authorization|host|impersonate-.*|cookie|proxy-authorization)$/i;

/** Creates the API server's kubelet client over the Nodes in `nodes()`. */
export function createKubeletClient(config: KubeletClientConfig, nodes: () => Store | undefined): KubeletClient {
  const timeout = config.connectTimeoutMs ?? 5000;

  async function endpoint(node: string): Promise<{ host: string; port: number } | undefined> {
    const store = nodes();
    if (!store) return undefined;
    let n: KubeObject & NodeStatus;
    try {
      n = (await store.get('', node)) as KubeObject & NodeStatus;
    } catch {
      return undefined;
    }
    const port = n.status?.daemonEndpoints?.kubeletEndpoint?.Port;
    if (!port) return undefined;
    const addresses = n.status?.addresses ?? [];
    const host = ADDRESS_TYPES.map((t) => addresses.find((a) => a.type === t)?.address).find(Boolean);
    return host ? { host, port } : undefined;
  }

  const hostPort = (e: { host: string; port: number }) => (e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`);

  function readLogs(e: { host: string; port: number }, path: string, signal: AbortSignal | undefined): Promise<LogRead> {
    return new Promise((resolve, reject) => {
      const req = request({ host: e.host, port: e.port, path, method: 'GET', cert: config.cert, key: config.key, ca: config.ca, timeout, signal, agent: false });
      req.on('timeout', () => req.destroy(new Error(`dial tcp ${hostPort(e)}: i/o timeout`)));
      req.on('error', (err) => reject(new ApiError(500, 'InternalError', `Internal error occurred: Get "https://${hostPort(e)}${path}": ${err.message}`)));
      req.on('response', (res) => {
        req.setTimeout(0);
        if (res.statusCode === 200) return resolve(text(res));
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body = (body + c).slice(0, 64 * 1024)));
        res.on('end', () => reject(res.statusCode === 400 ? badRequest(body.trim()) : new ApiError(500, 'InternalError', `Internal error occurred: ${body.trim() || `the kubelet answered ${res.statusCode}`}`)));
      });
      req.end();
    });
  }

  return {
    async containers(node) {
      const e = await endpoint(node);
      if (!e) return undefined;
      return {
        read: (_uid: string, container: string, query: ContainerLogQuery, pod?: { namespace: string; name: string }) => {
          const q = new URLSearchParams();
          if (query.follow) q.set('follow', 'true');
          if (query.previous) q.set('previous', 'true');
          if (query.timestamps) q.set('timestamps', 'true');
          if (query.tailLines !== undefined) q.set('tailLines', String(query.tailLines));
          if (query.sinceMs !== undefined) q.set('sinceTime', new Date(query.sinceMs).toISOString());
          const path = `/containerLogs/${encodeURIComponent(pod?.namespace ?? '')}/${encodeURIComponent(pod?.name ?? '')}/${encodeURIComponent(container)}${q.size ? `?${q}` : ''}`;
          return readLogs(e, path, query.signal);
        },
      };
    },

    async proxyUpgrade(node, t, req, socket, head) {
      const e = await endpoint(node);
      if (!e) return false;
      const pod = `${encodeURIComponent(t.namespace)}/${encodeURIComponent(t.pod)}`;
      const path = t.sub === 'portforward' ? `/portForward/${pod}` : `/${t.sub}/${pod}/${encodeURIComponent(t.container ?? '')}`;
      const query = req.url?.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
      let head0 = `${req.method ?? 'GET'} ${path}${query} HTTP/1.1\r\nHost: ${hostPort(e)}\r\n`;
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        if (!DROPPED.test(req.rawHeaders[i]!)) head0 += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
      }
      const backend = connect({ host: e.host, port: e.port, cert: config.cert, key: config.key, ca: config.ca, servername: /^[\d.:]+$/.test(e.host) ? undefined : e.host });
      backend.setTimeout(timeout, () => backend.destroy(new Error(`dial tcp ${hostPort(e)}: i/o timeout`)));
      let connected = false;
      backend.once('secureConnect', () => {
        connected = true;
        backend.setTimeout(0);
        backend.write(head0 + '\r\n');
        if (head.length) backend.write(head);
        backend.pipe(socket);
        socket.pipe(backend);
      });
      backend.on('error', (err) => {
        if (!connected && !socket.destroyed) writeResponse(socket, statusResponse(new ApiError(500, 'InternalError', `Internal error occurred: error dialing backend: ${err.message}`)));
        else socket.destroy();
      });
      socket.on('error', () => backend.destroy());
      socket.on('close', () => backend.destroy());
      backend.on('close', () => socket.destroy());
      return true;
    },
  };
}

async function* text(res: IncomingMessage): AsyncIterable<string> {
  res.setEncoding('utf8');
  for await (const chunk of res) yield chunk as string;
}
