/**
 * The Swagger 2.0 document kube-apiserver serves at /openapi/v2: one document for every served
 * group/version (built-in kinds and custom resources), made from the same per-group/version
 * OpenAPI v3 documents /openapi/v3 serves. Paths keep their operations (operationId, tags,
 * x-kubernetes-action, x-kubernetes-group-version-kind), with v2's consumes/produces/schemes,
 * body parameters and a 401 response; parameters every operation of a path shares move to the
 * path, and every parameter but `name`, `dryRun`, `fieldValidation` and kind-specific bodies is
 * shared under `parameters` as `<name>-<hash>`, as kube-openapi's builder does.
 */
import { createHash } from 'node:crypto';
import type { SchemaDefinitions } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { collectRefs, groupWord, tag } from './document.js';
import { encodeSwaggerProtobuf } from './gnostic.js';
import { builtinSchemaV2, customResourceSchemaV2 } from './swagger-schema.js';
import type { ServedDocument, SwaggerSpec } from './serve.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
/** The order kube-apiserver lists the patch types a PATCH consumes. */
const PATCH_ORDER = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

/** The order kube-apiserver lists the media types an operation produces (v3 documents sort them). */
const PRODUCES_ORDER = [
  'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor',
  'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/cbor-seq',
];

function producesOrder(types: string[]): string[] {
  const rank = (t: string) => (PRODUCES_ORDER.includes(t) ? PRODUCES_ORDER.indexOf(t) : PRODUCES_ORDER.length);
  return [...types].sort((a, b) => rank(a) - rank(b));
}

/** One v2 parameter (a query, path or body parameter, or a `$ref` to a shared one). */
export type SwaggerParameter = Obj;

/** The v3 document of one group/version, as buildOpenAPIV3Document returns it. */
interface V3Document {
  paths?: Record<string, Obj>;
  components?: { schemas?: Obj; securitySchemes?: Obj };
}

