/**
 * kube-aggregator's proxy, reduced: a request under /apis/<group>/<version> that no local
 * resource serves goes to the backend of the APIService `<version>.<group>` naming a Service
 * (spec.service): the Service's port, then an address of its Endpoints, over HTTPS (spec.caBundle,
 * or insecureSkipTLSVerify), with the front-proxy headers X-Remote-User, X-Remote-Group and
 * X-Remote-Extra-*. The availability check sets each such APIService's Available condition
 * with kube-aggregator's reasons and messages.
 */
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { ApiError, type KubeObject, type RawRequest, type RawResponse, type UserInfo } from '@kplane/api';
import type { Registry } from '../registry/registry.js';

/** Options of createAggregator. */
export interface AggregatorOptions {
  registry: Registry;
  /** The client certificate presented to backends (kube-apiserver's --proxy-client-cert-file / -key-file). */
  proxyClient?: () => { cert: string; key: string } | undefined;
  now?: () => Date;
  /** How long a backend may take to connect and answer the discovery check (default 5 s). */
  timeoutMs?: number;
}

interface ServiceRef {
  namespace?: string;
  name?: string;
  port?: number;
}
interface ApiServiceSpec {
  group?: string;
  version?: string;
  service?: ServiceRef | null;
  caBundle?: string;
  insecureSkipTLSVerify?: boolean;
}
interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** Where an APIService's backend is, or why it is not available (an Available=False condition). */
type Resolved = { host: string; port: number } | { reason: string; message: string };

/** The aggregator: the proxy and the availability check. */
export interface Aggregator {
  /** Serves a request for a group/version not served locally; undefined when no APIService names a service for it. */
  serve(req: RawRequest, group: string, version: string): Promise<RawResponse | undefined>;
  /** Checks every APIService that names a service and updates its Available condition when it changed. */
  checkAvailability(): Promise<void>;
  /** APIGroup entries of the available aggregated groups (legacy /apis discovery), as of the last check. */
  legacyGroups(): object[];
  /** APIGroupDiscovery entries of the available aggregated groups (aggregated /apis discovery), as of the last check. */
  aggregatedGroups(): object[];
  /** The APIGroup of /apis/<group> for an available aggregated group. */
  apiGroup(group: string): object | undefined;
}

/** An entry of a backend's APIResourceList. */
interface LegacyResource {
  name: string;
  singularName?: string;
  namespaced?: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

const DROPPED = /^(authorization|host|connection|content-length|transfer-encoding|impersonate-.*|x-remote-.*)$/i;

/** Creates the aggregator over the registry's APIServices, Services and Endpoints. */
export function createAggregator(options: AggregatorOptions): Aggregator {
  const { registry } = options;
  const now = options.now ?? (() => new Date());
  const timeout = options.timeoutMs ?? 5000;
  const store = (g: string, v: string, r: string) => registry.get(g, v, r);

  async function getOrUndefined(g: string, r: string, ns: string | undefined, name: string): Promise<KubeObject | undefined> {
    try {
      return await store(g, 'v1', r)?.get(ns, name);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
  }

  /** kube's ResolveEndpoint with the availability controller's reasons. */
  async function resolve(ref: ServiceRef): Promise<Resolved> {
    const ns = ref.namespace ?? '';
    const name = ref.name ?? '';
    const port = ref.port ?? 443;
    const svc = (await getOrUndefined('', 'services', ns, name)) as (KubeObject & { spec?: { ports?: { name?: string; port: number }[] } }) | undefined;
    if (!svc) return { reason: 'ServiceNotFound', message: `service/${name} in "${ns}" is not present` };
    const svcPort = svc.spec?.ports?.find((p) => p.port === port);
    if (!svcPort) return { reason: 'ServicePortError', message: `service/${name} in "${ns}" is not listening on port ${port}` };
    const eps = (await getOrUndefined('', 'endpoints', ns, name)) as (KubeObject & { subsets?: { addresses?: { ip: string }[]; ports?: { name?: string; port: number }[] }[] }) | undefined;
    if (!eps) return { reason: 'EndpointsNotFound', message: `cannot find endpoints for service/${name} in "${ns}"` };
    for (const subset of eps.subsets ?? []) {
      const p = (subset.ports ?? []).find((x) => (x.name ?? '') === (svcPort.name ?? ''));
      const ip = subset.addresses?.[0]?.ip;
      if (p && ip) return { host: ip, port: p.port };
    }
    return { reason: 'MissingEndpoints', message: `endpoints for service/${name} in "${ns}" have no addresses with port name "${svcPort.name ?? ''}"` };
  }

  function send(spec: ApiServiceSpec, to: { host: string; port: number }, req: RawRequest, user: UserInfo | undefined): Promise<IncomingMessage> {
    const query = new URLSearchParams(req.query ?? {}).toString();
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers ?? {})) if (!DROPPED.test(k)) headers[k] = v;
    if (user) {
      headers['x-remote-user'] = user.username;
      if (user.groups.length) headers['x-remote-group'] = [...user.groups];
      for (const [k, vs] of Object.entries(user.extra ?? {})) headers[`x-remote-extra-${encodeURIComponent(k)}`] = [...vs];
    }
    const body = req.body && req.body.length ? Buffer.from(req.body) : undefined;
    if (body) headers['content-length'] = String(body.length);
    const client = options.proxyClient?.();
    return new Promise((resolveRes, reject) => {
      const r = request({
        host: to.host,
        port: to.port,
        method: req.method,
        path: `${req.path}${query ? `?${query}` : ''}`,
        headers,
        ca: spec.caBundle ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : undefined,
        rejectUnauthorized: !spec.insecureSkipTLSVerify,
        ...(client ?? {}),
        agent: false,
        timeout,
        signal: req.signal,
      });
      r.on('timeout', () => r.destroy(new Error('i/o timeout')));
      r.on('response', (res) => {
        r.setTimeout(0);
        resolveRes(res);
      });
      r.on('error', reject);
      r.end(body);
    });
  }

