/**
 * Canary objects: objects in several namespaces and of several kinds (namespaced and
 * cluster-scoped) that a request aimed elsewhere must never change. Safety tests plant them,
 * send a hostile request, and check that every canary and every system namespace is exactly
 * as it was and that /readyz still answers 200.
 */
import type { RawRequest, RawResponse } from '@kplane/api';
import { send } from './expect.js';

/** Label the fuzzer puts on (and selects by on) everything it writes. */
export const FUZZ_LABEL = 'kplane-fuzz';
/** Namespaces holding canaries. */
export const CANARY_NAMESPACES = ['canary-a', 'canary-b'];
/** Namespaces every cluster has. */
export const SYSTEM_NAMESPACE_NAMES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

type Handle = (req: RawRequest) => Promise<RawResponse>;

/** One canary: where it lives and the object as first read. */
export interface Canary {
  path: string;
  uid: string;
  resourceVersion: string;
  json: string;
}

/** Everything planted, as read right after planting. */
export interface CanarySnapshot {
  canaries: Canary[];
  /** The two canary namespaces. */
  namespaces: string[];
}



/** The canary objects: [collection path, object]. */
function canaryObjects(workloads: boolean, suffix: string): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [];
  const namespaces = CANARY_NAMESPACES.map((n) => n + suffix);
  for (const ns of namespaces) out.push(['/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { canary: 'true' } } }]);
  for (const ns of [...namespaces, 'default', 'kube-system']) {
    out.push([`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `canary-cm${suffix}`, labels: { canary: 'true' } }, data: { keep: 'me' } }]);
    out.push([`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `canary-secret${suffix}`, labels: { canary: 'true' } }, type: 'Opaque', data: { token: Buffer.from('s3cret').toString('base64') } }]);
  }
  if (workloads) out.push([
    `/apis/apps/v1/namespaces/${namespaces[0]}/deployments`,
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'canary-deploy', labels: { canary: 'true' } },
      spec: { replicas: 0, selector: { matchLabels: { app: 'canary' } }, template: { metadata: { labels: { app: 'canary' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    },
  ]);
  out.push(['/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `canary-role${suffix}`, labels: { canary: 'true' } }, rules: [] }]);
  out.push([
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `canary-binding${suffix}`, labels: { canary: 'true' } }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `canary-role${suffix}` }, subjects: [{ kind: 'User', name: 'canary', apiGroup: 'rbac.authorization.k8s.io' }] },
  ]);
  return out;
}

/**
 * Creates the canaries (namespaces, ConfigMaps, Secrets, cluster RBAC and, unless `workloads`
 * is false, a Deployment, which running controllers would update) and reads them back with the
 * system namespaces. With a `suffix`, every canary name (and canary namespace) ends with it, so
 * that a long-running server can get fresh canaries for each test.
 */
export async function plantCanaries(handle: Handle, options: { workloads?: boolean; suffix?: string } = {}): Promise<CanarySnapshot> {
  const paths: string[] = [];
  const suffix = options.suffix ?? '';
  for (const [collection, obj] of canaryObjects(options.workloads ?? true, suffix)) {
    const r = await send(handle, 'POST', collection, obj);
    if (r.status !== 201) throw new Error(`planting ${collection}: ${r.status} ${r.text.slice(0, 300)}`);
    paths.push(`${collection}/${(obj.metadata as { name: string }).name}`);
  }
  for (const ns of SYSTEM_NAMESPACE_NAMES) paths.push(`/api/v1/namespaces/${ns}`);
  const canaries: Canary[] = [];
  for (const path of paths) {
    const r = await send(handle, 'GET', path);
    if (r.status !== 200) throw new Error(`reading canary ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    canaries.push({ path, uid: r.body.metadata.uid, resourceVersion: r.body.metadata.resourceVersion, json: r.text });
  }
  return { canaries, namespaces: CANARY_NAMESPACES.map((n) => n + suffix) };
}

/**
 * What changed since the snapshot: one line per canary that is gone or differs (uid,
 * resourceVersion or content), and one when /readyz does not answer 200. Empty when all is well.
 */
export async function checkCanaries(handle: Handle, snapshot: CanarySnapshot): Promise<string[]> {
  const problems: string[] = [];
  for (const c of snapshot.canaries) {
    const r = await send(handle, 'GET', c.path);
    if (r.status !== 200) {
      problems.push(`${c.path}: GET answered ${r.status} ${r.text.slice(0, 200)}`);
      continue;
    }
    if (r.body?.metadata?.uid !== c.uid) problems.push(`${c.path}: uid ${c.uid} became ${r.body?.metadata?.uid} (deleted and recreated)`);
    else if (r.body?.metadata?.resourceVersion !== c.resourceVersion) problems.push(`${c.path}: changed (resourceVersion ${c.resourceVersion} → ${r.body?.metadata?.resourceVersion})`);
    else if (r.text !== c.json && JSON.stringify(JSON.parse(r.text)) !== JSON.stringify(JSON.parse(c.json))) problems.push(`${c.path}: content changed at the same resourceVersion`);
  }
  const ready = await handle({ method: 'GET', path: '/readyz', query: {}, headers: {} });
  if (ready.status !== 200) problems.push(`/readyz answered ${ready.status}`);
  return problems;
}

/** Keys of Object.prototype and friends, to tell that no request polluted them. */
export function prototypeFingerprint(): string {
  const protos = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
  return protos.map((p) => Object.getOwnPropertyNames(p).sort().join(',')).join('|');
}
