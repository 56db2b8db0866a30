/**
 * pods/exec, pods/attach and pods/portforward: the streaming subresources, served on protocol
 * upgrades. The request is first routed, authorised and checked by the handler (as a non-upgrade
 * request it would get 400 "Upgrade request required"); then the session is served
 * (stream-sessions.ts: websocket channel protocols, SPDY/3.1, SPDY tunnelled in a websocket) here
 * for in-process kubelets, or proxied to the kubelet process of the pod's node.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KubeObject, RawRequest, RawResponse } from '@kplane/api';
import { ApiError, badRequest } from '@kplane/api';
import type { Store } from '../registry/store.js';
import { logContainer } from './pod-log.js';
import { serveStreamUpgrade, statusResponse, upHint, writeResponse, type LocalStreams, type StreamTarget } from './stream-sessions.js';

export { simulatedMessage, type ForwardTarget, type LocalStreams } from './stream-sessions.js';

/** The subresources of pods served on upgrades. */
export const STREAM_SUBRESOURCES = ['exec', 'attach', 'portforward'];

const UPGRADE_REQUIRED = 'Upgrade request required';

/** 400 for a streaming subresource asked without an upgrade, as kube-apiserver answers it. */
export function upgradeRequired(): ApiError {
  return badRequest(UPGRADE_REQUIRED);
}

/**
 * Checks a streaming request before its upgrade, as kube-apiserver's ExecLocation,
 * AttachLocation and PortForwardLocation do (the pod exists, the container is valid, the pod has
 * a node), then throws `upgradeRequired`: the upgrade path takes that answer as its go-ahead.
 */
export async function checkStreamTarget(pods: Store, namespace: string, name: string, sub: string, q: Record<string, string>): Promise<never> {
  const pod = (await pods.get(namespace, name)) as KubeObject & { spec?: { nodeName?: string; containers?: { name: string }[] } };
  if (sub !== 'portforward') logContainer(pod, q.container);
  if (!pod.spec?.nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  throw upgradeRequired();
}

/** What the path of an upgrade names. */
function target(path: string): { namespace: string; pod: string; sub: 'exec' | 'attach' | 'portforward' } | undefined {
  const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)$/.exec(path);
  if (!m) return undefined;
  return { namespace: decodeURIComponent(m[1]!), pod: decodeURIComponent(m[2]!), sub: m[3] as 'exec' | 'attach' | 'portforward' };
}

/** Options of createStreamUpgrade. */
export interface StreamUpgradeOptions {
  /** The API handler: routes, authorises and checks the request before its upgrade. */
  handler: (req: RawRequest) => Promise<RawResponse>;
  /** The pods store (the container a request means, when it names none). */
  pods: () => Store | undefined;
  local?: LocalStreams;
  /**
   * Serves the request through the kubelet of a node in another process (proxied to its port);
   * resolves false when no such kubelet is known, and the request is served here.
   */
  remote?: (node: string, t: StreamTarget, req: IncomingMessage, socket: Duplex, head: Buffer) => Promise<boolean>;
}

/**
 * The upgrade handler of the HTTPS server: serves pods/exec, attach and portforward over
 * websocket; any other upgrade request is answered as an ordinary request, on the raw socket.
 */
export function createStreamUpgrade(options: StreamUpgradeOptions): (raw: RawRequest, req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const local = options.local ?? {};
  return (raw, req, socket, head) => {
    void (async () => {
      const t = target(raw.path);
      const done = new AbortController();
      const pre = await options.handler({ ...raw, signal: done.signal });
      done.abort();
      if (pre.stream) {
        // A watch or a followed log asked over websocket: kube-apiserver serves those, kplane does not.
        await pre.stream[Symbol.asyncIterator]().return?.();
        return writeResponse(socket, statusResponse(badRequest('kplane serves websocket upgrades on pods/exec, pods/attach and pods/portforward only')));
      }
      const go = t && pre.status === 400 && JSON.parse(Buffer.from(pre.body ?? []).toString('utf8')).message === UPGRADE_REQUIRED;
      if (!go || !t) return writeResponse(socket, pre);
      const query = new URLSearchParams(req.url?.split('?')[1] ?? '');
      const pods = options.pods();
      const pod = pods ? ((await pods.get(t.namespace, t.pod)) as KubeObject) : undefined;
      const container = t.sub === 'portforward' || !pod ? undefined : logContainer(pod, query.get('container') ?? undefined);
      const streamTarget: StreamTarget = { ...t, uid: pod?.metadata?.uid, container, query };
      const node = (pod as { spec?: { nodeName?: string } } | undefined)?.spec?.nodeName;
      if (node && options.remote && (await options.remote(node, streamTarget, req, socket, head))) return;
      serveStreamUpgrade(req, socket, head, streamTarget, { local, hint: (sub) => upHint(sub, local) });
    })().catch((err) => {
      if (!socket.destroyed) writeResponse(socket, statusResponse(err instanceof ApiError ? err : new ApiError(500, 'InternalError', `Internal error occurred: ${String(err)}`)));
    });
  };
}
