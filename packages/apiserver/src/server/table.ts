import type { KubeObject } from '@kplane/api';
import type { TableColumn, TableSpec } from '../registry/resource.js';

/** How much of each object a Table row carries (the includeObject parameter). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

const DEFAULT_TABLE: TableSpec = {
  columns: [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
    { name: 'Created At', type: 'date', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 },
  ],
  row: (obj) => [obj.metadata?.name ?? '', obj.metadata?.creationTimestamp ?? ''],
};

function rowObject(obj: KubeObject, include: IncludeObject): KubeObject | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
}

/** Renders objects as a meta.k8s.io/v1 Table. */
export function toTable(
  spec: TableSpec | undefined,
  objects: KubeObject[],
  listMeta: { resourceVersion?: string; continue?: string; remainingItemCount?: number },
  options: { include: IncludeObject; now: Date; noHeaders?: boolean },
): object {
  const s = spec ?? DEFAULT_TABLE;
  const columnDefinitions: TableColumn[] = s.columns.map((c) => ({ ...c, format: c.format ?? '' }));
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: options.noHeaders ? null : columnDefinitions,
    rows: objects.map((o) => {
      const row: Record<string, unknown> = { cells: s.row(o, options.now) };
      const conditions = s.rowConditions?.(o);
      if (conditions?.length) row.conditions = conditions;
      const ro = rowObject(o, options.include);
      if (ro) row.object = ro;
      return row;
    }),
  };
}
