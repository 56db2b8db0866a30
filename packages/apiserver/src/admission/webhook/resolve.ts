/** clientConfig to a target: a URL as given, or a Service resolved through its EndpointSlices. */
import { ApiError, type KubeObject } from '@kplane/api';
import type { AdmissionObjects } from '../objects.js';
import { WebhookCallError, type WebhookTarget } from './call.js';

/** A webhook's clientConfig (admissionregistration/v1 WebhookClientConfig). */
export interface ClientConfig {
  url?: string;
  service?: { namespace?: string; name?: string; path?: string; port?: number };
  caBundle?: string;
}

type Obj = Record<string, unknown>;
const asArray = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

async function endpointFor(objects: Pick<AdmissionObjects, 'list'>, namespace: string, name: string, port: number): Promise<{ host: string; port: number }> {
  const services = await objects.list('', 'v1', 'services', namespace);
  const svc = services.find((s) => s.metadata?.name === name);
  if (!svc) throw new Error(`service "${name}" not found`);
  const svcPort = asArray((svc.spec as Obj | undefined)?.ports).find((p) => p.port === port);
  if (!svcPort) throw new Error(`no service port ${port} found for service "${name}"`);
  const slices: KubeObject[] = (await objects.list('discovery.k8s.io', 'v1', 'endpointslices', namespace)).filter(
    (s) => s.metadata?.labels?.['kubernetes.io/service-name'] === name,
  );
  for (const slice of slices) {
    const slicePort = asArray((slice as Obj).ports).find((p) => (p.name ?? '') === (svcPort.name ?? ''));
    if (typeof slicePort?.port !== 'number') continue;
    for (const ep of asArray((slice as Obj).endpoints)) {
      const ready = (ep.conditions as Obj | undefined)?.ready;
      const address = (ep.addresses as string[] | undefined)?.[0];
      if (ready !== false && address) return { host: address, port: slicePort.port };
    }
  }
  throw new Error(`no endpoints available for service "${name}"`);
}

/**
 * Resolves where a webhook is called. A service reference becomes
 * https://NAME.NAMESPACE.svc:PORT/PATH (the name the certificate is checked against), dialled at
 * a ready endpoint of the Service's EndpointSlices.
 */
export async function resolveTarget(webhook: string, config: ClientConfig, timeoutSeconds: number, objects: Pick<AdmissionObjects, 'list'>): Promise<WebhookTarget> {
  const query = `timeout=${timeoutSeconds}s`;
  if (config.url) {
    const u = new URL(config.url);
    u.search = u.search ? `${u.search}&${query}` : query;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    return { url: u.toString(), serverName: host, host, port: Number(u.port || 443), path: `${u.pathname}${u.search}` };
  }
  const svc = config.service ?? {};
  const namespace = svc.namespace ?? '';
  const name = svc.name ?? '';
  const port = svc.port ?? 443;
  const path = `${svc.path || '/'}?${query}`;
  const serverName = `${name}.${namespace}.svc`;
  const url = `https://${serverName}:${port}${path}`;
  try {
    const ep = await endpointFor(objects, namespace, name, port);
    return { url, serverName, host: ep.host, port: ep.port, path };
  } catch (err) {
    const why = err instanceof ApiError || err instanceof Error ? err.message : String(err);
    throw new WebhookCallError(webhook, `failed to call webhook: Post "${url}": ${why}`);
  }
}
