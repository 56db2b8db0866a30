/**
 * Renders the model of the built-in API as TypeScript source: one declaration per named type,
 * the SDK's types of the built-in kinds. Pure text in, text out; the runtime checks its
 * generated file against this rendering.
 */
import type { ApiPackageModel, FieldModel, ItemModel, TypeModel, TypeRef } from './types.js';

/** How {@link renderTypes} shapes its output beyond the model itself. */
export interface RenderTypesOptions {
  /** Lines of the leading comment (each rendered as `// line`). */
  readonly header?: readonly string[];
  /** Lines placed after the header, e.g. `import type { KubeObject } from '@kplane/api';`. */
  readonly imports?: readonly string[];
  /**
   * An interface that every kind's top-level type extends (a type with a group/version/kind
   * whose `metadata` is meta/v1 ObjectMeta), e.g. `KubeObject`.
   */
  readonly kindBase?: string;
  /** Per full schema name: an interface the type's interface extends. */
  readonly bases?: Readonly<Record<string, string>>;
  /** Per full schema name: the exported name, instead of the one the collision rule gives. */
  readonly names?: Readonly<Record<string, string>>;
  /** Per full schema name: a type expression the type is an alias of, instead of its fields. */
  readonly replace?: Readonly<Record<string, string>>;
}

/** The schema name of meta/v1 ObjectMeta: types with a kind and this metadata are objects. */
export const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** A type with a JSON form: its full schema name and its package. */
interface Named {
  readonly name: string;
  readonly pkg: ApiPackageModel;
}

/**
 * Short label of a package: `apps/v1`, `core/v1` for the core group, `meta/v1`, `runtime`,
 * `intstr` or `resource` for apimachinery packages.
 */
export function packageLabel(pkg: ApiPackageModel): string {
  if (pkg.group !== undefined && pkg.version !== undefined) return `${pkg.group || 'core'}/${pkg.version}`;
  const parts = pkg.schemaPrefix.split('.').filter((p) => p !== '');
  const last = parts[parts.length - 1] ?? '';
  return /^v\d/.test(last) && parts.length > 1 ? `${parts[parts.length - 2]}/${last}` : last;
}

/**
 * The prefix given to a type whose short name another package keeps: the group's first label
 * and the version in PascalCase (`events.k8s.io/v1` → `EventsV1`, `core/v1` → `CoreV1`).
 */
export function packagePrefix(pkg: ApiPackageModel): string {
  const label = packageLabel(pkg);
  const slash = label.lastIndexOf('/');
  const group = slash < 0 ? label : label.slice(0, slash);
  const version = slash < 0 ? '' : label.slice(slash + 1);
  return pascal(group.split('.')[0] ?? group) + pascal(version);
}

function pascal(s: string): string {
  return s
    .split(/[^A-Za-z0-9]+/)
    .filter((p) => p !== '')
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join('');
}

/**
 * Orders Kubernetes versions from the most stable: GA before beta before alpha, higher numbers
 * first (v2, v1, v1beta2, v1beta1, v1alpha1), anything else last, alphabetically.
 */
