/**
 * The cost of authorization: GET throughput of one ConfigMap read by a user bound through a
 * RoleBinding, on an API server with the default authorization (Node,RBAC) and on the same server without it
 * (authorizationMode AlwaysAllow), both holding the same RBAC objects (many users, groups and
 * namespaces, so that a decision reads an index, not a scan). In-process (no TLS, no socket):
 * the authorizer's share of a request is larger here than over HTTPS, so the ratio is a bound.
 */
import type { RawRequest, UserInfo } from '@kplane/api';
import { until } from '@kplane/api/testing';
import { createApiServer, type ApiServer } from '@kplane/apiserver';
import { createMemoryBackend } from '@kplane/storage';

/** One measured mode. */
export interface AuthzRow {
  /** kube-apiserver's default modes (Node,RBAC), or no authorization. */
  mode: 'Node,RBAC' | 'AlwaysAllow';
  /** Over all rounds, per wall-clock second. */
  requestsPerSecond: number;
  /** Node,RBAC's row: the ratio Node,RBAC / AlwaysAllow of each round (GETs per CPU second, the modes alternating within the round). */
  ratios?: number[];
  /** Node,RBAC's row: the median of `ratios`, the figure reported. */
  ratio?: number;
}

/** Options of benchAuthorization. */
export interface AuthzBenchOptions {
  /** RoleBindings made for other users (spread over namespaces), default 2,000. */
  bindings?: number;
  /** Rounds (default 21) of `roundMs` (default 500) per mode, the modes alternating in 10 slices, after a warm-up of `warmupMs` (default 300). */
  rounds?: number;
  roundMs?: number;
  warmupMs?: number;
  /** Requests in flight (default 32). */
  concurrency?: number;
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
/** Slices of a round: the modes alternate this many times per round. */
const SLICES = 10;
const GET_PATH = '/api/v1/namespaces/default/configmaps/bench-get';

/** The reader: bound in default, and a member of many groups, as users of a real cluster are. */
export const READER: UserInfo = { username: 'reader', groups: ['system:authenticated', ...Array.from({ length: 10 }, (_, i) => `team-${i}`)] };

async function post(server: ApiServer, path: string, body: object): Promise<void> {
  const r = await server.handle({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) });
  if (r.status !== 201 && r.status !== 409) throw new Error(`POST ${path}: ${r.status} ${Buffer.from(r.body ?? []).toString()}`);
}

/** Fills a server with the RBAC objects and the ConfigMap the benchmark reads. */
export async function fillServer(server: ApiServer, bindings: number): Promise<void> {
  const namespaces = 50;
  for (let n = 0; n < namespaces; n++) await post(server, '/api/v1/namespaces', { metadata: { name: `ns-${n}` } });
  const reader = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] };
  await post(server, `${RBAC}/clusterroles`, { metadata: { name: 'cm-reader' }, rules: [reader] });
  for (let i = 0; i < bindings; i++) {
    const ns = i % 5 === 0 ? 'default' : `ns-${i % namespaces}`;
    await post(server, `${RBAC}/namespaces/${ns}/rolebindings`, {
      metadata: { name: `b-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `user-${i}` }, { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `group-${i}` }],
    });
  }
  for (let i = 0; i < bindings / 10; i++) {
    await post(server, `${RBAC}/clusterrolebindings`, {
      metadata: { name: `cb-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-reader' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `cluster-user-${i}` }],
    });
  }
  await post(server, `${RBAC}/namespaces/default/rolebindings`, {
    metadata: { name: 'reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cm-reader' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: READER.username }],
  });
  await post(server, '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bench-get' }, data: { a: 'x'.repeat(200) } });
}

