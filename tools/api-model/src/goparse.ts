/**
 * A line parser for the Go sources of Kubernetes' API packages: enough of Go's declarations
 * (structs with tagged fields, named types, string constants, imports, UnmarshalJSON methods)
 * to read the facts OpenAPI and protobuf leave out. API packages are written in one style
 * (one field per line, tags in backquotes), which this parser relies on; it fails loudly on
 * what it does not understand inside a struct.
 */
import { Problems } from './draft.js';

/** One member of a Go struct. */
export interface GoMember {
  /** The Go field name; undefined for an embedded member. */
  readonly name?: string;
  /** The Go type expression as written, e.g. `*int32`, `[]Container`, `metav1.ObjectMeta`. */
  readonly type: string;
  /** The struct tag without its backquotes. */
  readonly tag: string;
  /** The comment block right above the member (markers such as `+default=` live there). */
  readonly comments: readonly string[];
}

/** A named type: a struct or a type defined from another (`type Protocol string`). */
export interface GoType {
  readonly name: string;
  readonly comments: readonly string[];
  /** Set for structs. */
  readonly members?: readonly GoMember[];
  /** Set for non-struct types: the underlying type expression. */
  readonly underlying?: string;
}

/**
 * A constant with an explicit type and a string value, or (`ref`) the name of the constant
 * whose value it converts (`AddressTypeIPv4 = AddressType(v1.IPv4Protocol)`), resolved when
 * the enum is read.
 */
export interface GoConst {
  readonly name: string;
  readonly type: string;
  readonly value?: string;
  /** Set instead of `value`: the converted constant, bare or import-qualified (`v1.IPv4Protocol`). */
  readonly ref?: string;
}

/** What one Go package declares. */
export interface GoPackage {
  readonly types: Map<string, GoType>;
  readonly consts: GoConst[];
  /** Import name → import path, over every file of the package. */
  readonly imports: Map<string, string>;
  /** Types with an UnmarshalJSON method (custom JSON decoding). */
  readonly unmarshalers: Set<string>;
}

/** An empty package, to be filled by {@link parseGoFile}. */
export function newGoPackage(): GoPackage {
  return { types: new Map(), consts: [], imports: new Map(), unmarshalers: new Set() };
}

const STRUCT_START = /^type\s+(\w+)\s+struct\s*\{\s*(\}?)\s*$/;
const TYPE_DECL = /^type\s+(\w+)\s*=?\s*(.+?)\s*$/;
const GROUPED_TYPE = /^(\w+)\s*=?\s*(.+?)\s*$/;
const MEMBER = /^(\w+(?:\s*,\s*\w+)*)\s+([^`\s,][^`]*?)\s*(?:`([^`]*)`)?\s*$/;
const EMBEDDED = /^(\*?[\w.]+)\s*(?:`([^`]*)`)?\s*$/;
const CONST_TYPED = /^(\w+)\s+([\w.]+)\s*=\s*(.+?)\s*$/;
const CONST_CONVERTED = /^(\w+)\s*=\s*([\w.]+)\((.+)\)\s*$/;
const CONST_NAME = /^(?:\w+\.)?[A-Za-z_]\w*$/;
const IMPORT = /^(?:(\w+|\.|_)\s+)?"([^"]+)"\s*$/;
const UNMARSHAL = /^func\s+\(\s*\w*\s*\*?\s*(\w+)\s*\)\s+UnmarshalJSON\(/;

/** The value of a Go string literal, or undefined if the text is not one. */
export function goString(text: string): string | undefined {
  const t = text.trim();
  if (/^"(?:[^"\\]|\\.)*"$/.test(t)) return JSON.parse(t) as string;
  if (/^`[^`]*`$/.test(t)) return t.slice(1, -1);
  return undefined;
}

function stripLineComment(line: string): string {
  // API sources have no `//` inside string literals on declaration lines except in tags,
  // which sit inside backquotes.
  let inTick = false;
  let inQuote = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '`' && !inQuote) inTick = !inTick;
    else if (c === '"' && !inTick && line[i - 1] !== '\\') inQuote = !inQuote;
    else if (c === '/' && line[i + 1] === '/' && !inTick && !inQuote) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

