/**
 * The Endpoints case: a Service selecting a Deployment scaled from 0 to 5,000 replicas, on an
 * in-process control plane with the endpointslice and endpoints controllers: how fast ready
 * endpoints reach the Service's EndpointSlices, against how fast the Deployment's pods become
 * Ready in the same run (the baseline the controllers follow).
 */
import type { Client } from '@kplane/client';
import { EndpointSlices, Namespaces, Services, type EndpointSlice } from '@kplane/runtime';
import { runInChild } from './child.js';
import { benchDeploymentScale, type DeploymentBenchResult, type PodsProbeResult } from './pods-bench.js';
import { formatTable } from './report.js';

/** What the slice watch saw. */
export interface EndpointsRunResult {
  replicas: number;
  /** From the scale request to every replica a ready endpoint in the slices (or the timeout). */
  seconds: number;
  reached: boolean;
  readyEndpoints: number;
  /** Slice writes seen (ADDED and MODIFIED events): the controller's endpoint updates. */
  sliceWrites: number;
  slices: number;
}

/** The Endpoints case: the Deployment baseline, the slices, and their ratio. */
export interface EndpointsBenchResult {
  deployment: DeploymentBenchResult;
  endpoints: EndpointsRunResult;
  /** Ready endpoints published per second / Deployment pods Ready per second. */
  ratio: number;
}

/** The target: ready endpoints published at least this fraction as fast as pods become Ready. */
export const ENDPOINTS_TARGET_RATIO = 0.9;

/** Creates the Service, scales the Deployment and watches its slices until all endpoints are ready. */
export async function benchEndpoints(client: Client, replicas: number, timeoutMs = 300_000): Promise<EndpointsBenchResult> {
  const namespace = 'bench-endpoints';
  await client.resource(Namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  await client.resource(Services).create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }, { namespace });
  const api = client.resource<EndpointSlice>(EndpointSlices);
  const ready = new Map<string, number>();
  let writes = 0;
  let t0 = 0;
  let done: EndpointsRunResult | undefined;
  const abort = new AbortController();
  const total = () => [...ready.values()].reduce((a, b) => a + b, 0);
  const watching = (async () => {
    let rv = (await api.list({ namespace })).metadata?.resourceVersion;
    while (!abort.signal.aborted && !done) {
      try {
        for await (const ev of api.watch({ namespace, labelSelector: 'kubernetes.io/service-name=web', resourceVersion: rv, signal: abort.signal })) {
          rv = ev.object.metadata?.resourceVersion ?? rv;
          const name = ev.object.metadata!.name!;
          if (ev.type === 'DELETED') ready.delete(name);
          else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
            writes++;
            ready.set(name, (ev.object.endpoints ?? []).filter((e) => e.conditions?.ready).length);
          }
          if (t0 > 0 && total() >= replicas) {
            done = { replicas, seconds: (performance.now() - t0) / 1000, reached: true, readyEndpoints: total(), sliceWrites: writes, slices: ready.size };
            return;
          }
        }
      } catch {
        if (abort.signal.aborted) return;
      }
    }
  })();
  t0 = performance.now();
  const deployment = await benchDeploymentScale({ client, replicas, namespace, timeoutMs });
  const deadline = performance.now() + timeoutMs;
  while (!done && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  abort.abort();
  await watching.catch(() => undefined);
  const endpoints = done ?? { replicas, seconds: (performance.now() - t0) / 1000, reached: false, readyEndpoints: total(), sliceWrites: writes, slices: ready.size };
  const ratio = endpoints.readyEndpoints / endpoints.seconds / (deployment.readyReplicas / deployment.seconds);
  return { deployment, endpoints, ratio };
}

/** Runs the Endpoints case (`probe-endpoints.js`) in a fresh child process. */
export function endpointsInChild(replicas: number, timeoutMs = 300_000): Promise<PodsProbeResult<EndpointsBenchResult>> {
  return runInChild(new URL('./probe-endpoints.js', import.meta.url), [String(replicas), String(timeoutMs)], { timeoutMs: 2 * timeoutMs + 60_000 });
}

/** The Endpoints table: the Deployment baseline, the slices, and their ratio against the target. */
export function formatEndpoints(p: PodsProbeResult<EndpointsBenchResult>): string {
  const { deployment, endpoints, ratio } = p.result;
  const ok = endpoints.reached && ratio >= ENDPOINTS_TARGET_RATIO;
  const lines = [
    formatTable(
      [
        ['case', 'seconds', 'per s', 'target', 'note'],
        [`Deployment 0 -> ${deployment.replicas} (baseline)`, deployment.seconds.toFixed(2), (deployment.readyReplicas / deployment.seconds).toFixed(0), '', 'pods Ready'],
        [
          `Service of ${endpoints.replicas} pods`,
          endpoints.seconds.toFixed(2),
          (endpoints.readyEndpoints / endpoints.seconds).toFixed(0),
          `>=${ENDPOINTS_TARGET_RATIO}x ${ok ? 'met' : 'MISSED'} (${ratio.toFixed(2)}x)`,
          `ready endpoints in ${endpoints.slices} EndpointSlices; ${endpoints.sliceWrites} slice writes (${(endpoints.sliceWrites / endpoints.seconds).toFixed(0)}/s)${endpoints.reached ? '' : `; ${endpoints.readyEndpoints}/${endpoints.replicas} at the deadline`}`,
        ],
      ],
      [1, 2],
    ),
  ];
  if (p.stderrLines > 0) lines.push(`Endpoints: the control plane wrote ${p.stderrLines} stderr lines${p.firstError ? `; first failure: ${p.firstError}` : ''}`);
  return lines.join('\n');
}