/** Options of buildSwaggerV2. */
export interface SwaggerOptions {
  /** info.version: the server's version without its build suffix, e.g. "v1.32.0". */
  version: string;
  /**
   * Every schema definition: the discovery and /version/ operations are listed when the
   * definitions of what they answer (meta/v1 APIVersions, APIGroupList, APIGroup,
   * APIResourceList, version Info) are among them.
   */
  definitions?: SchemaDefinitions;
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** The GET operation of a discovery path (no action, no group/version/kind). */
function discoveryGet(operationId: string, description: string, tags: string[], schema: string): Obj {
  return {
    get: {
      consumes: ['application/json'], description, operationId, produces: ['application/json'],
      responses: { 200: { description: 'OK', schema: { $ref: `#/definitions/${schema}` } }, 401: { description: 'Unauthorized' } },
      schemes: ['https'], tags,
    },
  };
}

/** /api/, /api/<v>/, /apis/, /apis/<g>/, /apis/<g>/<v>/ and /version/, for the definitions present. */
function discoveryPaths(resources: ResourceType[], defs: SchemaDefinitions): { paths: Record<string, Obj>; roots: string[] } {
  const paths: Record<string, Obj> = {};
  const roots = new Set<string>();
  const add = (path: string, operationId: string, description: string, tags: string[], schema: string) => {
    if (!defs[schema]) return;
    paths[path] = discoveryGet(operationId, description, tags, schema);
    roots.add(schema);
  };
  const versionWord = (v: string) => v.charAt(0).toUpperCase() + v.slice(1);
  const groups = new Map<string, Set<string>>();
  for (const r of resources) groups.set(r.group, (groups.get(r.group) ?? new Set()).add(r.version));
  for (const [group, versions] of groups) {
    const word = groupWord(group);
    if (group === '') add('/api/', 'getCoreAPIVersions', 'the versions of the core API', ['core'], `${META}APIVersions`);
    else add(`/apis/${group}/`, `get${word}APIGroup`, 'the versions of an API group', [word.charAt(0).toLowerCase() + word.slice(1)], `${META}APIGroup`);
    for (const v of versions) {
      const path = group === '' ? `/api/${v}/` : `/apis/${group}/${v}/`;
      add(path, `get${word}${versionWord(v)}APIResources`, 'the resources of an API group version', [tag(group, v)], `${META}APIResourceList`);
    }
  }
  if ([...groups.keys()].some((g) => g !== '')) add('/apis/', 'getAPIVersions', 'the API groups and their versions', ['apis'], `${META}APIGroupList`);
  add('/version/', 'getCodeVersion', 'the server version', ['version'], 'io.k8s.apimachinery.pkg.version.Info');
  return { paths, roots: [...roots] };
}

/**
 * The key order Go's JSON gives a kube-openapi parameter (its validations, then its simple
 * schema, reference, extensions, then name/in/required/schema), which the shared parameters'
 * name hashes are computed over.
 */
const GO_PARAMETER_ORDER = [
  'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems',
  'multipleOf', 'enum', 'type', 'format', 'items', 'collectionFormat', 'default', 'example', '$ref',
];
const GO_PARAMETER_PROPS = ['description', 'name', 'in', 'required', 'schema', 'allowEmptyValue'];

/** A parameter with its keys in Go's order. */
function goParameter(p: Obj): SwaggerParameter {
  const out: Obj = {};
  for (const k of GO_PARAMETER_ORDER) if (p[k] !== undefined) out[k] = p[k];
  for (const [k, v] of Object.entries(p)) if (k.startsWith('x-')) out[k] = v;
  for (const k of GO_PARAMETER_PROPS) if (p[k] !== undefined) out[k] = p[k];
  return out;
}

/** A v3 parameter (`schema: {type, uniqueItems}`) in v2 form (`type`, `uniqueItems` beside it). */
function parameterV2(p: Obj): SwaggerParameter {
  const { schema, required, ...rest } = p;
  return goParameter({ ...(isObj(schema) ? schema : {}), ...rest, ...(required ? { required: true } : {}) });
}

function sortParameters(params: SwaggerParameter[]): SwaggerParameter[] {
  return params.sort((a, b) => cmp(String(a.name), String(b.name)) || cmp(String(a.in), String(b.in)));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The schema of the first media type of a v3 request body or response. */
function contentSchema(content: unknown): Obj | undefined {
  if (!isObj(content)) return undefined;
  for (const media of Object.values(content)) if (isObj(media) && isObj(media.schema)) return builtinSchemaV2(media.schema);
  return undefined;
}

/** One v3 operation in v2 form; its parameters are returned apart for hoisting. */
function operationV2(op: Obj): { op: Obj; params: SwaggerParameter[] } {
  const params = (Array.isArray(op.parameters) ? op.parameters : []).filter(isObj).map(parameterV2);
  const patch = op['x-kubernetes-action'] === 'patch';
  let consumes = ['*/*'];
  const body = isObj(op.requestBody) ? op.requestBody : undefined;
  if (body) {
    const schema = contentSchema(body.content);
    params.unshift(goParameter({ name: 'body', in: 'body', ...(body.required ? { required: true } : {}), schema: schema ?? {} }));
    if (patch && isObj(body.content)) {
      const types = Object.keys(body.content);
      consumes = [...PATCH_ORDER.filter((t) => types.includes(t)), ...types.filter((t) => !PATCH_ORDER.includes(t))];
    }
  }
  const produces: string[] = [];
  const responses: Obj = {};
  for (const [code, r] of Object.entries(isObj(op.responses) ? op.responses : {})) {
    if (!isObj(r)) continue;
    const schema = contentSchema(r.content);
    responses[code] = { description: r.description ?? '', ...(schema ? { schema } : {}) };
    if (isObj(r.content)) for (const t of Object.keys(r.content)) if (!produces.includes(t)) produces.push(t);
  }
  responses['401'] = { description: 'Unauthorized' };
  const out: Obj = { consumes, description: op.description, operationId: op.operationId, parameters: [], produces: producesOrder(produces), responses, schemes: ['https'] };
  if (op.tags !== undefined) out.tags = op.tags;
  for (const [k, v] of Object.entries(op)) if (k.startsWith('x-')) out[k] = v;
  return { op: out, params };
}

/** One v3 path item in v2 form: operations converted, the parameters they all share on the path. */
function pathItemV2(item: Obj): Obj {
  const ops: [string, { op: Obj; params: SwaggerParameter[] }][] = [];
  for (const m of METHODS) if (isObj(item[m])) ops.push([m, operationV2(item[m] as Obj)]);
  const pathParams = (Array.isArray(item.parameters) ? item.parameters : []).filter(isObj).map(parameterV2);
  const key = (p: SwaggerParameter) => `${String(p.in)}\u0000${String(p.name)}`;
  const counts = new Map<string, number>();
  const last = new Map<string, SwaggerParameter>();
  for (const [, { params }] of ops) {
    for (const p of params) {
      if (p.in === 'body') continue;
      counts.set(key(p), (counts.get(key(p)) ?? 0) + 1);
      last.set(key(p), p);
    }
  }
  const common = new Set([...counts].filter(([, n]) => n === ops.length).map(([k]) => k));
  const shared = [...pathParams];
  for (const k of common) if (!shared.some((p) => key(p) === k)) shared.push(last.get(k)!);
  const out: Obj = {};
  for (const [m, { op, params }] of ops) {
    op.parameters = sortParameters(params.filter((p) => !common.has(key(p))));
    if ((op.parameters as unknown[]).length === 0) delete op.parameters;
    out[m] = op;
  }
  if (shared.length) out.parameters = sortParameters(shared);
  return out;
}

/** kube-openapi's parameter name hash: FNV-1 (64 bit) of the JSON, first 6 bytes, base64url. */
export function parameterHash(json: string): string {
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  for (const byte of Buffer.from(json)) h = ((h * prime) & 0xffffffffffffffffn) ^ BigInt(byte);
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(h);
  return bytes.subarray(0, 6).toString('base64url');
}

function shareable(p: SwaggerParameter): boolean {
  if ((p.in === 'query' || p.in === 'path') && p.name === 'name') return false;
  if (p.in === 'query' && (p.name === 'fieldValidation' || p.name === 'dryRun')) return false;
  if (p.in === 'body') {
    const ref = isObj(p.schema) ? String(p.schema.$ref ?? '') : '';
    return ref.startsWith('#/definitions/io.k8s.apimachinery');
  }
  return true;
}

/** Moves every shareable parameter under `parameters` and refers to it from paths and operations. */
function shareParameters(paths: Record<string, Obj>): Record<string, SwaggerParameter> {
  const names = new Map<string, string>();
  const shared: Record<string, SwaggerParameter> = {};
  const share = (list: unknown): unknown => {
    if (!Array.isArray(list)) return list;
    return list.map((p: SwaggerParameter) => {
      if (!shareable(p)) return p;
      const json = JSON.stringify(p);
      let name = names.get(json);
      if (!name) {
        name = `${String(p.name || 'param')}-${parameterHash(json)}`;
        for (let i = 1; shared[name]; i++) name = `${String(p.name)}-${i}`;
        names.set(json, name);
        shared[name] = p;
      }
      return { $ref: `#/parameters/${name}` };
    });
  };
  for (const item of Object.values(paths)) {
    if (item.parameters) item.parameters = share(item.parameters);
    for (const m of METHODS) if (isObj(item[m])) (item[m] as Obj).parameters = share((item[m] as Obj).parameters);
    for (const m of METHODS) if (isObj(item[m]) && (item[m] as Obj).parameters === undefined) delete (item[m] as Obj).parameters;
  }
  return sorted(shared);
}

function sorted<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => cmp(a, b)));
}

