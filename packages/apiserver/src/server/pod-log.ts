/**
 * GET /api/v1/namespaces/<ns>/pods/<name>/log: a container's log as text/plain, as
 * kube-apiserver's LogREST serves it (options checked as PodLogOptions, the container chosen
 * as LogLocation does), read from the simulated kubelet of the pod's node (see nodes.ts) with the
 * kubelet's own checks and messages.
 */
import type { KubeObject, RawResponse } from '@kplane/api';
import { ApiError, badRequest, fieldForbidden, fieldInvalid, invalid, type StatusCause } from '@kplane/api';
import type { Store } from '../registry/store.js';
import { parseBoolParam } from './limits.js';
import type { ContainerLogQuery, NodeConnections } from './nodes.js';

interface Container {
  name: string;
}
interface ContainerStatus {
  name: string;
  state?: { waiting?: { reason?: string }; running?: object; terminated?: object };
  lastState?: { terminated?: object };
}
interface Pod extends KubeObject {
  spec?: { nodeName?: string; containers?: Container[]; initContainers?: Container[]; ephemeralContainers?: Container[] };
  status?: { containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[]; ephemeralContainerStatuses?: ContainerStatus[] };
}

/** The checked options of a log request. */
export interface PodLogOptions extends ContainerLogQuery {
  container?: string;
  limitBytes?: number;
}

function int(q: Record<string, string>, key: string): number | undefined {
  const v = q[key];
  if (v === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing "${v}": invalid syntax`);
  return Number(v);
}

/** Reads and checks the query of `pods/log` as kube-apiserver does (422 PodLogOptions is invalid). */
export function podLogOptions(name: string, q: Record<string, string>, now: number): PodLogOptions {
  const bool = (k: string) => q[k] !== undefined && parseBoolParam(q[k]!);
  const tailLines = int(q, 'tailLines');
  const limitBytes = int(q, 'limitBytes');
  const sinceSeconds = int(q, 'sinceSeconds');
  let sinceTime: number | undefined;
  if (q.sinceTime !== undefined && q.sinceTime !== '') {
    sinceTime = Date.parse(q.sinceTime);
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(q.sinceTime) || Number.isNaN(sinceTime)) {
      throw badRequest(`parsing time "${q.sinceTime}" as "2006-01-02T15:04:05Z07:00": cannot parse "${q.sinceTime}" as "2006"`);
    }
  }
  const causes: StatusCause[] = [];
  if (tailLines !== undefined && tailLines < 0) causes.push(fieldInvalid('tailLines', tailLines, 'must be greater than or equal to 0'));
  if (limitBytes !== undefined && limitBytes < 1) causes.push(fieldInvalid('limitBytes', limitBytes, 'must be greater than 0'));
  if (sinceSeconds !== undefined && sinceTime !== undefined) causes.push(fieldForbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (sinceSeconds !== undefined && sinceSeconds < 1) causes.push(fieldInvalid('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  if (causes.length) throw invalid('', 'PodLogOptions', name, causes);
  return {
    container: q.container || undefined,
    follow: bool('follow'),
    previous: bool('previous'),
    timestamps: bool('timestamps'),
    tailLines,
    limitBytes,
    sinceMs: sinceSeconds !== undefined ? now - sinceSeconds * 1000 : sinceTime,
  };
}

/** The container a request means, as kube's validateContainer picks it (400 with its messages). */
export function logContainer(pod: Pod, container: string | undefined): string {
  const name = pod.metadata?.name ?? '';
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].map((c) => c.name);
  if (!container) {
    const main = pod.spec?.containers ?? [];
    if (main.length === 1) return main[0]!.name;
    if (main.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(' ')}]`);
  }
  if (!all.includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** Why the kubelet has no log to show, in its words (400). */
export function logUnavailable(pod: Pod, container: string, reason: 'NoContainer' | 'NoPrevious'): ApiError {
  const name = pod.metadata?.name ?? '';
  if (reason === 'NoPrevious') return badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
  const s = pod.status;
  const cs = [...(s?.containerStatuses ?? []), ...(s?.initContainerStatuses ?? []), ...(s?.ephemeralContainerStatuses ?? [])].find((c) => c.name === container);
  const waiting = cs?.state?.waiting?.reason;
  if (waiting === 'ErrImagePull' || waiting === 'ImagePullBackOff') return badRequest(`container "${container}" in pod "${name}" is waiting to start: image can't be pulled`);
  if (waiting !== undefined) return badRequest(`container "${container}" in pod "${name}" is waiting to start: ${waiting}`);
  if (!cs) return badRequest(`container "${container}" in pod "${name}" is waiting to start: ContainerCreating`);
  return badRequest(`container "${container}" in pod "${name}" is not available`);
}

async function* limited(source: AsyncIterable<string>, limitBytes: number | undefined): AsyncIterable<Uint8Array> {
  let left = limitBytes ?? Infinity;
  for await (const chunk of source) {
    let b = Buffer.from(chunk);
    if (b.length > left) b = b.subarray(0, left);
    left -= b.length;
    if (b.length) yield b;
    if (left <= 0) return;
  }
}

const TEXT = { 'content-type': 'text/plain' };

/**
 * Serves `pods/log`: 404 for a missing pod, 400 for a container that cannot be chosen or has no
 * log, an empty body for a pod no node has yet; otherwise the log, streamed (follow ends when the
 * container stops or the client goes away).
 */
export async function servePodLog(pods: Store, namespace: string, name: string, q: Record<string, string>, signal: AbortSignal | undefined, nodes: NodeConnections, now: number): Promise<RawResponse> {
  const opts = podLogOptions(name, q, now);
  const pod = (await pods.get(namespace, name)) as Pod;
  const container = logContainer(pod, opts.container);
  const node = pod.spec?.nodeName;
  if (!node) return { status: 200, headers: TEXT, body: new Uint8Array() };
  const kubelet = nodes.get(node) ?? (await nodes.remote?.(node));
  if (!kubelet) {
    throw new ApiError(500, 'InternalError', `Internal error occurred: no kubelet serves node "${node}" to this API server: its Node has no kubelet port, or the API server has no kubelet client certificate`);
  }
  const read = await kubelet.read(pod.metadata!.uid!, container, { ...opts, signal }, { namespace, name });
  if (!(Symbol.asyncIterator in read)) throw logUnavailable(pod, container, read.reason);
  if (!opts.follow) {
    const chunks: Uint8Array[] = [];
    for await (const c of limited(read, opts.limitBytes)) chunks.push(c);
    return { status: 200, headers: TEXT, body: Buffer.concat(chunks) };
  }
  return { status: 200, headers: { ...TEXT, 'transfer-encoding': 'chunked' }, stream: limited(read, opts.limitBytes) };
}