/** Runs GETs as READER with `concurrency` in flight for `ms`; returns how many completed. */
async function load(server: ApiServer, ms: number, concurrency: number): Promise<number> {
  const req: RawRequest = { method: 'GET', path: GET_PATH, headers: {}, user: READER };
  const end = performance.now() + ms;
  let done = 0;
  const worker = async () => {
    while (performance.now() < end) {
      const r = await server.handle(req);
      if (r.status !== 200) throw new Error(`GET answered ${r.status}: ${Buffer.from(r.body ?? []).toString()}`);
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done;
}

/** Measures both modes in interleaved rounds; resolves with their rows (RBAC first). */
export async function benchAuthorization(options: AuthzBenchOptions = {}): Promise<AuthzRow[]> {
  const rounds = options.rounds ?? 21;
  const roundMs = options.roundMs ?? 500;
  const concurrency = options.concurrency ?? 32;
  const modes = ['Node,RBAC', 'AlwaysAllow'] as const;
  const servers = await Promise.all(
    modes.map(async (mode) => {
      const backend = createMemoryBackend();
      const server = createApiServer({ backend, authorizationMode: mode, compactionIntervalMs: 0 });
      await server.start();
      await fillServer(server, options.bindings ?? 2000);
      return { mode, server, backend, count: 0, ms: 0 };
    }),
  );
  try {
    // The RBAC index follows its watch caches: wait until the reader's binding is in.
    await until('the reader to be allowed', async () => (await servers[0]!.server.handle({ method: 'GET', path: GET_PATH, user: READER })).status === 200);
    for (const s of servers) await load(s.server, options.warmupMs ?? 300, concurrency);
    // Each round alternates the two modes in short slices (the order alternating too), so a
    // round's ratio compares the modes under the same load of the machine. A mode's rate in a
    // round is per CPU second of this process (user + system), not per wall second: on a
    // shared machine wall time also counts the time spent waiting for a core. The median of
    // the rounds' ratios ignores the rounds another process disturbed most.
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const count = new Map<string, number>();
      const time = new Map<string, number>();
      for (let slice = 0; slice < SLICES; slice++) {
        const order = (round * SLICES + slice) % 2 === 0 ? servers : [...servers].reverse();
        for (const s of order) {
          const t0 = performance.now();
          const cpu0 = process.cpuUsage();
          const n = await load(s.server, roundMs / SLICES, concurrency);
          const cpu = process.cpuUsage(cpu0);
          s.count += n;
          s.ms += performance.now() - t0;
          count.set(s.mode, (count.get(s.mode) ?? 0) + n);
          time.set(s.mode, (time.get(s.mode) ?? 0) + cpu.user + cpu.system);
        }
      }
      ratios.push(count.get('Node,RBAC')! / time.get('Node,RBAC')! / (count.get('AlwaysAllow')! / time.get('AlwaysAllow')!));
    }
    return servers.map((s) => ({
      mode: s.mode,
      requestsPerSecond: (s.count * 1000) / s.ms,
      ...(s.mode === 'Node,RBAC' ? { ratios, ratio: median(ratios) } : {}),
    }));
  } finally {
    for (const s of servers) {
      await s.server.close();
      await s.backend.close();
    }
  }
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** The table: both modes and the median of the rounds' ratios RBAC / AlwaysAllow against the target (at least 0.95). */
export function formatAuthorization(rows: readonly AuthzRow[], minRatio = 0.95): string {
  const rbac = rows.find((r) => r.mode === 'Node,RBAC')!;
  const allow = rows.find((r) => r.mode === 'AlwaysAllow')!;
  const ratio = rbac.ratio ?? rbac.requestsPerSecond / allow.requestsPerSecond;
  const spread = rbac.ratios?.length ? `: ${Math.min(...rbac.ratios).toFixed(3)}..${Math.max(...rbac.ratios).toFixed(3)}` : '';
  return [
    ...rows.map((r) => `${r.mode.padEnd(12)} ${r.requestsPerSecond.toFixed(0).padStart(8)} GET/s`),
    `Node,RBAC / AlwaysAllow ${ratio.toFixed(3)} (GETs per CPU second, median of ${rbac.ratios?.length ?? 1} rounds${spread}; target >= ${minRatio}: ${ratio >= minRatio ? 'met' : 'NOT met'})`,
  ].join('\n');
}
