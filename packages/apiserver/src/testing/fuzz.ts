/**
 * A seeded request fuzzer for the API: it reads the served kinds from discovery and sends,
 * for every kind and every verb, requests with broken bodies (type swaps, deep nesting, huge
 * numbers, unicode, nulls, duplicate keys, `__proto__` keys), bad patches, bad query
 * parameters and path tricks (dot segments, `//`, encoded slashes). The same generator serves
 * the test (`npm test`, 20,000 requests) and the benchmark (`npm run bench`, 200,000).
 */
import type { RawRequest, RawResponse } from '@kplane/api';
import { seededRandom } from '@kplane/api';
import { FUZZ_LABEL, CANARY_NAMESPACES } from './canaries.js';

/** A served resource as discovery describes it. */
export interface FuzzResource {
  group: string;
  version: string;
  /** Plural name. */
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  /** Subresource names served for it (status, scale, ...). */
  subresources: string[];
}

/** One generated request, with a short label of what it tries. */
export interface FuzzRequest extends RawRequest {
  label: string;
}

/** A request handler: the in-process API server or an HTTPS transport. */
export type Handle = (req: RawRequest) => Promise<RawResponse>;


/** The seed of a run: KPLANE_FUZZ_SEED when set, otherwise a fresh random one. */
export function fuzzSeed(env: Record<string, string | undefined> = process.env): number {
  const given = env.KPLANE_FUZZ_SEED;
  if (given !== undefined && given !== '' && Number.isInteger(Number(given))) return Number(given) >>> 0;
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

async function getJson(handle: Handle, path: string): Promise<any> {
  const r = await handle({ method: 'GET', path, query: {}, headers: { accept: 'application/json' } });
  if (r.status !== 200) throw new Error(`discovery: GET ${path} answered ${r.status}`);
  return JSON.parse(Buffer.from(r.body ?? []).toString('utf8'));
}

/** Reads every served resource from the legacy discovery documents (/api/v1, /apis/<g>/<v>). */
export async function discoverResources(handle: Handle): Promise<FuzzResource[]> {
  const groupVersions: { group: string; version: string; path: string }[] = [{ group: '', version: 'v1', path: '/api/v1' }];
  const groups = await getJson(handle, '/apis');
  for (const g of groups.groups ?? []) {
    for (const v of g.versions ?? []) groupVersions.push({ group: g.name, version: v.version, path: `/apis/${g.name}/${v.version}` });
  }
  const out: FuzzResource[] = [];
  for (const gv of groupVersions) {
    const list = await getJson(handle, gv.path);
    const subs = new Map<string, string[]>();
    for (const r of list.resources ?? []) {
      const [main, sub] = String(r.name).split('/');
      if (sub) subs.set(main!, [...(subs.get(main!) ?? []), sub]);
    }
    for (const r of list.resources ?? []) {
      if (String(r.name).includes('/')) continue;
      out.push({ group: gv.group, version: gv.version, resource: r.name, kind: r.kind, namespaced: !!r.namespaced, verbs: r.verbs ?? [], subresources: subs.get(r.name) ?? [] });
    }
  }
  return out;
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

/** Names the fuzzer writes: its objects never share a name with a canary. */
const NAMES = ['fz-a', 'fz-b', 'fz-c'];
/** Path segments standing where a name goes: dot segments, encoded slashes, bad escapes. */
const TRICK_NAMES = ['%2e', '%2e%2e', '%2E%2e', '..', '.', '%2e%2e%2f%2e%2e', '..%2F..%2Fsecrets', 'a%2Fb', '%00', 'a%25b', '%', '%ZZ', '%E0%A4%A', '%c0%ae%c0%ae', 'ä', 'A_B', 'x'.repeat(300), '%2e%2e/%2e%2e', '%2e%2e/secrets'];
const CONTENT_TYPES = ['application/json', 'application/yaml', 'text/plain', '', 'application/json; charset=utf-16', 'application/vnd.kubernetes.protobuf', 'multipart/form-data'];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
const ACCEPTS = [undefined, 'application/json', 'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', 'application/yaml', 'text/html', ';;;,,=', '*/*'];
/** Query parameters and values a client could send wrongly. */
const BAD_QUERY: Record<string, string[]> = {
  limit: ['-1', 'abc', '1e100', '99999999999999999999', '9223372036854775808', '1.5', '0x10', ''],
  timeoutSeconds: ['1e100', '-1', 'abc', '99999999999999999999', '1.5'],
  resourceVersion: ['abc', '-1', '99999999999999999999', '1e3', '0', '', ' 1'],
  resourceVersionMatch: ['Exact', 'NotOlderThan', 'Bogus', ''],
  labelSelector: ['a in (', '!!', 'a=b,c', 'x'.repeat(70) + '=v', 'a==b==c', '\u0000', 'a notin ()'],
  fieldSelector: ['metadata.name=fz-a', 'spec.bogus=1', 'a in (b)', '=', 'metadata.name==x==y'],
  continue: ['!!!', 'b2theQ==', '', Buffer.from('{"v":"meta.k8s.io/v1","rv":-5,"start":"../../"}').toString('base64'), Buffer.from('{"v":"meta.k8s.io/v1","rv":1e300,"start":"a"}').toString('base64'), Buffer.from('{"v":"x"}').toString('base64')],
  dryRun: ['All', 'Bogus', '', 'all'],
  fieldValidation: ['Strict', 'Warn', 'Ignore', 'Bogus'],
  fieldManager: ['x'.repeat(200), '\u0000', 'fuzz'],
  propagationPolicy: ['Bogus', 'Orphan', 'Foreground', ''],
  gracePeriodSeconds: ['abc', '-5', '1e100', '99999999999999999999', ''],
  orphanDependents: ['maybe', 'true'],
  watch: ['true', '1', 'false', 'yes'],
  allowWatchBookmarks: ['true', 'x'],
  sendInitialEvents: ['true', 'false', 'x'],
  includeObject: ['Object', 'None', 'Bogus'],
  pretty: ['true', 'x'],
};
const QUERY_KEYS = Object.keys(BAD_QUERY);
const FIELD_NAMES = ['metadata', 'spec', 'status', 'data', 'stringData', 'binaryData', 'labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields', 'name', 'namespace', 'generateName', 'replicas', 'selector', 'template', 'containers', 'image', 'ports', 'rules', 'type', 'immutable', 'resourceVersion', 'uid', 'deletionTimestamp', 'creationTimestamp', 'generation', '__proto__', 'constructor', 'prototype', '$patch', '$retainKeys', '$setElementOrder/finalizers', 'x-kubernetes-preserve-unknown-fields'];
const WEIRD_STRINGS = ['', 'x', '\u0000', '\ud800', '\u202e', '😀', 'İ', 'a'.repeat(300), '../..', '%2e%2e', 'null', '1e400', '-', 'Bad_Name', 'fz-a'];
const HUGE_NUMBERS = ['1e308', '1e400', '-1e400', '18446744073709551616', '-9223372036854775809', '9223372036854775808', '2147483648', '-2147483649', '0.1', '-0', '123456789012345678901234567890'];

/** A random JSON value as text (numbers may be out of every range; strings may be lone surrogates). */
function randomValueText(r: () => number, depth: number): string {
  const k = Math.floor(r() * (depth > 3 ? 6 : 9));
  switch (k) {
    case 0: return 'null';
    case 1: return r() < 0.5 ? 'true' : 'false';
    case 2: return String(Math.floor(r() * 2e9) - 1e9);
    case 3: return pick(r, HUGE_NUMBERS);
    case 4:
    case 5: return JSON.stringify(pick(r, WEIRD_STRINGS));
    case 6: return `[${Array.from({ length: Math.floor(r() * 3) }, () => randomValueText(r, depth + 1)).join(',')}]`;
    default: {
      const parts: string[] = [];
      for (let i = Math.floor(r() * 4); i > 0; i--) parts.push(`${JSON.stringify(pick(r, FIELD_NAMES))}:${randomValueText(r, depth + 1)}`);
      return `{${parts.join(',')}}`;
    }
  }
}

/** `[[[...]]]` or `{"a":{"a":...}}` nested `depth` levels. */
export function nested(depth: number, kind: 'array' | 'object' = 'array'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** A YAML document whose aliases expand exponentially ("billion laughs"). */
export function billionLaughs(levels = 9): string {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: fz-lol', 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(',')}]`);
  lines.push(`data: {k: *a${levels - 1}}`);
  return lines.join('\n');
}

/** A plausible object of a kind, as an object, before mutation. */
function baseObject(res: FuzzResource, name: string, namespace: string | undefined): Record<string, unknown> {
  const apiVersion = res.group ? `${res.group}/${res.version}` : res.version;
  const metadata: Record<string, unknown> = { name, labels: { [FUZZ_LABEL]: '1' } };
  if (namespace) metadata.namespace = namespace;
  const o: Record<string, unknown> = { apiVersion, kind: res.kind, metadata };
  switch (res.resource) {
    case 'configmaps': o.data = { k: 'v' }; break;
    case 'secrets': o.stringData = { k: 'v' }; break;
    case 'pods': o.spec = { containers: [{ name: 'c', image: 'busybox' }] }; break;
    case 'deployments':
    case 'replicasets':
      o.spec = { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } };
      break;
    case 'services': o.spec = { ports: [{ port: 80 }] }; break;
    case 'customresourcedefinitions':
      o.spec = { group: 'fuzz.example.com', names: { plural: name.replace(/-/g, ''), kind: 'Fz', listKind: 'FzList', singular: 'fz' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { p: { type: 'string', pattern: '^(a+)+$' } } } } } } }] };
      break;
    default: break;
  }
  return o;
}

