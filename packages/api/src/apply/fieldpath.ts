/**
 * Field sets as server-side apply keeps them: trees of path elements, each a field (`f:name`),
 * a list item named by its key fields (`k:{"name":"nginx"}`), a set member (`v:"a"`) or an
 * index (`i:0`), with the FieldsV1 encoding Kubernetes writes in `managedFields`.
 */

/** One step of a path, written as in FieldsV1: `f:<name>`, `k:<json object>`, `v:<json>`, `i:<n>`. */
export type PathElement = string;

/** A path from the root of an object. */
export type FieldPath = readonly PathElement[];

/** The path element of a struct or map field. */
export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

/** The path element of a list-map item: its key fields, sorted by name. */
export function keyElement(keys: Record<string, unknown>): PathElement {
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(keys).sort()) sorted[k] = keys[k];
  return `k:${JSON.stringify(sorted)}`;
}

/** The path element of a set member (a list-type set item). */
export function valueElement(value: unknown): PathElement {
  return `v:${JSON.stringify(value)}`;
}

/** The path element of an item of a list addressed by position. */
export function indexElement(i: number): PathElement {
  return `i:${i}`;
}

const KIND_RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function valueRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean') return Number(a) - Number(b);
  const sa = JSON.stringify(a);
  const sb = JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Orders path elements as Kubernetes does: fields, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ka = KIND_RANK[a[0]!] ?? 4;
  const kb = KIND_RANK[b[0]!] ?? 4;
  if (ka !== kb) return ka - kb;
  const ra = a.slice(2);
  const rb = b.slice(2);
  if (a[0] === 'f') return ra < rb ? -1 : ra > rb ? 1 : 0;
  if (a[0] === 'i') return Number(ra) - Number(rb);
  if (a[0] === 'k') {
    const oa = keyEntries(ra);
    const ob = keyEntries(rb);
    for (let i = 0; i < Math.min(oa.length, ob.length); i++) {
      if (oa[i]![0] !== ob[i]![0]) return oa[i]![0] < ob[i]![0] ? -1 : 1;
      const c = compareValues(oa[i]![1], ob[i]![1]);
      if (c !== 0) return c;
    }
    return oa.length - ob.length;
  }
  return compareValues(JSON.parse(ra), JSON.parse(rb));
}

const parsedKeys = new Map<string, [string, unknown][]>();

/** The fields of a key element's JSON, parsed once (sorting compares the same keys often). */
function keyEntries(json: string): [string, unknown][] {
  let e = parsedKeys.get(json);
  if (!e) {
    if (parsedKeys.size > 10_000) parsedKeys.clear();
    e = Object.entries(JSON.parse(json) as Record<string, unknown>);
    parsedKeys.set(json, e);
  }
  return e;
}

/** A path as Kubernetes prints it in conflicts: `.spec.containers[name="nginx"].image`. */
export function pathString(path: FieldPath): string {
  let out = '';
  for (const pe of path) {
    const rest = pe.slice(2);
    switch (pe[0]) {
      case 'f':
        out += `.${rest}`;
        break;
      case 'k': {
        const keys = JSON.parse(rest) as Record<string, unknown>;
        out += `[${Object.entries(keys)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`;
        break;
      }
      case 'v':
        out += `[=${rest}]`;
        break;
      default:
        out += `[${rest}]`;
    }
  }
  return out;
}

/** A node of a field set: whether the path to it is a member, and its children. */
interface Node {
  member: boolean;
  children: Map<PathElement, Node>;
}

function newNode(): Node {
  return { member: false, children: new Map() };
}

/**
 * A set of field paths (immutable operations return new sets). A path is a member when the
 * field itself is owned; its ancestors are only children, as in Kubernetes' fieldpath.Set.
 */
export class FieldSet {
  /** The FieldsV1 encoding, made once (frozen: shared by every entry that writes this set). */
  private encoded?: Record<string, unknown>;

  private constructor(private readonly root: Node) {}

  /** An empty set. */
  static empty(): FieldSet {
    return new FieldSet(newNode());
  }

