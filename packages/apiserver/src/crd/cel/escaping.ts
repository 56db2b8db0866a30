/**
 * How rules name schema properties that are not CEL identifiers, as Kubernetes defines it
 * (k8s.io/apiserver/pkg/cel): a property named like a CEL reserved word is `__{word}__`
 * (`self.__namespace__`), and in other names `__` becomes `__underscores__`, `.` `__dot__`,
 * `-` `__dash__` and `/` `__slash__` (`self.__dash__x` is `-x`). A name that starts with a
 * digit or holds any other character cannot be named by a rule.
 */
import type { SchemaObject } from '@kplane/api';

/** CEL's reserved words, which Kubernetes escapes as `__{word}__`. */
export const CEL_RESERVED: ReadonlySet<string> = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

const PLAIN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const EXPAND = /__|[-./]|[^a-zA-Z0-9\-./_]/g;
const ESCAPES: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/** The CEL name of a property, or undefined when a rule cannot name it. */
export function celEscape(name: string): string | undefined {
  if (name === '' || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  if (PLAIN.test(name) && !name.includes('__')) return name;
  let ok = true;
  const out = name.replace(EXPAND, (m) => {
    const e = ESCAPES[m];
    if (e === undefined) ok = false;
    return e ?? '';
  });
  return ok ? out : undefined;
}

const byCelName = new WeakMap<object, Map<string, string>>();

/** The property of an object schema a rule names `celName` (e.g. `__namespace__` → `namespace`). */
export function propertyOf(schema: SchemaObject, celName: string): string | undefined {
  const props = schema.properties;
  if (!props) return undefined;
  let names = byCelName.get(props);
  if (!names) {
    names = new Map();
    for (const k of Object.keys(props)) {
      const e = celEscape(k);
      if (e !== undefined) names.set(e, k);
    }
    byCelName.set(props, names);
  }
  return names.get(celName);
}
