import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SchemaDefinitions, SchemaObject } from '@kplane/api';
import { customResourceDefinitionSchema } from '../crd/resource-type.js';
import { builtinKinds } from '../kinds/index.js';
import type { ResourceType } from '../registry/resource.js';
import { buildOpenAPIV3Document } from './document.js';
import { buildSwaggerV2, parameterHash } from './swagger.js';
import { builtinSchemaV2, customResourceSchemaV2 } from './swagger-schema.js';

const { resources, definitions } = builtinKinds();
type Doc = { swagger: string; info: any; paths: Record<string, Record<string, any>>; definitions: Record<string, any>; parameters: Record<string, any>; securityDefinitions: any; security: any };

function swagger(rs: ResourceType[] = resources, defs: SchemaDefinitions = definitions): Doc {
  const gvs = [...new Set(rs.map((r) => `${r.group}|${r.version}`))].map((gv) => gv.split('|') as [string, string]);
  return buildSwaggerV2(gvs.map(([g, v]) => buildOpenAPIV3Document(g, v, rs, defs)), rs, { version: 'v1.32.0' }) as Doc;
}

const doc = swagger();

/** Every schema keyword (not property name) anywhere below a schema. */
function keywords(s: unknown, out = new Set<string>()): Set<string> {
  if (!s || typeof s !== 'object' || Array.isArray(s)) return out;
  for (const [k, v] of Object.entries(s)) {
    out.add(k);
    if (k === 'properties') for (const p of Object.values(v as object)) keywords(p, out);
    else if (k === 'items' || k === 'additionalProperties') keywords(v, out);
  }
  return out;
}

function refs(x: unknown, out: string[] = []): string[] {
  if (Array.isArray(x)) x.forEach((y) => refs(y, out));
  else if (x && typeof x === 'object') for (const [k, v] of Object.entries(x)) (k === '$ref' && typeof v === 'string' ? out.push(v) : refs(v, out));
  return out;
}

/**
 * The rules kubectl's OpenAPI v2 reader (kube-openapi's proto package) applies to every
 * definition: a reference points into #/definitions and has no type or properties beside it,
 * an array has type array and exactly one item schema, a schema has at most one type, and a
 * typed scalar is string, number, integer or boolean. One broken definition fails them all.
 */
function kubectlReadable(d: Doc): string[] {
  const errors: string[] = [];
  const check = (s: any, path: string): void => {
    if (!s || typeof s !== 'object') return;
    if (s.$ref !== undefined) {
      if (s.type !== undefined || (s.properties && Object.keys(s.properties).length)) errors.push(`${path}: type or properties beside $ref`);
      if (!String(s.$ref).startsWith('#/definitions/') || !d.definitions[String(s.$ref).slice('#/definitions/'.length)]) errors.push(`${path}: unknown model ${s.$ref}`);
      return;
    }
    if (Array.isArray(s.type)) return void errors.push(`${path}: several types`);
    if (s.type === 'array' || s.items !== undefined) {
      if (s.type !== 'array' || !s.items || Array.isArray(s.items)) errors.push(`${path}: array without one item schema`);
      else check(s.items, `${path}[]`);
      return;
    }
    if (s.type !== undefined && !['object', 'string', 'number', 'integer', 'boolean'].includes(s.type)) errors.push(`${path}: unknown type ${s.type}`);
    if (s.type === undefined && s.properties === undefined) return;
    if (s.properties) for (const [k, v] of Object.entries(s.properties)) check(v, `${path}.${k}`);
    else if (s.additionalProperties && typeof s.additionalProperties === 'object') check(s.additionalProperties, `${path}{}`);
  };
  for (const [name, def] of Object.entries(d.definitions)) check(def, name);
  return errors;
}

