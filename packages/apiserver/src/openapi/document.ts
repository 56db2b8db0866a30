/**
 * OpenAPI v3 documents per group/version, shaped like kube-apiserver's /openapi/v3/<gv>: the
 * REST paths of every resource with their operations, query parameters and
 * x-kubernetes-action / x-kubernetes-group-version-kind, and every schema they reach.
 */
import type { SchemaDefinitions, SchemaObject } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { ACTION_PARAMETERS, pathParameters } from './parameters.js';

const SCHEMA_PREFIX = '#/components/schemas/';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

type GVK = { group: string; kind: string; version: string };
type Operation = Record<string, unknown>;

/** "rbac.authorization.k8s.io" → "RbacAuthorization"; "" → "Core". */
export function groupWord(group: string): string {
  if (!group) return 'Core';
  return group
    .replace(/\.k8s\.io$/, '')
    .split(/[.-]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/** The tag of a group/version's operations: "apps_v1", "rbacAuthorization_v1", "core_v1". */
export function tag(group: string, version: string): string {
  const w = groupWord(group);
  return `${w.charAt(0).toLowerCase()}${w.slice(1)}_${version}`;
}

function content(schemaName: string, types: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const t of types) out[t] = { schema: { $ref: `${SCHEMA_PREFIX}${schemaName}` } };
  return out;
}

const JSON_YAML = ['application/json', 'application/yaml'];

function responses(schemaName: string, codes: [string, string][], types = JSON_YAML): Record<string, unknown> {
  return Object.fromEntries(codes.map(([code, description]) => [code, { content: content(schemaName, types), description }]));
}

interface OpSpec {
  action: string;
  description: string;
  operationId: string;
  schema: string;
  gvk: GVK;
  body?: string;
  patchTypes?: string[];
  codes: [string, string][];
  responseTypes?: string[];
  /** The action whose query parameters the operation takes (default: its own). */
  parametersOf?: string;
}

function operation(o: OpSpec, tagName: string): Operation {
  const op: Operation = {
    description: o.description,
    operationId: o.operationId,
    parameters: ACTION_PARAMETERS[o.parametersOf ?? o.action] ?? [],
  };
  if (o.body) op.requestBody = { content: content(o.body, o.patchTypes ?? ['application/json']), required: o.action !== 'delete' && o.action !== 'deletecollection' };
  op.responses = responses(o.schema, o.codes, o.responseTypes);
  op.tags = [tagName];
  op['x-kubernetes-action'] = o.action;
  op['x-kubernetes-group-version-kind'] = o.gvk;
  return op;
}

/** Adds every $ref reachable from `schema` to `out`. */
export function collectRefs(schema: unknown, defs: SchemaDefinitions, out: Set<string>): void {
  if (Array.isArray(schema)) {
    for (const s of schema) collectRefs(s, defs, out);
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMA_PREFIX)) {
      const name = v.slice(SCHEMA_PREFIX.length);
      if (!out.has(name) && defs[name]) {
        out.add(name);
        collectRefs(defs[name], defs, out);
      }
    } else if (k !== 'x-kubernetes-group-version-kind' && k !== 'enum' && k !== 'default') {
      collectRefs(v, defs, out);
    }
  }
}

/** The List schema of a resource: the definition `<schema>List`, or one derived from the item schema. */
function listSchema(r: ResourceType, defs: SchemaDefinitions, extra: SchemaDefinitions): string {
  const name = `${r.schemaName}List`;
  if (defs[name]) return name;
  extra[name] = {
    type: 'object',
    description: `${r.listKind} is a list of ${r.kind}.`,
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion of this list.' },
      items: { type: 'array', description: `List of ${r.kind.toLowerCase()}s.`, items: { $ref: `${SCHEMA_PREFIX}${r.schemaName}` } },
      kind: { type: 'string', description: 'Kind of this list.' },
      metadata: { $ref: `${SCHEMA_PREFIX}${META}ListMeta`, description: 'Standard list metadata.' },
    },
    required: ['items'],
    'x-kubernetes-group-version-kind': [{ group: r.group, kind: r.listKind, version: r.version }],
  };
  return name;
}

/**
 * The name of meta/v1 WatchEvent, the schema of the /watch/ operations' responses; derived into
 * `extra` when the definitions lack it.
 */