export function compareVersions(a: string, b: string): number {
  const key = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const level = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [level, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return (ka[i] as number) - (kb[i] as number);
  return ka[3] < kb[3] ? -1 : ka[3] > kb[3] ? 1 : 0;
}

/**
 * Orders packages for both the collision rule and the output: the core group first, then the
 * apimachinery packages, then the other groups alphabetically, each group's versions from the
 * most stable.
 */
export function comparePackages(a: ApiPackageModel, b: ApiPackageModel): number {
  const rank = (p: ApiPackageModel): number => (p.group === '' ? 0 : p.group === undefined ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (a.group === undefined || b.group === undefined) {
    return a.schemaPrefix < b.schemaPrefix ? -1 : a.schemaPrefix > b.schemaPrefix ? 1 : 0;
  }
  if (a.group !== b.group) return a.group < b.group ? -1 : 1;
  return compareVersions(a.version ?? '', b.version ?? '');
}

/**
 * The exported TypeScript name of every named type. One rule: a short name used by one
 * package is kept; when several packages use it, the first package in {@link comparePackages}
 * order keeps it and the others get {@link packagePrefix} in front (core/v1 `Event` stays
 * `Event`, events.k8s.io/v1 `Event` becomes `EventsV1Event`). `names` overrides the rule per
 * schema name. Throws when two types would still share a name.
 */
export function typeNames(
  packages: readonly ApiPackageModel[],
  names: Readonly<Record<string, string>> = {},
): Map<string, string> {
  const byShort = new Map<string, Named[]>();
  for (const pkg of [...packages].sort(comparePackages)) {
    for (const [shortName] of jsonTypes(pkg)) {
      const entry: Named = { name: pkg.schemaPrefix + shortName, pkg };
      const list = byShort.get(shortName) ?? [];
      list.push(entry);
      byShort.set(shortName, list);
    }
  }
  const out = new Map<string, string>();
  for (const [shortName, list] of byShort) {
    list.forEach((t, i) => out.set(t.name, names[t.name] ?? (i === 0 ? shortName : packagePrefix(t.pkg) + shortName)));
  }
  const owners = new Map<string, string>();
  for (const [schema, name] of out) {
    const other = owners.get(name);
    if (other !== undefined) {
      throw new Error(`renderTypes: ${other} and ${schema} would both be named ${name}; give one a name in options.names`);
    }
    owners.set(name, schema);
  }
  return out;
}

/** The types of a package that have a JSON form (protobuf-only messages have none). */
function jsonTypes(pkg: ApiPackageModel): [string, TypeModel][] {
  return Object.entries(pkg.types).filter(([, t]) => !t.protoOnly);
}

/** Longer unions of literals are written one value a line. */
const MAX_LINE = 110;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function quote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : quote(name);
}

function union(values: readonly string[]): string {
  return [...new Set(values)].map(quote).join(' | ');
}

/** Renders `ref`; a string with an enum becomes the union of its values, at every level. */
function renderRef(ref: TypeRef, resolve: (name: string) => string, facts: FieldModel | ItemModel | undefined): string {
  if (ref.startsWith('[]')) {
    const item = renderRef(ref.slice(2), resolve, facts?.items);
    return /[|&\s]/.test(item) ? `(${item})[]` : `${item}[]`;
  }
  if (ref.startsWith('map[string]')) return `Record<string, ${renderRef(ref.slice('map[string]'.length), resolve, facts?.items)}>`;
  switch (ref) {
    case 'string':
      return facts?.enum?.length ? union(facts.enum) : 'string';
    case 'boolean':
      return 'boolean';
    case 'int32':
    case 'int64':
    case 'double':
      return 'number';
    case 'byte':
      return 'string';
    default:
      return resolve(ref);
  }
}

/** The TypeScript of a special type (its own JSON form), given the name of JSONSchemaProps. */
function specialType(t: TypeModel, jsonSchemaProps: () => string): string {
  switch (t.special) {
    case 'time':
    case 'micro-time':
    case 'duration':
    case 'quantity':
      return 'string';
    case 'int-or-string':
      return 'number | string';
    case 'raw-extension':
    case 'fields-v1':
      return 'Record<string, unknown>';
    case 'json':
      return 'unknown';
    case 'json-schema-props-or-array':
      return `${jsonSchemaProps()} | ${jsonSchemaProps()}[]`;
    case 'json-schema-props-or-bool':
      return `${jsonSchemaProps()} | boolean`;
    case 'json-schema-props-or-string-array':
      return `${jsonSchemaProps()} | string[]`;
    default:
      throw new Error(`renderTypes: unknown special type ${String(t.special)}`);
  }
}

function isObjectKind(t: TypeModel): boolean {
  return (t.gvk?.length ?? 0) > 0 && t.fields?.['metadata']?.type === OBJECT_META;
}

function apiVersionOf(g: { group: string; version: string }): string {
  return g.group === '' ? g.version : `${g.group}/${g.version}`;
}

/**
 * Renders every named type of `packages` that has a JSON form (protobuf-only messages are
 * left out) as TypeScript: an interface per struct (required fields non-optional, Go enums as
 * unions of string literals, also on list items and map values, int32/int64/double as number,
 * byte as string, maps as Record<string, T>), a type alias per special type (Time, MicroTime,
 * Duration and Quantity: string; IntOrString: number | string; RawExtension and FieldsV1:
 * Record<string, unknown>; JSON: unknown), and for kinds literal `apiVersion` and `kind`.
 * Packages are rendered in {@link comparePackages} order, types by short name; the same model
 * and options always give the same text.
 */
export function renderTypes(packages: readonly ApiPackageModel[], options: RenderTypesOptions = {}): string {
  const names = typeNames(packages, options.names);
  const resolveIn = (from: string) => (ref: string): string => {
    const name = names.get(ref);
    if (name === undefined) throw new Error(`renderTypes: ${from} refers to ${ref}, which is not in the model`);
    return name;
  };
  const out: string[] = [];
  for (const line of options.header ?? []) out.push(line === '' ? '//' : `// ${line}`);
  if (options.imports?.length) {
    if (out.length) out.push('');
    out.push(...options.imports);
  }
  for (const pkg of [...packages].sort(comparePackages)) {
    const label = packageLabel(pkg);
    const types = jsonTypes(pkg).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [shortName, type] of types) {
      const schema = pkg.schemaPrefix + shortName;
      const name = names.get(schema)!;
      if (out.length) out.push('');
      out.push(`/** ${label} ${shortName}. */`);
      const replaced = options.replace?.[schema];
      if (replaced !== undefined) {
        out.push(`export type ${name} = ${replaced};`);
      } else if (type.special !== undefined) {
        const jsp = (): string => resolveIn(schema)(pkg.schemaPrefix + 'JSONSchemaProps');
        out.push(`export type ${name} = ${specialType(type, jsp)};`);
      } else {
        out.push(...renderInterface(schema, name, type, resolveIn(schema), options));
      }
    }
  }
  return out.join('\n') + '\n';
}