/** An operation's parameters with shared ones resolved, path-level ones included. */
function params(path: string, method: string): any[] {
  const item = doc.paths[path]!;
  const resolve = (p: any) => (p.$ref ? doc.parameters[p.$ref.replace('#/parameters/', '')] : p);
  return [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map(resolve);
}

test('a Swagger 2.0 document with info, security and only v2 references', () => {
  assert.equal(doc.swagger, '2.0');
  assert.deepEqual(doc.info, { title: 'Kubernetes', version: 'v1.32.0' });
  assert.deepEqual(doc.security, [{ BearerToken: [] }]);
  assert.equal(doc.securityDefinitions.BearerToken.type, 'apiKey');
  assert.ok(!JSON.stringify(doc).includes('#/components/'), 'no v3 reference left');
  for (const ref of refs(doc)) {
    const [, where, name] = /^#\/(definitions|parameters)\/(.+)$/.exec(ref) ?? [];
    assert.ok(where && (doc as any)[where][name!], `unresolved ${ref}`);
  }
});

test('every served kind has its definitions, with its group/version/kind, and its operations', () => {
  for (const r of resources) {
    const def = doc.definitions[r.schemaName];
    assert.deepEqual(def?.['x-kubernetes-group-version-kind'], [{ group: r.group, kind: r.kind, version: r.version }], r.schemaName);
    assert.deepEqual(doc.definitions[`${r.schemaName}List`]?.['x-kubernetes-group-version-kind'], [{ group: r.group, kind: r.listKind, version: r.version }]);
    const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
    const collection = r.namespaced ? `${base}/namespaces/{namespace}/${r.resource}` : `${base}/${r.resource}`;
    const expect: [string, string, string, boolean][] = [
      [collection, 'get', 'list', r.verbs.includes('list')],
      [collection, 'post', 'post', r.verbs.includes('create')],
      [collection, 'delete', 'deletecollection', r.verbs.includes('deletecollection')],
      [`${collection}/{name}`, 'get', 'get', r.verbs.includes('get')],
      [`${collection}/{name}`, 'put', 'put', r.verbs.includes('update')],
      [`${collection}/{name}`, 'patch', 'patch', r.verbs.includes('patch')],
      [`${collection}/{name}`, 'delete', 'delete', r.verbs.includes('delete')],
    ];
    for (const [path, method, action, served] of expect) {
      const op = doc.paths[path]?.[method];
      if (!served) {
        assert.equal(op, undefined, `${method} ${path}`);
        continue;
      }
      assert.equal(op?.['x-kubernetes-action'], action, `${method} ${path}`);
      assert.deepEqual(op['x-kubernetes-group-version-kind'], { group: r.group, kind: r.kind, version: r.version });
      assert.deepEqual(op.schemes, ['https']);
      assert.deepEqual(op.responses['401'], { description: 'Unauthorized' });
      assert.ok(op.produces.includes('application/json'));
      assert.match(op.operationId, /^[a-z]+[A-Z]\w+$/);
      if (method !== 'patch') assert.deepEqual(op.consumes, ['*/*']);
    }
  }
});

test('operations as kube-apiserver lists them: bodies, patch types, watch paths', () => {
  const item = '/apis/apps/v1/namespaces/{namespace}/deployments/{name}';
  const patch = doc.paths[item]!.patch;
  assert.deepEqual(patch.consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
  const body = params(item, 'patch').find((p) => p.in === 'body');
  assert.deepEqual(body, { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
  assert.deepEqual(patch.responses['200'].schema, { $ref: '#/definitions/io.k8s.api.apps.v1.Deployment' });
  const del = params(item, 'delete').find((p) => p.in === 'body');
  assert.equal(del.required, undefined, 'a DELETE body is optional');
  const post = params('/apis/apps/v1/namespaces/{namespace}/deployments', 'post').find((p) => p.in === 'body');
  assert.deepEqual(post.schema, { $ref: '#/definitions/io.k8s.api.apps.v1.Deployment' });
  const scale = doc.paths[`${item}/scale`]!;
  assert.deepEqual(scale.put['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
  const watch = doc.paths['/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}']!.get;
  assert.equal(watch['x-kubernetes-action'], 'watch');
  assert.equal(watch.operationId, 'watchAppsV1NamespacedDeployment');
  assert.deepEqual(watch.responses['200'].schema, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent' });
  assert.equal(doc.paths['/apis/apps/v1/watch/deployments']!.get['x-kubernetes-action'], 'watchlist');
  assert.equal(doc.paths['/api/v1/watch/namespaces']!.get.operationId, 'watchCoreV1NamespaceList');
  assert.deepEqual(doc.paths['/apis/apps/v1/deployments']!.get.produces, ['application/json', 'application/yaml', 'application/json;stream=watch']);
});

test('parameters: shared ones hoisted to the path, the rest shared under #/parameters as kube-openapi names them', () => {
  const collection = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments']!;
  const pathNames = collection.parameters.map((p: any) => doc.parameters[p.$ref.replace('#/parameters/', '')].name);
  assert.deepEqual(pathNames, ['namespace', 'pretty']);
  // A single-operation path carries all of its parameters.
  const watchNames = params('/apis/apps/v1/watch/deployments', 'get').map((p) => p.name);
  assert.deepEqual(doc.paths['/apis/apps/v1/watch/deployments']!.get.parameters, undefined);
  assert.ok(watchNames.includes('watch') && watchNames.includes('labelSelector'));
  // dryRun, fieldValidation and name stay inline (kubectl looks for them there).
  const post = collection.post.parameters;
  assert.ok(post.some((p: any) => p.name === 'dryRun' && p.in === 'query'));
  assert.ok(post.some((p: any) => p.name === 'fieldValidation' && p.in === 'query'));
  assert.ok(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']!.parameters.some((p: any) => p.name === 'name'));
  // kube-openapi's names: FNV-1 of the parameter's JSON (Go's key order).
  assert.equal(parameterHash(JSON.stringify({ name: 'body', in: 'body', schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions' } })), '2Y1dVQaQ');
  assert.equal(parameterHash(JSON.stringify({ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } })), '78PwaGsr');
  assert.ok(doc.parameters['body-2Y1dVQaQ'], 'the DeleteOptions body is shared under its kube-apiserver name');
  assert.ok(doc.parameters['body-78PwaGsr'], 'the Patch body is shared under its kube-apiserver name');
  for (const [name, p] of Object.entries(doc.parameters)) assert.equal(name, `${p.name}-${parameterHash(JSON.stringify(p))}`);
});

test('kubectl can read every definition', () => {
  assert.deepEqual(kubectlReadable(doc), []);
  assert.deepEqual(kubectlReadable({ ...doc, definitions: { A: { type: 'array' }, B: { $ref: '#/definitions/C', type: 'object' } } }), ['A: array without one item schema', 'B: type or properties beside $ref', 'B: unknown model #/definitions/C']);
});

test('built-in definitions carry no v3-only keyword', () => {
  const all = new Set<string>();
  for (const def of Object.values(doc.definitions)) keywords(def, all);
  for (const k of ['enum', 'default', 'nullable', 'allOf', 'oneOf', 'anyOf', 'not', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string']) assert.ok(!all.has(k), k);
  assert.deepEqual(Object.keys(doc.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).sort(), ['description', 'format', 'type']);
  assert.equal(doc.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].type, 'string');
  assert.equal(doc.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].format, 'int-or-string');
  assert.equal(doc.definitions['io.k8s.apimachinery.pkg.api.resource.Quantity'].type, 'string');
});

test('built-in schema conversion: plain $ref beside its siblings, v3 forms dropped', () => {
  const v3 = {
    type: 'object',
    properties: {
      strategy: { allOf: [{ $ref: '#/components/schemas/X' }], description: 'd', default: {}, 'x-kubernetes-patch-strategy': 'retainKeys' },
      mode: { type: 'string', enum: ['A', 'B'], default: 'A' },
      ports: { type: 'array', items: { allOf: [{ $ref: '#/components/schemas/P' }], default: {} }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port'] },
      size: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    },
  };
  assert.deepEqual(builtinSchemaV2(v3), {
    type: 'object',
    properties: {
      strategy: { $ref: '#/definitions/X', description: 'd', 'x-kubernetes-patch-strategy': 'retainKeys' },
      mode: { type: 'string' },
      ports: { type: 'array', items: { $ref: '#/definitions/P' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port'] },
      size: { type: 'string' },
    },
  });
});

test('custom resource schemas follow apiextensions-apiserver v2 conversion', () => {
  const def = customResourceDefinitionSchema('demo.example.com', 'v1', 'Widget', {
    type: 'object',
    description: 'A widget.',
    properties: {
      spec: {
        type: 'object',
        required: ['color', 'note'],
        properties: {
          color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
          note: { type: 'string', nullable: true },
          size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
          list: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
          child: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
          rule: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }], ...({ example: 'x' } as object) },
        },
      },
    },
  });
  const v2 = customResourceSchemaV2(def, ['spec.color']) as any;
  const spec = v2.properties.spec;
  assert.deepEqual(spec.required, ['color'], 'a nullable property leaves required');
  assert.deepEqual(spec.properties.color, { type: 'string', enum: ['red', 'blue'], default: 'red' }, 'enum and default stay');
  assert.deepEqual(spec.properties.note, { }, 'nullable: no type');
  assert.deepEqual(spec.properties.size, { 'x-kubernetes-int-or-string': true }, 'anyOf dropped');
  assert.deepEqual(spec.properties.extra, { 'x-kubernetes-preserve-unknown-fields': true }, 'preserved object: untyped, no properties');
  assert.deepEqual(spec.properties.list, { 'x-kubernetes-preserve-unknown-fields': true }, 'array without items: untyped');
  assert.deepEqual(Object.keys(spec.properties.child.properties).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.deepEqual(spec.properties.child.required, ['kind', 'apiVersion']);
  assert.deepEqual(spec.properties.rule, { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }] }, 'non-structural keywords dropped');
  assert.deepEqual(v2.properties.metadata, { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', description: def.properties!.metadata!.description });
  assert.deepEqual(v2['x-kubernetes-group-version-kind'], [{ group: 'demo.example.com', kind: 'Widget', version: 'v1' }]);
  assert.deepEqual(v2['x-kubernetes-selectable-fields'], [{ fieldPath: 'spec.color' }]);
  assert.equal(v2.description, 'A widget.');
  // A root that keeps unknown fields is a bare object.
  const open = customResourceSchemaV2(customResourceDefinitionSchema('demo.example.com', 'v1', 'Blob', undefined));
  assert.deepEqual(open, { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'demo.example.com', kind: 'Blob', version: 'v1' }] });
});

test('custom resources: their paths patch without strategic merge, their definitions are converted', () => {
  const widget: ResourceType = {
    ...resources.find((r) => r.kind === 'ConfigMap')!,
    group: 'demo.example.com', version: 'v1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', singular: 'widget',
    schemaName: 'com.example.demo.v1.Widget', customResource: true, subresources: { status: true },
    strategy: { fieldSelectors: { 'spec.color': () => undefined } },
  };
  const spec: SchemaObject = {
    type: 'object',
    properties: {
      note: { type: 'string', nullable: true },
      size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      list: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
      nullableList: { type: 'array', nullable: true, items: { type: 'string' } },
      child: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      any: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
  const defs = { ...definitions, [widget.schemaName]: customResourceDefinitionSchema('demo.example.com', 'v1', 'Widget', { type: 'object', properties: { spec } }) };
  const d = swagger([...resources, widget], defs);
  const item = d.paths['/apis/demo.example.com/v1/namespaces/{namespace}/widgets/{name}']!;
  assert.deepEqual(item.patch.consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  assert.ok(d.paths['/apis/demo.example.com/v1/namespaces/{namespace}/widgets/{name}/status']!.put);
  assert.deepEqual(d.definitions['com.example.demo.v1.Widget'].properties.spec.properties.note, {});
  assert.deepEqual(d.definitions['com.example.demo.v1.Widget']['x-kubernetes-selectable-fields'], [{ fieldPath: 'spec.color' }]);
  assert.deepEqual(d.definitions['com.example.demo.v1.WidgetList']['x-kubernetes-selectable-fields'], [{ fieldPath: 'spec.color' }]);
  assert.ok(d.paths['/api/v1/namespaces/{namespace}/configmaps'], 'built-in paths are there too');
  assert.deepEqual(kubectlReadable(d), []);
});

test('discovery and /version/ operations are listed when their definitions exist', () => {
  const rs = resources.filter((r) => (r.group === '' && r.kind === 'ConfigMap') || (r.group === 'rbac.authorization.k8s.io' && r.kind === 'Role'));
  const gvs = [['', 'v1'], ['rbac.authorization.k8s.io', 'v1']] as const;
  const docs = gvs.map(([g, v]) => buildOpenAPIV3Document(g, v, rs, definitions));
  const without = buildSwaggerV2(docs, rs, { version: 'v1.32.0', definitions: {} }) as Doc;
  assert.equal(without.paths['/api/'], undefined);
  const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
  const obj = (extra = {}) => ({ type: 'object' as const, ...extra });
  const defs: SchemaDefinitions = {
    ...definitions,
    [`${META}APIVersions`]: obj({ properties: { addresses: { type: 'array', items: { $ref: `#/components/schemas/${META}ServerAddressByClientCIDR` } } } }),
    [`${META}ServerAddressByClientCIDR`]: obj(),
    [`${META}APIGroupList`]: obj(),
    [`${META}APIGroup`]: obj(),
    [`${META}APIResourceList`]: obj(),
    'io.k8s.apimachinery.pkg.version.Info': obj(),
  };
  const d = buildSwaggerV2(docs, rs, { version: 'v1.32.0', definitions: defs }) as Doc;
  const ops = Object.fromEntries(['/api/', '/api/v1/', '/apis/', '/apis/rbac.authorization.k8s.io/', '/apis/rbac.authorization.k8s.io/v1/', '/version/'].map((p) => [p, d.paths[p]?.get]));
  assert.deepEqual(Object.values(ops).map((op) => op?.operationId), ['getCoreAPIVersions', 'getCoreV1APIResources', 'getAPIVersions', 'getRbacAuthorizationAPIGroup', 'getRbacAuthorizationV1APIResources', 'getCodeVersion']);
  assert.deepEqual(Object.values(ops).map((op) => op.tags[0]), ['core', 'core_v1', 'apis', 'rbacAuthorization', 'rbacAuthorization_v1', 'version']);
  assert.deepEqual(ops['/apis/rbac.authorization.k8s.io/v1/'].responses['200'].schema, { $ref: `#/definitions/${META}APIResourceList` });
  assert.equal(ops['/api/'].parameters, undefined);
  assert.ok(d.definitions[`${META}ServerAddressByClientCIDR`], 'what the discovery schemas reach is defined');
  for (const ref of refs(d)) assert.ok(d.definitions[ref.replace('#/definitions/', '')] || d.parameters[ref.replace('#/parameters/', '')], ref);
});

test('built-in definitions keep every property, required field and list/map/patch extension of the v3 schemas', () => {
  const KEPT = ['required', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-patch-strategy', 'x-kubernetes-patch-merge-key', 'x-kubernetes-unions', 'x-kubernetes-group-version-kind', 'format', 'description'];
  const compare = (v3: any, v2: any, path: string): void => {
    if (!v3 || typeof v3 !== 'object') return;
    const inner = v3.allOf?.length === 1 && v3.allOf[0].$ref ? { ...v3, ...v3.allOf[0] } : v3;
    for (const k of KEPT) if (inner[k] !== undefined) assert.deepEqual(v2[k], inner[k], `${path} ${k}`);
    if (inner.$ref) assert.equal(v2.$ref, inner.$ref.replace('#/components/schemas/', '#/definitions/'), path);
    if (inner.properties) {
      assert.deepEqual(Object.keys(v2.properties ?? {}), Object.keys(inner.properties), path);
      for (const [k, p] of Object.entries(inner.properties)) compare(p, v2.properties[k], `${path}.${k}`);
    }
    if (inner.items) compare(inner.items, v2.items, `${path}[]`);
    if (inner.additionalProperties && typeof inner.additionalProperties === 'object') compare(inner.additionalProperties, v2.additionalProperties, `${path}{}`);
  };
  for (const [name, v2] of Object.entries(doc.definitions)) if (definitions[name]) compare(definitions[name], v2, name);
});