function watchEventSchema(defs: SchemaDefinitions, extra: SchemaDefinitions): string {
  const name = `${META}WatchEvent`;
  if (!defs[name] && !extra[name]) {
    extra[name] = {
      type: 'object',
      description: 'One event of a watch stream.',
      properties: {
        object: defs['io.k8s.apimachinery.pkg.runtime.RawExtension']
          ? { $ref: `${SCHEMA_PREFIX}io.k8s.apimachinery.pkg.runtime.RawExtension`, description: 'The object the event is about, or a Status for ERROR events.' }
          : { type: 'object', description: 'The object the event is about, or a Status for ERROR events.' },
        type: { type: 'string', description: 'ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.' },
      },
      required: ['type', 'object'],
    };
  }
  return name;
}

/**
 * Builds the OpenAPI 3.0 document of one group/version from its resources and the schema
 * definitions (`components.schemas` holds only what the resources reach).
 */
export function buildOpenAPIV3Document(group: string, version: string, resources: ResourceType[], defs: SchemaDefinitions): object {
  const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
  const tagName = tag(group, version);
  const gv = `${groupWord(group)}${version.charAt(0).toUpperCase()}${version.slice(1)}`;
  const paths: Record<string, Record<string, unknown>> = {};
  const extra: SchemaDefinitions = {};
  const roots = new Set<string>([`${META}Status`, `${META}DeleteOptions`, `${META}Patch`]);
  for (const r of resources.filter((x) => x.group === group && x.version === version)) {
    const gvk: GVK = { group: r.group, kind: r.kind, version: r.version };
    const list = listSchema(r, defs, extra);
    roots.add(r.schemaName);
    roots.add(list);
    const has = (verb: string) => r.verbs.includes(verb);
    const ns = r.namespaced ? 'Namespaced' : '';
    const collection = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
    const item = `${collection}/{name}`;
    const patchTypes = ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'];
    if (r.schemaName.startsWith('io.k8s.')) patchTypes.push('application/strategic-merge-patch+json');

    const col: Record<string, unknown> = { parameters: pathParameters(r.kind, false, r.namespaced) };
    if (has('list')) {
      col.get = operation({
        action: 'list', description: `list or watch objects of kind ${r.kind}`, operationId: `list${gv}${ns}${r.kind}`,
        schema: list, gvk, codes: [['200', 'OK']], responseTypes: ['application/json', 'application/json;stream=watch', 'application/yaml'],
      }, tagName);
    }
    if (has('create')) {
      col.post = operation({
        action: 'post', description: `create ${article(r.kind)} ${r.kind}`, operationId: `create${gv}${ns}${r.kind}`,
        schema: r.schemaName, gvk, body: r.schemaName, codes: [['200', 'OK'], ['201', 'Created'], ['202', 'Accepted']],
      }, tagName);
    }
    if (has('deletecollection')) {
      col.delete = operation({
        action: 'deletecollection', description: `delete collection of ${r.kind}`, operationId: `delete${gv}Collection${ns}${r.kind}`,
        schema: `${META}Status`, gvk, body: `${META}DeleteOptions`, codes: [['200', 'OK']],
      }, tagName);
    }
    if (Object.keys(col).length > 1) paths[collection] = col;

    const itm: Record<string, unknown> = { parameters: pathParameters(r.kind, true, r.namespaced) };
    if (has('get')) {
      itm.get = operation({ action: 'get', description: `read the specified ${r.kind}`, operationId: `read${gv}${ns}${r.kind}`, schema: r.schemaName, gvk, codes: [['200', 'OK']] }, tagName);
    }
    if (has('update')) {
      itm.put = operation({
        action: 'put', description: `replace the specified ${r.kind}`, operationId: `replace${gv}${ns}${r.kind}`,
        schema: r.schemaName, gvk, body: r.schemaName, codes: [['200', 'OK'], ['201', 'Created']],
      }, tagName);
    }
    if (has('patch')) {
      itm.patch = operation({
        action: 'patch', description: `partially update the specified ${r.kind}`, operationId: `patch${gv}${ns}${r.kind}`,
        schema: r.schemaName, gvk, body: `${META}Patch`, patchTypes, codes: [['200', 'OK'], ['201', 'Created']],
      }, tagName);
    }
    if (has('delete')) {
      itm.delete = operation({
        action: 'delete', description: `delete ${article(r.kind)} ${r.kind}`, operationId: `delete${gv}${ns}${r.kind}`,
        schema: r.strategy.returnDeletedObject ? r.schemaName : `${META}Status`, gvk, body: `${META}DeleteOptions`, codes: [['200', 'OK'], ['202', 'Accepted']],
      }, tagName);
    }
    if (Object.keys(itm).length > 1) paths[item] = itm;

    const sub = (name: string, schema: string, subGvk: GVK, word: string) => {
      const s: Record<string, unknown> = { parameters: pathParameters(r.kind, true, r.namespaced) };
      const suffix = name.charAt(0).toUpperCase() + name.slice(1);
      s.get = operation({ action: 'get', description: `read ${word} of the specified ${r.kind}`, operationId: `read${gv}${ns}${r.kind}${suffix}`, schema, gvk: subGvk, codes: [['200', 'OK']] }, tagName);
      s.put = operation({
        action: 'put', description: `replace ${word} of the specified ${r.kind}`, operationId: `replace${gv}${ns}${r.kind}${suffix}`,
        schema, gvk: subGvk, body: schema, codes: [['200', 'OK'], ['201', 'Created']],
      }, tagName);
      s.patch = operation({
        action: 'patch', description: `partially update ${word} of the specified ${r.kind}`, operationId: `patch${gv}${ns}${r.kind}${suffix}`,
        schema, gvk: subGvk, body: `${META}Patch`, patchTypes, codes: [['200', 'OK'], ['201', 'Created']],
      }, tagName);
      paths[`${item}/${name}`] = s;
    };
    if (r.subresources?.status) sub('status', r.schemaName, gvk, 'status');
    if (r.subresources?.scale) {
      roots.add(SCALE);
      sub('scale', SCALE, { group: 'autoscaling', kind: 'Scale', version: 'v1' }, 'scale');
    }

    if (r.namespaced && has('list')) {
      paths[`${prefix}/${r.resource}`] = {
        get: operation({
          action: 'list', description: `list or watch objects of kind ${r.kind}`, operationId: `list${gv}${r.kind}ForAllNamespaces`,
          schema: list, gvk, codes: [['200', 'OK']], responseTypes: ['application/json', 'application/json;stream=watch', 'application/yaml'],
        }, tagName),
        parameters: pathParameters(r.kind, false, false),
      };
    }

    // The deprecated /watch/ paths kube-apiserver still serves and documents.
    if (has('watch')) {
      roots.add(watchEventSchema(defs, extra));
      const watchPath = (path: string, action: 'watch' | 'watchlist', operationId: string, named: boolean, namespaced: boolean) => {
        const description = action === 'watch'
          ? `watch one object of kind ${r.kind} (deprecated: list with watch=true and a metadata.name field selector)`
          : `watch the objects of kind ${r.kind} (deprecated: list with watch=true)`;
        paths[path] = {
          get: operation({
            action, description, operationId, schema: `${META}WatchEvent`, gvk, codes: [['200', 'OK']],
            responseTypes: ['application/json', 'application/json;stream=watch', 'application/yaml'], parametersOf: 'list',
          }, tagName),
          parameters: pathParameters(r.kind, named, namespaced),
        };
      };
      const watchPrefix = group === '' ? `/api/${version}/watch` : `/apis/${group}/${version}/watch`;
      const watchCollection = r.namespaced ? `${watchPrefix}/namespaces/{namespace}/${r.resource}` : `${watchPrefix}/${r.resource}`;
      watchPath(watchCollection, 'watchlist', `watch${gv}${ns}${r.kind}List`, false, r.namespaced);
      watchPath(`${watchCollection}/{name}`, 'watch', `watch${gv}${ns}${r.kind}`, true, r.namespaced);
      if (r.namespaced) watchPath(`${watchPrefix}/${r.resource}`, 'watchlist', `watch${gv}${r.kind}ListForAllNamespaces`, false, false);
    }
  }

  const all: SchemaDefinitions = { ...defs, ...extra };
  const reached = new Set<string>();
  for (const root of roots) {
    if (!all[root]) continue;
    reached.add(root);
    collectRefs(all[root], all, reached);
  }
  const schemas: Record<string, SchemaObject> = {};
  for (const name of [...reached].sort()) schemas[name] = all[name]!;
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'unversioned' },
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    components: {
      schemas,
      securitySchemes: { BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
    },
    security: [{ BearerToken: [] }],
  };
}

function article(kind: string): string {
  return /^[AEIOU]/.test(kind) ? 'an' : 'a';
}