function renderInterface(
  schema: string,
  name: string,
  type: TypeModel,
  resolve: (ref: string) => string,
  options: RenderTypesOptions,
): string[] {
  const fields = Object.entries(type.fields ?? {});
  const kind = isObjectKind(type);
  const bases = [kind ? options.kindBase : undefined, options.bases?.[schema]].filter((b): b is string => !!b);
  if (fields.length === 0 && bases.length === 0) return [`export type ${name} = Record<string, never>;`];
  const lines = [`export interface ${name}${bases.length ? ` extends ${bases.join(', ')}` : ''} {`];
  const gvk = type.gvk ?? [];
  for (const [field, model] of fields) {
    const head = `  ${propertyKey(field)}${model.required ? '' : '?'}:`;
    let literals: readonly string[] | undefined;
    if (gvk.length > 0 && field === 'apiVersion' && model.type === 'string') literals = gvk.map(apiVersionOf).sort();
    else if (gvk.length > 0 && field === 'kind' && model.type === 'string') literals = gvk.map((g) => g.kind).sort();
    else if (model.type === 'string' && model.enum?.length) literals = model.enum;
    const ts = literals ? union(literals) : fieldType(model, resolve);
    if (literals && head.length + ts.length + 2 > MAX_LINE) {
      // a long union: one value a line
      lines.push(head, ...[...new Set(literals)].map((v, i, all) => `    | ${quote(v)}${i === all.length - 1 ? ';' : ''}`));
    } else {
      lines.push(`${head} ${ts};`);
    }
  }
  lines.push('}');
  return lines;
}

function fieldType(model: FieldModel, resolve: (ref: string) => string): string {
  return renderRef(model.type, resolve, model);
}
