/**
 * Table output of custom resources from a version's additionalPrinterColumns (NAME first,
 * then each column's JSONPath value; `date` columns become ages; `priority > 0` columns are
 * left to kubectl's -o wide), and the small JSONPath subset the columns use.
 */
import type { KubeObject } from '@kplane/api';
import { humanDuration } from '../kinds/age.js';
import type { TableColumn, TableSpec } from '../registry/resource.js';
import type { PrinterColumn } from './crd-types.js';

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The columns served when a version declares none: Age. */
export const DEFAULT_COLUMNS: PrinterColumn[] = [{ name: 'Age', type: 'date', description: AGE_DESCRIPTION, jsonPath: '.metadata.creationTimestamp' }];

type Step = { kind: 'field'; name: string } | { kind: 'index'; index: number } | { kind: 'all' } | { kind: 'filter'; path: string[]; value: string };

/** Parses `.a.b[0]['c'][*][?(@.type=="Ready")]` into steps; undefined when not understood. */
export function parseJSONPath(path: string): Step[] | undefined {
  const p = path.trim().replace(/^\{(.*)\}$/, '$1').replace(/^\$/, '');
  const steps: Step[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\[\*\]|\['([^']*)'\]|\[\?\(@((?:\.[^.=!)\s]+)+)\s*==\s*["']([^"']*)["']\)\]/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < p.length && (m = re.exec(p))) {
    at = re.lastIndex;
    if (m[1] !== undefined) steps.push(m[1] === '*' ? { kind: 'all' } : { kind: 'field', name: m[1] });
    else if (m[2] !== undefined) steps.push({ kind: 'index', index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ kind: 'field', name: m[3] });
    else if (m[4] !== undefined) steps.push({ kind: 'filter', path: m[4].slice(1).split('.'), value: m[5] ?? '' });
    else steps.push({ kind: 'all' });
  }
  return at === p.length ? steps : undefined;
}

/** Every value a JSONPath finds in an object, in order. */
export function findJSONPath(obj: unknown, steps: Step[]): unknown[] {
  let current: unknown[] = [obj];
  for (const s of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (s.kind === 'field') {
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && (v as Record<string, unknown>)[s.name] !== undefined) next.push((v as Record<string, unknown>)[s.name]);
      } else if (s.kind === 'index') {
        if (Array.isArray(v) && s.index < v.length) next.push(v[s.index]);
      } else if (s.kind === 'all') {
        if (Array.isArray(v)) next.push(...v);
        else if (v !== null && typeof v === 'object') next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          let x: unknown = item;
          for (const f of s.path) x = x !== null && typeof x === 'object' ? (x as Record<string, unknown>)[f] : undefined;
          if (x !== undefined && String(x) === s.value) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

function cell(type: string, value: unknown, now: Date): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      const t = Date.parse(value);
      return Number.isNaN(t) ? '<invalid>' : humanDuration(now.getTime() - t);
    }
    default:
      if (typeof value === 'string') return value;
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

/** The Table spec of a version from its printer columns (Age when it declares none). */
export function printerTable(columns: PrinterColumn[] | undefined): TableSpec {
  const cols = columns && columns.length ? columns : DEFAULT_COLUMNS;
  const paths = cols.map((c) => parseJSONPath(c.jsonPath));
  const defs: TableColumn[] = [
    { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
    ...cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
  ];
  return {
    columns: defs,
    row(obj: KubeObject, now: Date) {
      const cells: unknown[] = [obj.metadata?.name ?? ''];
      cols.forEach((c, i) => {
        const steps = paths[i];
        const found = steps ? findJSONPath(obj, steps) : [];
        cells.push(found.length ? cell(c.type, found[0], now) : null);
      });
      return cells;
    },
  };
}