  async function apiServiceFor(group: string, version: string): Promise<(KubeObject & { spec?: ApiServiceSpec }) | undefined> {
    const s = (await getOrUndefined('apiregistration.k8s.io', 'apiservices', undefined, `${version}.${group}`)) as (KubeObject & { spec?: ApiServiceSpec }) | undefined;
    return s?.spec?.service ? s : undefined;
  }

  /** GET of the backend's /apis/G/V: its APIResourceList, or the FailedDiscoveryCheck message. */
  async function discoveryCheck(spec: ApiServiceSpec, to: { host: string; port: number }): Promise<{ failed?: string; resources?: LegacyResource[] }> {
    const url = `https://${to.host}:${to.port}/apis/${spec.group}/${spec.version}`;
    try {
      const res = await send(spec, to, { method: 'GET', path: `/apis/${spec.group}/${spec.version}`, headers: { accept: 'application/json' } }, { username: 'system:kube-aggregator', groups: ['system:masters'] });
      let body = '';
      for await (const c of res) body = (body + String(c)).slice(0, 4 * 1024 * 1024);
      if (res.statusCode! < 200 || res.statusCode! >= 300) return { failed: `failing or missing response from ${url}: bad status from ${url}: ${res.statusCode}` };
      let resources: LegacyResource[] = [];
      try {
        const list = JSON.parse(body) as { resources?: LegacyResource[] };
        resources = Array.isArray(list.resources) ? list.resources.filter((r) => r && typeof r.name === 'string' && typeof r.kind === 'string') : [];
      } catch {
        /* a discovery answer that is not JSON lists no resources */
      }
      return { resources };
    } catch (err) {
      return { failed: `failing or missing response from ${url}: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  /** Available aggregated group/versions with what their backends list, by APIService name. */
  const discovered = new Map<string, { group: string; version: string; groupPriority: number; versionPriority: number; resources: LegacyResource[] }>();

  function byGroup(): Map<string, { version: string; resources: LegacyResource[] }[]> {
    const entries = [...discovered.values()].sort((a, b) => b.groupPriority - a.groupPriority || a.group.localeCompare(b.group) || b.versionPriority - a.versionPriority || a.version.localeCompare(b.version));
    const out = new Map<string, { version: string; resources: LegacyResource[] }[]>();
    for (const e of entries) out.set(e.group, [...(out.get(e.group) ?? []), { version: e.version, resources: e.resources }]);
    return out;
  }

  return {
    async serve(req, group, version) {
      const apiService = await apiServiceFor(group, version);
      if (!apiService) return undefined;
      const to = await resolve(apiService.spec!.service!);
      if (!('host' in to)) throw new ApiError(503, 'ServiceUnavailable', 'service unavailable');
      let res: IncomingMessage;
      try {
        res = await send(apiService.spec!, to, req, req.user);
      } catch (err) {
        throw new ApiError(503, 'ServiceUnavailable', `error trying to reach service: ${err instanceof Error ? err.message : String(err)}`);
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !/^(connection|transfer-encoding|content-length|keep-alive)$/i.test(k)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      return { status: res.statusCode ?? 502, headers, stream: res };
    },

    legacyGroups() {
      return [...byGroup()].map(([group, versions]) => {
        const vs = versions.map((v) => ({ groupVersion: `${group}/${v.version}`, version: v.version }));
        return { name: group, versions: vs, preferredVersion: vs[0] };
      });
    },

    apiGroup(group) {
      const g = this.legacyGroups().find((x) => (x as { name: string }).name === group);
      return g ? { kind: 'APIGroup', apiVersion: 'v1', ...g } : undefined;
    },

    aggregatedGroups() {
      return [...byGroup()].map(([group, versions]) => ({
        metadata: { name: group, creationTimestamp: null },
        versions: versions.map((v) => ({
          version: v.version,
          resources: v.resources
            .filter((r) => !r.name.includes('/'))
            .map((r) => {
              const subs = v.resources.filter((x) => x.name.startsWith(`${r.name}/`));
              return {
                resource: r.name,
                responseKind: { group: r.group ?? group, version: r.version ?? v.version, kind: r.kind },
                scope: r.namespaced ? 'Namespaced' : 'Cluster',
                singularResource: r.singularName || r.kind.toLowerCase(),
                verbs: r.verbs ?? [],
                ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
                ...(r.categories?.length ? { categories: r.categories } : {}),
                ...(subs.length ? { subresources: subs.map((x) => ({ subresource: x.name.slice(r.name.length + 1), responseKind: { group: x.group ?? group, version: x.version ?? v.version, kind: x.kind }, verbs: x.verbs ?? [] })) } : {}),
              };
            }),
          freshness: 'Current',
        })),
      }));
    },

    async checkAvailability() {
      const s = store('apiregistration.k8s.io', 'v1', 'apiservices');
      if (!s) return;
      const list = await s.list(undefined);
      for (const item of list.items as (KubeObject & { spec?: ApiServiceSpec; status?: { conditions?: Condition[] } })[]) {
        const spec = item.spec ?? {};
        if (!spec.service) continue;
        const to = await resolve(spec.service);
        let cond: Condition;
        const name = item.metadata!.name!;
        discovered.delete(name);
        if (!('host' in to)) cond = { type: 'Available', status: 'False', reason: to.reason, message: to.message };
        else {
          const { failed, resources } = await discoveryCheck(spec, to);
          cond = failed ? { type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: failed } : { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' };
          const sp = spec as ApiServiceSpec & { groupPriorityMinimum?: number; versionPriority?: number };
          if (!failed) discovered.set(name, { group: spec.group ?? '', version: spec.version ?? '', groupPriority: sp.groupPriorityMinimum ?? 0, versionPriority: sp.versionPriority ?? 0, resources: resources ?? [] });
        }
        const old = item.status?.conditions?.find((c) => c.type === 'Available');
        if (old && old.status === cond.status && old.reason === cond.reason && old.message === cond.message) continue;
        cond.lastTransitionTime = old && old.status === cond.status ? old.lastTransitionTime : now().toISOString().replace(/\.\d{3}Z$/, 'Z');
        const conditions = [...(item.status?.conditions ?? []).filter((c) => c.type !== 'Available'), cond];
        await s.update(undefined, item.metadata!.name!, { ...item, status: { ...item.status, conditions } }, { subresource: 'status' }).catch((err) => {
          if (!(err instanceof ApiError && (err.code === 409 || err.code === 404))) throw err;
        });
      }
    },
  };
}
