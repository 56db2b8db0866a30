import type { RawResponse } from '@kplane/api';
import type { Store } from '../registry/store.js';
import type { ListOptions } from '../registry/store.js';
import { toTable, type IncludeObject } from './table.js';

/**
 * LIST as a Table (meta.k8s.io/v1), written as storage is read: the head (metadata and column
 * definitions) once the first page is read, then the rows page by page as the client takes
 * them; a list of one page comes back whole. The bytes are those of the Table built whole. Without a client limit only (see
 * Store.listPages).
 */
export async function streamTableList(store: Store, namespace: string | undefined, opts: ListOptions, options: { include: IncludeObject; now: Date }): Promise<RawResponse> {
  const spec = store.type.strategy.table;
  const { revision, more, pages } = await store.listPages(namespace, opts);
  if (!more) {
    const { value } = await pages.next();
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(toTable(spec, value ?? [], { resourceVersion: String(revision) }, options))) };
  }
  const empty = JSON.stringify(toTable(spec, [], { resourceVersion: String(revision) }, options));
  // `..."rows":[]}` without its `]}`: the rows follow.
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
    yield Buffer.from(']}');
  })();
  return { status: 200, headers: { 'content-type': 'application/json' }, stream };
}