/** Adds the declarations of one Go file to the package. */
export function parseGoFile(text: string, pkg: GoPackage, source: string, problems: Problems): void {
  const lines = text.split('\n');
  let inBlockComment = false;
  let comments: string[] = [];
  let block: 'import' | 'const' | 'type' | undefined;
  let struct: { name: string; comments: string[]; members: GoMember[] } | undefined;
  let depth = 0;
  let funcDepth = 0;
  for (let n = 0; n < lines.length; n++) {
    const trimmed = lines[n]!.trim();
    if (inBlockComment || trimmed.startsWith('/*')) {
      inBlockComment = !trimmed.includes('*/');
      comments = [];
      continue;
    }
    if (trimmed.startsWith('//')) {
      comments.push(trimmed.replace(/^\/\/\s?/, ''));
      continue;
    }
    const line = stripLineComment(trimmed);
    const where = `${source}:${n + 1}`;
    if (funcDepth > 0) {
      funcDepth += balance(line);
      comments = [];
      continue;
    }
    if (struct) {
      if (line === '}') {
        pkg.types.set(struct.name, { name: struct.name, comments: struct.comments, members: struct.members });
        struct = undefined;
      } else if (depth > 0 || line.includes('struct {')) {
        problems.add(`${where}: nested struct in ${struct.name}`);
      } else if (line !== '') {
        const m = MEMBER.exec(line);
        const e = m ? undefined : EMBEDDED.exec(line);
        if (m) {
          for (const name of m[1]!.split(',')) struct.members.push({ name: name.trim(), type: m[2]!, tag: m[3] ?? '', comments });
        }
        else if (e) struct.members.push({ type: e[1]!, tag: e[2] ?? '', comments });
        else problems.add(`${where}: cannot read member of ${struct.name}: ${line}`);
      }
      comments = [];
      continue;
    }
    if (line === '') {
      comments = [];
      continue;
    }
    if (block) {
      if (line === ')') block = undefined;
      else if (block === 'import') addImport(line, pkg);
      else if (block === 'const') addConst(line, pkg);
      else {
        const t = GROUPED_TYPE.exec(line);
        if (t && !t[2]!.startsWith('struct')) pkg.types.set(t[1]!, { name: t[1]!, comments, underlying: t[2]! });
        else problems.add(`${where}: cannot read grouped type: ${line}`);
      }
      comments = [];
      continue;
    }
    const start = STRUCT_START.exec(line);
    if (start) {
      if (start[2]) pkg.types.set(start[1]!, { name: start[1]!, comments, members: [] });
      else struct = { name: start[1]!, comments, members: [] };
    } else if (line === 'import (' || line === 'const (' || line === 'type (') {
      block = line.slice(0, -2) as 'import' | 'const' | 'type';
    } else if (line.startsWith('import ')) {
      addImport(line.slice('import '.length), pkg);
    } else if (line.startsWith('const ')) {
      addConst(line.slice('const '.length), pkg);
    } else if (line.startsWith('type ')) {
      const t = TYPE_DECL.exec(line);
      if (t && !t[2]!.startsWith('interface') && !t[2]!.startsWith('func')) {
        pkg.types.set(t[1]!, { name: t[1]!, comments, underlying: t[2]! });
      }
      if (t && (t[2]!.startsWith('interface') || t[2]!.startsWith('func'))) funcDepth = balance(line);
    } else if (line.startsWith('func ') || line.startsWith('var ')) {
      const u = UNMARSHAL.exec(line);
      if (u) pkg.unmarshalers.add(u[1]!);
      funcDepth = balance(line);
    }
    comments = [];
  }
  if (struct) problems.add(`${source}: struct ${struct.name} does not end`);
}

/** Opened minus closed brackets of a line, string and rune literals left out. */
function balance(line: string): number {
  const bare = line.replace(/"(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)*'/g, '');
  let k = 0;
  for (const ch of bare) {
    if (ch === '{' || ch === '(' || ch === '[') k++;
    else if (ch === '}' || ch === ')' || ch === ']') k--;
  }
  return k;
}

function addImport(line: string, pkg: GoPackage): void {
  const m = IMPORT.exec(line);
  if (!m) return;
  const path = m[2]!;
  pkg.imports.set(m[1] ?? path.split('/').pop()!, path);
}

function addConst(line: string, pkg: GoPackage): void {
  const typed = CONST_TYPED.exec(line);
  if (typed) {
    const value = goString(typed[3]!);
    if (value !== undefined) pkg.consts.push({ name: typed[1]!, type: typed[2]!, value });
    return;
  }
  const converted = CONST_CONVERTED.exec(line);
  if (converted) {
    const arg = converted[3]!.trim();
    const value = goString(arg);
    if (value !== undefined) pkg.consts.push({ name: converted[1]!, type: converted[2]!, value });
    else if (CONST_NAME.test(arg)) pkg.consts.push({ name: converted[1]!, type: converted[2]!, ref: arg });
  }
}

/** The value of a `+name=value` marker in a comment block (the last one wins), if present. */
export function marker(comments: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (const c of comments) {
    const m = /^\+([\w.:-]+)(?:=(.*))?$/.exec(c.trim());
    if (m && m[1] === name) value = (m[2] ?? '').trim();
  }
  return value;
}

/** One key of a Go struct tag (`json:"name,omitempty"` → `name,omitempty`). */
export function tagValue(tag: string, key: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${key}:"((?:[^"\\\\]|\\\\.)*)"`).exec(tag);
  return m ? m[1] : undefined;
}