  /** A set of the given paths. */
  static of(...paths: FieldPath[]): FieldSet {
    const s = FieldSet.empty();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (in place; for building a set). */
  insert(path: FieldPath): this {
    if (path.length === 0) return this;
    this.encoded = undefined;
    let n = this.root;
    for (const pe of path) {
      let c = n.children.get(pe);
      if (!c) n.children.set(pe, (c = newNode()));
      n = c;
    }
    n.member = true;
    return this;
  }

  /** Is the path a member? */
  has(path: FieldPath): boolean {
    const n = this.node(path);
    return !!n && n.member && path.length > 0;
  }

  /** Is the path, or any path below it, a member? */
  hasPrefix(path: FieldPath): boolean {
    const n = this.node(path);
    return !!n && (n.member || n.children.size > 0);
  }

  private node(path: FieldPath): Node | undefined {
    let n: Node | undefined = this.root;
    for (const pe of path) {
      n = n.children.get(pe);
      if (!n) return undefined;
    }
    return n;
  }

  /** The subset below path, re-rooted there. */
  child(path: FieldPath): FieldSet {
    const n = this.node(path);
    return n ? new FieldSet(cloneNode(n, false)) : FieldSet.empty();
  }

  /** Is the set empty? */
  get empty(): boolean {
    return !hasMembers(this.root);
  }

  /** Every member path, in Kubernetes' order. */
  paths(): PathElement[][] {
    const out: PathElement[][] = [];
    const walk = (n: Node, prefix: PathElement[]) => {
      for (const pe of [...n.children.keys()].sort(comparePathElements)) {
        const c = n.children.get(pe)!;
        const p = [...prefix, pe];
        if (c.member) out.push(p);
        walk(c, p);
      }
    };
    walk(this.root, []);
    return out;
  }

  /** Members of either set (this set itself when other adds none). */
  union(other: FieldSet): FieldSet {
    if (other === this || !addsMembers(this.root, other.root)) return this;
    if (!hasMembers(this.root)) return other;
    return new FieldSet(unionNodes(this.root, other.root));
  }

  /** Members of both sets. */
  intersection(other: FieldSet): FieldSet {
    return new FieldSet(prune(intersectNodes(this.root, other.root)));
  }

  /** Members of this set that are not members of other (their children stay); this set itself when none is. */
  difference(other: FieldSet): FieldSet {
    if (!sharesMembers(this.root, other.root, false)) return this;
    return new FieldSet(prune(diffNodes(this.root, other.root, false)));
  }

  /** Members of this set that are neither members of other nor below one of its members. */
  recursiveDifference(other: FieldSet): FieldSet {
    if (!sharesMembers(this.root, other.root, true)) return this;
    return new FieldSet(prune(diffNodes(this.root, other.root, true)));
  }

  /** The members whose path starts with one of `elements` (e.g. `f:status`, `f:metadata`). */
  under(elements: readonly PathElement[]): FieldSet {
    const root = newNode();
    for (const pe of elements) {
      const c = this.root.children.get(pe);
      if (c) root.children.set(pe, cloneNode(c));
    }
    return new FieldSet(root);
  }

  /** Do both sets hold the same members? */
  equals(other: FieldSet): boolean {
    return JSON.stringify(this.toFieldsV1()) === JSON.stringify(other.toFieldsV1());
  }

  /** The FieldsV1 object (`{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`), keys in Kubernetes' order. */
  toFieldsV1(): Record<string, unknown> {
    return (this.encoded ??= encodeNode(this.root, false));
  }

  /** Reads a FieldsV1 object; throws an Error naming what is malformed. */
  static fromFieldsV1(v: unknown): FieldSet {
    return new FieldSet(decodeNode(v, true));
  }

  /**
   * fromFieldsV1 for the sets stored objects carry: the same FieldsV1 (by its JSON) read
   * recently gives the same set, whose encoding is then made no more. The sets are never
   * changed (every operation but `insert`, which only builds new sets, makes a new one).
   */
  static fromStoredFieldsV1(v: unknown): FieldSet {
    const json = JSON.stringify(v);
    let set = decodedSets.get(json);
    if (set) {
      decodedSets.delete(json);
    } else {
      set = FieldSet.fromFieldsV1(v);
      if (decodedSets.size >= DECODED_SETS) decodedSets.delete(decodedSets.keys().next().value!);
    }
    decodedSets.set(json, set);
    return set;
  }
}

/** Field sets read recently, by the JSON of their FieldsV1 (least recently used first). */
const decodedSets = new Map<string, FieldSet>();
const DECODED_SETS = 4096;

/** Does b hold a member a does not? */
function addsMembers(a: Node, b: Node): boolean {
  if (b.member && !a.member) return true;
  for (const [pe, d] of b.children) {
    const c = a.children.get(pe);
    if (c ? addsMembers(c, d) : hasMembers(d)) return true;
  }
  return false;
}

/** Is a member of a also a member of b (or, recursive, below one of b's members)? */
function sharesMembers(a: Node, b: Node, recursive: boolean): boolean {
  if (a.member && b.member) return true;
  for (const [pe, c] of a.children) {
    const d = b.children.get(pe);
    if (!d) continue;
    if (recursive && d.member) {
      if (hasMembers(c)) return true;
      continue;
    }
    if (sharesMembers(c, d, recursive)) return true;
  }
  return false;
}

function hasMembers(n: Node): boolean {
  if (n.member) return true;
  for (const c of n.children.values()) if (hasMembers(c)) return true;
  return false;
}

function cloneNode(n: Node, member = n.member): Node {
  const out: Node = { member, children: new Map() };
  for (const [pe, c] of n.children) out.children.set(pe, cloneNode(c));
  return out;
}

function unionNodes(a: Node, b: Node): Node {
  const out: Node = { member: a.member || b.member, children: new Map() };
  for (const [pe, c] of a.children) out.children.set(pe, b.children.has(pe) ? unionNodes(c, b.children.get(pe)!) : cloneNode(c));
  for (const [pe, c] of b.children) if (!a.children.has(pe)) out.children.set(pe, cloneNode(c));
  return out;
}

function intersectNodes(a: Node, b: Node): Node {
  const out: Node = { member: a.member && b.member, children: new Map() };
  for (const [pe, c] of a.children) {
    const d = b.children.get(pe);
    if (d) out.children.set(pe, intersectNodes(c, d));
  }
  return out;
}

function diffNodes(a: Node, b: Node, recursive: boolean): Node {
  const out: Node = { member: a.member && !b.member, children: new Map() };
  for (const [pe, c] of a.children) {
    const d = b.children.get(pe);
    if (!d) out.children.set(pe, cloneNode(c));
    else if (recursive && d.member) continue;
    else out.children.set(pe, diffNodes(c, d, recursive));
  }
  return out;
}

/** Drops branches without members. */
function prune(n: Node): Node {
  for (const [pe, c] of [...n.children]) {
    prune(c);
    if (!c.member && c.children.size === 0) n.children.delete(pe);
  }
  return n;
}

/** A member with no children, and the `.` of one with children: frozen, so shared. */
const LEAF: Record<string, unknown> = Object.freeze({});

/** The FieldsV1 object of a node, frozen as it is built (encodings are shared: see toFieldsV1). */
function encodeNode(n: Node, self: boolean): Record<string, unknown> {
  if (n.children.size === 0) return LEAF;
  const out: Record<string, unknown> = {};
  if (self) out['.'] = LEAF;
  for (const pe of [...n.children.keys()].sort(comparePathElements)) {
    const c = n.children.get(pe)!;
    if (!c.member && !hasMembers(c)) continue;
    out[pe] = encodeNode(c, c.member);
  }
  return Object.freeze(out);
}

const ELEMENT = /^(f:|k:|v:|i:)/;

function decodeNode(v: unknown, root: boolean): Node {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('expected an object');
  const n = newNode();
  const entries = Object.entries(v as Record<string, unknown>);
  // A leaf `{}` is a member; `.` marks a member that has children.
  if (!root && entries.length === 0) n.member = true;
  for (const [k, c] of entries) {
    if (k === '.') {
      if (root) throw new Error('unexpected "." at the root');
      n.member = true;
      continue;
    }
    if (!ELEMENT.test(k)) throw new Error(`unknown path element kind in ${JSON.stringify(k)}`);
    const rest = k.slice(2);
    if (k[0] === 'i' && !/^(0|[1-9][0-9]*)$/.test(rest)) throw new Error(`invalid index in ${JSON.stringify(k)}`);
    if (k[0] === 'k' || k[0] === 'v') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(rest);
      } catch {
        throw new Error(`invalid JSON in ${JSON.stringify(k)}`);
      }
      if (k[0] === 'k' && (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))) throw new Error(`a key must be an object in ${JSON.stringify(k)}`);
      const canonical = k[0] === 'k' ? keyElement(parsed as Record<string, unknown>) : valueElement(parsed);
      n.children.set(canonical, decodeNode(c, false));
      continue;
    }
    n.children.set(k, decodeNode(c, false));
  }
  return n;
}