/**
 * Builds the /openapi/v2 document from the v3 documents of every served group/version and the
 * served resources (which tell custom resources' schemas apart).
 */
export function buildSwaggerV2(documents: Iterable<object>, resources: ResourceType[], options: SwaggerOptions): object {
  const custom = new Map<string, ResourceType>();
  const customLists = new Map<string, ResourceType>();
  for (const r of resources) {
    if (!r.customResource) continue;
    custom.set(r.schemaName, r);
    customLists.set(`${r.schemaName}List`, r);
  }
  const selectable = (r: ResourceType) => Object.keys(r.strategy.fieldSelectors ?? {});
  const paths: Record<string, Obj> = {};
  const definitions: Record<string, Obj> = {};
  let security: Obj = {};
  for (const doc of documents as Iterable<V3Document>) {
    for (const [path, item] of Object.entries(doc.paths ?? {})) paths[path] = pathItemV2(item);
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      if (definitions[name] || !isObj(schema)) continue;
      const cr = custom.get(name);
      definitions[name] = cr ? customResourceSchemaV2(schema, selectable(cr)) : builtinSchemaV2(schema);
      // A custom resource's List lists the selectable fields too.
      const list = customLists.get(name);
      if (list && selectable(list).length) definitions[name]['x-kubernetes-selectable-fields'] = selectable(list).map((fieldPath) => ({ fieldPath }));
    }
    security = { ...security, ...(doc.components?.securitySchemes ?? {}) };
  }
  if (options.definitions) {
    const defs = options.definitions;
    const discovery = discoveryPaths(resources, defs);
    Object.assign(paths, discovery.paths);
    const reached = new Set<string>(discovery.roots);
    for (const root of discovery.roots) collectRefs(defs[root], defs, reached);
    for (const name of reached) if (!definitions[name] && defs[name]) definitions[name] = builtinSchemaV2(defs[name]);
  }
  const sortedPaths = sorted(paths);
  const parameters = shareParameters(sortedPaths);
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: options.version },
    paths: sortedPaths,
    definitions: sorted(definitions),
    parameters,
    securityDefinitions: Object.keys(security).length ? security : { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    security: [{ BearerToken: [] }],
  };
}

/** The ETag kube-apiserver gives an OpenAPI document: SHA-512 of its bytes, upper-case hex. */
export function openAPIETag(bytes: Uint8Array): string {
  return createHash('sha512').update(bytes).digest('hex').toUpperCase();
}


/** A built document ready to serve: its JSON, ETag and build time, the protobuf encoded on first use. */
export function swaggerSpec(doc: object, lastModified: Date): SwaggerSpec {
  const json = Buffer.from(JSON.stringify(doc));
  let protobuf: Uint8Array | undefined;
  return { json, etag: openAPIETag(json), lastModified, protobuf: () => (protobuf ??= encodeSwaggerProtobuf(doc)) };
}

/** A document ready to serve: its JSON bytes, their ETag and the build time. */
export function servedDocument(doc: object, lastModified: Date): ServedDocument {
  const json = Buffer.from(JSON.stringify(doc));
  return { json, etag: openAPIETag(json), lastModified };
}
