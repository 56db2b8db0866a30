import type { RawResponse } from '@kplane/api';
import type { Store } from '../registry/store.js';
import type { ListOptions } from '../registry/store.js';
import { toTable, type IncludeObject } from './table.js';

/**
 * LIST as a Table (meta.k8s.io/v1), written as storage is read: the head (metadata and column
 * definitions) once the first page is read, then the rows page by page as the client takes
 * them; a list of one page comes back whole. The bytes are those of the Table built whole,
 * except with a client `limit` above the page size: the Table's `metadata` (resourceVersion,
 * continue), known once the last row is read, then follows the rows (see Store.listPages).
 */
export async function streamTableList(store: Store, namespace: string | undefined, opts: ListOptions, options: { include: IncludeObject; now: Date }): Promise<RawResponse> {
  const spec = store.type.strategy.table;
  const { revision, more, pages, continue: token } = await store.listPages(namespace, opts);
  const listMeta = () => {
    const t = token();
    return t ? { resourceVersion: String(revision), continue: t } : { resourceVersion: String(revision) };
  };
  if (!more) {
    const { value } = await pages.next();
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(toTable(spec, value ?? [], listMeta(), options))) };
  }
  const limited = opts.limit !== undefined && opts.limit > 0;
  const { metadata: _m, ...headless } = toTable(spec, [], { resourceVersion: String(revision) }, options) as Record<string, unknown>;
  const empty = JSON.stringify(limited ? headless : toTable(spec, [], { resourceVersion: String(revision) }, options));
  // `..."rows":[]}` without its `]}`: the rows follow.
  if (!empty.endsWith('"rows":[]}')) throw new Error('a Table must end with its rows');
  const head = Buffer.from(empty.slice(0, -2));
  const stream = (async function* () {
    yield head;
    let first = true;
    for await (const objects of pages) {
      if (objects.length === 0) continue;
      const rows = JSON.stringify((toTable(spec, objects, {}, options) as { rows: unknown[] }).rows);
      yield Buffer.from((first ? '' : ',') + rows.slice(1, -1));
      first = false;
    }
    yield Buffer.from(limited ? `],"metadata":${JSON.stringify(listMeta())}}` : ']}');
  })();
  return { status: 200, headers: { 'content-type': 'application/json' }, stream };
}