/** A body for a write: a plausible object, then broken in one of many ways. */
function writeBody(r: () => number, res: FuzzResource, name: string, namespace: string | undefined): { text: string; contentType: string; label: string } {
  const base = baseObject(res, name, namespace);
  const k = r() < 0.25 ? 0 : Math.floor(r() * 16);
  const json = (o: unknown) => JSON.stringify(o);
  switch (k) {
    case 0: return { text: json(base), contentType: 'application/json', label: 'valid' };
    case 1: { // type swap at a top-level or metadata field
      const field = pick(r, ['metadata', 'spec', 'data', 'stringData', 'status', 'apiVersion', 'kind']);
      const text = json(base).replace(/^\{/, `{${JSON.stringify(field)}:${randomValueText(r, 2)},`);
      return { text, contentType: 'application/json', label: `type swap ${field}` };
    }
    case 2: { // metadata field of the wrong type
      const field = pick(r, ['name', 'labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields', 'namespace', 'generateName', 'resourceVersion', 'uid', 'deletionTimestamp', 'creationTimestamp', 'generation']);
      const meta = { ...(base.metadata as object), [field]: '__V__' } as Record<string, unknown>;
      const text = json({ ...base, metadata: meta }).replace('"__V__"', randomValueText(r, 2));
      return { text, contentType: 'application/json', label: `metadata.${field} swap` };
    }
    case 3: { // deep nesting
      const depth = pick(r, [64, 200, 1000, 3000, 3000, 20000]);
      const where = pick(r, ['spec', 'data', 'x', 'metadata']);
      return { text: json(base).replace(/^\{/, `{${JSON.stringify(where)}:${nested(depth, r() < 0.5 ? 'array' : 'object')},`), contentType: 'application/json', label: `nesting ${depth} in ${where}` };
    }
    case 4: { // huge numbers where ints go
      const n = pick(r, HUGE_NUMBERS);
      const spec = res.resource === 'deployments' || res.resource === 'replicasets' ? `{"replicas":${n},"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}` : `{"replicas":${n},"ports":[{"port":${n}}]}`;
      return { text: json({ ...base, spec: '__S__' }).replace('"__S__"', spec), contentType: 'application/json', label: `huge number ${n}` };
    }
    case 5: { // duplicate keys
      const t = json(base);
      return { text: t.replace(/^\{/, `{"metadata":{"name":"other","namespace":"kube-system"},`), contentType: 'application/json', label: 'duplicate metadata' };
    }
    case 6: { // __proto__ and constructor keys
      const t = json(base).replace(/^\{/, '{"__proto__":{"polluted":"yes","isAdmin":true},"constructor":{"prototype":{"polluted":"yes"}},');
      return { text: t.replace('"labels":{', '"labels":{"__proto__":"x",'), contentType: 'application/json', label: '__proto__ keys' };
    }
    case 7: return { text: billionLaughs(pick(r, [3, 6, 9])), contentType: 'application/yaml', label: 'yaml aliases' };
    case 8: return { text: json(base).slice(0, Math.floor(r() * 60)), contentType: 'application/json', label: 'truncated' };
    case 9: return { text: `{"a":1}{"b":2}`, contentType: 'application/json', label: 'two documents' };
    case 10: return { text: randomValueText(r, 0), contentType: pick(r, CONTENT_TYPES), label: 'random value' };
    case 11: { // unicode in names, labels and data
      const s = pick(r, WEIRD_STRINGS);
      const meta = { ...(base.metadata as object), labels: { [s || 'e']: s }, annotations: { [s || 'e']: s } };
      return { text: json({ ...base, metadata: meta, data: { [s || 'e']: s } }), contentType: 'application/json', label: 'unicode' };
    }
    case 12: { // nulls everywhere
      const meta = { name, namespace: null, labels: null, annotations: { a: null }, finalizers: [null], ownerReferences: [null] };
      return { text: json({ ...base, metadata: meta, spec: null, data: { k: null } }), contentType: 'application/json', label: 'nulls' };
    }
    case 13: return { text: '\ufeff' + json(base), contentType: 'application/json', label: 'BOM' };
    case 14: return { text: json(base).replace(/"metadata":\{/, `"metadata":{"finalizers":${pick(r, ['"abc"', '{}', '[1,2]', '["a","a"]', '["bad finalizer!"]'])},`), contentType: 'application/json', label: 'finalizers' };
    default: {
      const rand = JSON.parse(JSON.stringify(base));
      (rand as Record<string, unknown>).spec = '__R__';
      return { text: JSON.stringify(rand).replace('"__R__"', randomValueText(r, 1)), contentType: 'application/json', label: 'random spec' };
    }
  }
}

/** A patch body of one of the four patch types, often broken. */
function patchBody(r: () => number, contentType: string): { text: string; label: string } {
  if (contentType === 'application/json-patch+json') {
    const op = pick(r, ['add', 'remove', 'replace', 'test', 'move', 'copy', 'nope', '']);
    const path = pick(r, ['/metadata/labels/a', '/metadata/finalizers/-', '/metadata/name', '/metadata', '', '/', '/spec/replicas', '/a/b/c', '/metadata/labels/__proto__', '/__proto__/polluted', '/metadata/finalizers/99999999999', '/data/~2', '/metadata/annotations/a~1b']);
    const ops = [{ op, path, value: JSON.parse(safeParseable(randomValueText(r, 2))), from: pick(r, ['/metadata/labels', '/metadata', '/spec']) }];
    const text = r() < 0.2 ? randomValueText(r, 0) : JSON.stringify(r() < 0.1 ? Array.from({ length: 2000 }, () => ops[0]) : ops);
    return { text, label: `json patch ${op} ${path}` };
  }
  if (contentType === 'application/apply-patch+yaml') return { text: pick(r, ['a: [', 'metadata: {name: fz-a}', billionLaughs(6), '{}']), label: 'apply patch' };
  const k = Math.floor(r() * 8);
  switch (k) {
    case 0: return { text: '{"metadata":{"finalizers":{}}}', label: 'finalizers {}' };
    case 1: return { text: '{"metadata":{"labels":["a"]}}', label: 'labels array' };
    case 2: return { text: '{"__proto__":{"polluted":"yes"},"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}', label: '__proto__ patch' };
    case 3: return { text: '{"metadata":{"$patch":"delete"},"spec":{"$patch":"replace"},"$setElementOrder/finalizers":[{"a":1}]}', label: 'patch directives' };
    case 4: return { text: `{"spec":${nested(pick(r, [100, 3000, 20000]), 'object')}}`, label: 'deep patch' };
    case 5: return { text: `{"spec":{"replicas":${pick(r, HUGE_NUMBERS)}}}`, label: 'huge replicas' };
    case 6: return { text: '{"metadata":{"name":"other","namespace":"kube-system","uid":"x","resourceVersion":"1"}}', label: 'identity change' };
    default: return { text: randomValueText(r, 0), label: 'random patch' };
  }
}

/** A JSON value text that JSON.parse accepts into something JSON.stringify can write back. */
function safeParseable(text: string): string {
  try {
    const v = JSON.parse(text);
    JSON.stringify(v);
    return text;
  } catch {
    return 'null';
  }
}

/** Options of createFuzzGenerator. */
export interface FuzzGeneratorOptions {
  seed: number;
  /** The namespace the fuzzer writes in (it must exist). */
  namespace: string;
  /** How often (0..1) a read asks for a resourceVersion far ahead of the store (each costs the server's wait). */
  aheadRate?: number;
}

/** Returns a function producing the next request of the seeded sequence. */
export function createFuzzGenerator(resources: FuzzResource[], options: FuzzGeneratorOptions): () => FuzzRequest {
  const r = seededRandom(options.seed);
  const ns = options.namespace;
  const aheadRate = options.aheadRate ?? 0.0001;
  return () => {
    const res = pick(r, resources);
    const prefix = res.group ? `/apis/${res.group}/${res.version}` : `/api/${res.version}`;
    const namespace = res.namespaced ? (r() < 0.92 ? ns : pick(r, ['fz-missing', ...CANARY_NAMESPACES, '%2e%2e', ''])) : undefined;
    const collection = res.namespaced ? `${prefix}/namespaces/${namespace}/${res.resource}` : `${prefix}/${res.resource}`;
    const trick = r() < 0.12;
    const rawName = trick ? pick(r, TRICK_NAMES) : pick(r, NAMES);
    // A trick aimed at a canary namespace uses only names that can never be a canary's.
    const name = namespace && CANARY_NAMESPACES.includes(namespace) && !trick ? pick(r, TRICK_NAMES) : rawName;
    const item = `${collection}/${name}`;
    const query: Record<string, string> = {};
    const headers: Record<string, string> = {};
    const accept = r() < 0.2 ? pick(r, ACCEPTS) : undefined;
    if (accept) headers.accept = accept;
    for (let j = r() < 0.5 ? 0 : Math.floor(r() * 3) + 1; j > 0; j--) {
      const key = pick(r, QUERY_KEYS);
      query[key] = pick(r, BAD_QUERY[key]!);
    }
    if (r() < aheadRate) query.resourceVersion = '99999999999';
    let method = 'GET';
    let path = item;
    let body: string | undefined;
    let label: string;
    const verb = pick(r, ['create', 'create', 'get', 'list', 'update', 'patch', 'patch', 'patch', 'delete', 'deletecollection', 'watch', 'subresource', 'method']);
    const sub = () => pick(r, [...res.subresources, 'status', 'scale', 'bogus', 'finalize', 'binding', 'log', 'exec']);
    switch (verb) {
      case 'create': {
        method = 'POST';
        path = r() < 0.9 ? collection : item;
        const b = writeBody(r, res, pick(r, NAMES), namespace);
        body = b.text;
        headers['content-type'] = b.contentType;
        label = `create ${b.label}`;
        break;
      }
      case 'get': label = 'get'; break;
      case 'list': path = r() < 0.8 ? collection : `${prefix}/${res.resource}`; label = 'list'; break;
      case 'update': {
        method = 'PUT';
        const b = writeBody(r, res, name, namespace);
        body = b.text;
        headers['content-type'] = b.contentType;
        label = `update ${b.label}`;
        break;
      }
      case 'patch': {
        method = 'PATCH';
        const ct = pick(r, PATCH_TYPES);
        const p = patchBody(r, ct);
        body = p.text;
        headers['content-type'] = ct;
        if (r() < 0.2) path = `${item}/${sub()}`;
        label = `patch ${ct} ${p.label}`;
        break;
      }
      case 'delete': {
        method = 'DELETE';
        if (r() < 0.5) {
          body = pick(r, ['{"gracePeriodSeconds":"0"}', '{"propagationPolicy":1}', '{"kind":"Pod"}', '{"preconditions":{"uid":5}}', '{"dryRun":"All"}', '[]', 'null', '{"orphanDependents":"x"}', '{"apiVersion":true}', '{"gracePeriodSeconds":-1}']);
          headers['content-type'] = 'application/json';
        }
        label = `delete ${body ?? ''}`;
        break;
      }
      case 'deletecollection': {
        method = 'DELETE';
        // The cluster-wide path of a namespaced kind is a trick (kube answers 405); either way the
        // fuzzer only ever selects its own objects, so a server that honours it deletes no canary.
        path = res.namespaced ? (r() < 0.8 ? collection : `${prefix}/${res.resource}`) : collection;
        query.labelSelector = query.labelSelector ? `${FUZZ_LABEL}=1,${query.labelSelector}` : `${FUZZ_LABEL}=1`;
        label = 'deletecollection';
        break;
      }
      case 'watch': {
        path = r() < 0.5 ? collection : `${prefix}/watch${collection.slice(prefix.length)}`;
        if (r() < 0.3) path = `${prefix}/watch${item.slice(prefix.length)}`;
        query.watch = query.watch ?? 'true';
        query.timeoutSeconds = '1';
        label = 'watch';
        break;
      }
      case 'subresource': {
        method = pick(r, ['GET', 'PUT', 'PATCH', 'POST', 'DELETE']);
        path = `${item}/${sub()}`;
        if (method !== 'GET' && method !== 'DELETE') {
          const b = writeBody(r, res, name, namespace);
          body = b.text;
          headers['content-type'] = method === 'PATCH' ? pick(r, PATCH_TYPES) : b.contentType;
        }
        label = `subresource ${method}`;
        break;
      }
      default: {
        method = pick(r, ['HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'get', 'BREW', 'PROPFIND']);
        path = pick(r, [item, collection, `${prefix}`, '/apis', `${collection}//${name}`, `${collection}/`, `${prefix}/watch/namespaces`]);
        label = `method ${method}`;
        break;
      }
    }
    if (r() < 0.05) path = path.replace(/\/([^/]*)$/, '//$1');
    if (r() < 0.03) path += '/';
    if (r() < 0.05 && body !== undefined) headers['content-type'] = pick(r, CONTENT_TYPES);
    const req: FuzzRequest = { method, path, query, headers, label };
    if (body !== undefined) req.body = Buffer.from(body);
    return req;
  };
}

/** The one 5xx kube-apiserver designs for clients: 504 for a resourceVersion ahead of the store. */
export function isDesignedTimeout(status: number, text: string): boolean {
  return status === 504 && text.includes('ResourceVersionTooLarge');
}

/** Options of runFuzz. */
export interface RunFuzzOptions {
  handle: Handle;
  resources: FuzzResource[];
  seed: number;
  count: number;
  namespace: string;
  /** Requests in flight at once (default 4; 1 replays a seed exactly). */
  concurrency?: number;
  aheadRate?: number;
  /** Called every `progressEvery` requests. */
  onProgress?: (done: number) => void;
  progressEvery?: number;
}

/** What a fuzz run found. */
export interface FuzzReport {
  seed: number;
  requests: number;
  /** Answers by status code. */
  statuses: Record<number, number>;
  /** Requests answered 500 or more (the designed 504 aside), or that threw. */
  failures: string[];
  ms: number;
}

/** Sends `count` generated requests and collects every answer of 500 or more. */
export async function runFuzz(options: RunFuzzOptions): Promise<FuzzReport> {
  const next = createFuzzGenerator(options.resources, { seed: options.seed, namespace: options.namespace, aheadRate: options.aheadRate });
  const statuses: Record<number, number> = {};
  const failures: string[] = [];
  const start = performance.now();
  let sent = 0;
  const describe = (i: number, q: FuzzRequest) =>
    `#${i} [${q.label}] ${q.method} ${q.path} ${JSON.stringify(q.query)} ${q.headers?.['content-type'] ?? ''} ${Buffer.from(q.body ?? []).toString('utf8').slice(0, 160)}`;
  const lane = async (): Promise<void> => {
    while (sent < options.count) {
      const i = sent++;
      const q = next();
      const abort = new AbortController();
      q.signal = abort.signal;
      try {
        const res = await options.handle(q);
        abort.abort();
        if (res.stream) await res.stream[Symbol.asyncIterator]().return?.();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const text = Buffer.from(res.body ?? []).toString('utf8');
        if (res.status >= 500 && !isDesignedTimeout(res.status, text)) failures.push(`${describe(i, q)} → ${res.status} ${text.slice(0, 300)}`);
      } catch (err) {
        abort.abort();
        failures.push(`${describe(i, q)} → threw ${String((err as Error)?.stack ?? err).slice(0, 300)}`);
      }
      if (options.onProgress && (i + 1) % (options.progressEvery ?? 10_000) === 0) options.onProgress(i + 1);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, lane));
  return { seed: options.seed, requests: sent, statuses, failures, ms: performance.now() - start };
}
