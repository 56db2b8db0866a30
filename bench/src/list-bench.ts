import type { RawResponse, Transport } from '@kplane/api';
import { runPool, timeRepeated } from './load.js';
import type { TimingRow } from './report.js';

/** Options of benchList. */
export interface ListBenchOptions {
  /** Namespace to fill (created if missing). */
  namespace: string;
  /** ConfigMaps to create, then list. */
  count: number;
  /** Creates kept in flight while filling. */
  concurrency: number;
  /** Page size of the paged LIST (default 500). */
  limit?: number;
  /** Builds the ConfigMap number `i`. */
  configMap: (name: string, namespace: string) => object;
}

const HEADERS = { accept: 'application/json', 'content-type': 'application/json' };
const encode = (obj: object): Uint8Array => Buffer.from(JSON.stringify(obj));
const parse = <T>(r: RawResponse): T => JSON.parse(Buffer.from(r.body!).toString('utf8')) as T;

/** Awaits a response and throws unless its status is one of `ok`. */
export async function expectStatus(res: Promise<RawResponse>, ...ok: number[]): Promise<RawResponse> {
  const r = await res;
  if (!ok.includes(r.status)) throw new Error(`unexpected HTTP ${r.status}: ${Buffer.from(r.body ?? []).toString('utf8').slice(0, 300)}`);
  return r;
}

/** What fillNamespace needs: the namespace, how many ConfigMaps, how many creates in flight, and their shape. */
export type FillOptions = Pick<ListBenchOptions, 'namespace' | 'count' | 'concurrency' | 'configMap'>;

/**
 * Creates the namespace (if missing) and `count` ConfigMaps `cm-0` .. in it, `concurrency`
 * creates in flight; resolves with the time the creates took in ms. Any status but 201 fails.
 */
export async function fillNamespace(t: Transport, options: FillOptions): Promise<number> {
  const { namespace, count, concurrency } = options;
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } };
  await expectStatus(t({ method: 'POST', path: '/api/v1/namespaces', headers: HEADERS, body: encode(ns) }), 201, 409);
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const t0 = performance.now();
  await runPool(count, concurrency, async (i) => {
    await expectStatus(t({ method: 'POST', path, headers: HEADERS, body: encode(options.configMap(`cm-${i}`, namespace)) }), 201);
  });
  return performance.now() - t0;
}

/**
 * Fills a namespace with `count` ConfigMaps (concurrently), then times a full LIST and a
 * paged LIST that follows `continue` (each the median of 3). Both check that every item came
 * back. Times include the client's JSON.parse of the responses, as any real client pays it.
 */
export async function benchList(t: Transport, options: ListBenchOptions): Promise<TimingRow[]> {
  const { namespace, count, concurrency } = options;
  const limit = options.limit ?? 500;
  const createMs = await fillNamespace(t, options);
  const path = `/api/v1/namespaces/${namespace}/configmaps`;

  let bytes = 0;
  const full = await timeRepeated(3, async () => {
    const r = await expectStatus(t({ method: 'GET', path, headers: HEADERS }), 200);
    bytes = r.body!.byteLength;
    const got = parse<{ items: unknown[] }>(r).items.length;
    if (got !== count) throw new Error(`full LIST returned ${got} items, want ${count}`);
  });
  let pages = 0;
  const paged = await timeRepeated(3, async () => {
    let seen = 0;
    let token = '';
    pages = 0;
    do {
      const query: Record<string, string> = token ? { limit: String(limit), continue: token } : { limit: String(limit) };
      const list = parse<{ items: unknown[]; metadata?: { continue?: string } }>(await expectStatus(t({ method: 'GET', path, query, headers: HEADERS }), 200));
      seen += list.items.length;
      token = list.metadata?.continue ?? '';
      pages++;
    } while (token);
    if (seen !== count) throw new Error(`paged LIST returned ${seen} items, want ${count}`);
  });
  const runs = (ms: number[]): string => ms.map((x) => x.toFixed(0)).join(', ');
  return [
    { name: `create ${count} ConfigMaps`, ms: createMs, note: `${((count * 1000) / createMs).toFixed(0)} creates/s, ${concurrency} in flight` },
    { name: `LIST ${count}, one request`, ms: full.medianMs, note: `median of 3 (${runs(full.runs)} ms), ${(bytes / 1e6).toFixed(1)} MB` },
    { name: `LIST ${count}, limit=${limit}`, ms: paged.medianMs, note: `median of 3 (${runs(paged.runs)} ms), ${pages} pages` },
  ];
}
