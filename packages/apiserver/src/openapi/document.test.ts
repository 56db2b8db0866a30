import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { modelType, parseTypeRef } from '@kplane/api/model';
import { builtinKinds } from '../kinds/index.js';
import { buildOpenAPIV3Document } from './document.js';
import { openAPIV3Hash, openAPIV3PathKey, openAPIV3Root } from './root.js';

const { resources, definitions } = builtinKinds();
type Doc = { openapi: string; paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
const doc = (g: string, v: string) => buildOpenAPIV3Document(g, v, resources, definitions) as Doc;

function refs(x: unknown, out: string[] = []): string[] {
  if (Array.isArray(x)) x.forEach((y) => refs(y, out));
  else if (x && typeof x === 'object') {
    for (const [k, v] of Object.entries(x)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

test('core/v1 document: namespaced and cluster-scoped paths with actions and gvk', () => {
  const d = doc('', 'v1');
  assert.equal(d.openapi, '3.0.0');
  const col = d.paths['/api/v1/namespaces/{namespace}/configmaps']!;
  assert.equal(col.get['x-kubernetes-action'], 'list');
  assert.equal(col.post['x-kubernetes-action'], 'post');
  assert.equal(col.delete['x-kubernetes-action'], 'deletecollection');
  assert.deepEqual(col.post['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' });
  assert.equal(col.get.operationId, 'listCoreV1NamespacedConfigMap');
  const item = d.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']!;
  assert.deepEqual(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
  assert.equal(item.patch['x-kubernetes-action'], 'patch');
  assert.ok(item.patch.requestBody.content['application/strategic-merge-patch+json']);
  assert.deepEqual(item.parameters.map((p: any) => p.name), ['name', 'namespace', 'pretty']);
  assert.ok(d.paths['/api/v1/configmaps']!.get, 'list across namespaces');
  assert.ok(d.paths['/api/v1/namespaces/{namespace}/pods/{name}/status']!.patch);
  assert.ok(d.paths['/api/v1/nodes/{name}']!.get);
  assert.ok(d.paths['/api/v1/namespaces/{name}']!.put);
  assert.equal(d.paths['/api/v1/namespaces']!.delete, undefined, 'namespaces have no deletecollection');
  assert.equal(d.paths['/apis/apps/v1/namespaces/{namespace}/deployments'], undefined, 'other groups stay out');
});

test('create, update and patch document dryRun and fieldValidation (kubectl checks them)', () => {
  for (const [g, v] of [['', 'v1'], ['apps', 'v1'], ['rbac.authorization.k8s.io', 'v1']] as const) {
    const d = doc(g, v);
    for (const [path, item] of Object.entries(d.paths)) {
      for (const method of ['post', 'put', 'patch']) {
        const op = item[method];
        if (!op) continue;
        const names = op.parameters.map((p: any) => `${p.in}:${p.name}`);
        assert.ok(names.includes('query:dryRun'), `${method} ${path}`);
        assert.ok(names.includes('query:fieldValidation'), `${method} ${path}`);
        assert.ok(names.includes('query:fieldManager'), `${method} ${path}`);
      }
    }
  }
});

test('apps/v1 document: scale subresource and schemas', () => {
  const d = doc('apps', 'v1');
  const scale = d.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']!;
  assert.deepEqual(scale.get['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
  assert.equal(scale.put.requestBody.content['application/json'].schema.$ref, '#/components/schemas/io.k8s.api.autoscaling.v1.Scale');
  assert.equal(scale.get.operationId, 'readAppsV1NamespacedDeploymentScale');
  const schemas = d.components.schemas;
  for (const name of ['io.k8s.api.apps.v1.Deployment', 'io.k8s.api.apps.v1.DeploymentList', 'io.k8s.api.core.v1.PodSpec', 'io.k8s.api.autoscaling.v1.Scale', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status']) {
    assert.ok(schemas[name], name);
  }
  assert.equal(schemas['io.k8s.api.core.v1.Service'], undefined, 'unreached schemas are left out');
});

test('every reference in every document resolves inside it', () => {
  const gvs = new Set(resources.map((r) => `${r.group}|${r.version}`));
  for (const gv of gvs) {
    const [g, v] = gv.split('|') as [string, string];
    const d = doc(g, v);
    for (const ref of refs(d)) {
      const name = ref.replace('#/components/schemas/', '');
      assert.ok(d.components.schemas[name], `${gv}: ${ref}`);
    }
    // kubectl explain finds the kind through an operation's gvk and a schema with the same gvk.
    for (const r of resources.filter((x) => x.group === g && x.version === v)) {
      const s = d.components.schemas[r.schemaName];
      assert.deepEqual(s['x-kubernetes-group-version-kind'], [{ group: r.group, kind: r.kind, version: r.version }]);
    }
  }
});

test('the served documents carry every field and extension of the model', () => {
  const gvs = new Set(resources.map((r) => `${r.group}|${r.version}`));
  let checked = 0;
  for (const gv of gvs) {
    const [g, v] = gv.split('|') as [string, string];
    const schemas = doc(g, v).components.schemas;
    for (const [name, schema] of Object.entries(schemas)) {
      const model = modelType(name);
      assert.ok(model, `${gv}: ${name} is a type of the model`);
      const fields = model.type.fields ?? {};
      assert.deepEqual(Object.keys(schema.properties ?? {}).sort(), Object.keys(fields).sort(), name);
      assert.deepEqual([...(schema.required ?? [])].sort(), Object.keys(fields).filter((f) => fields[f]!.required).sort(), `${name} required`);
      assert.deepEqual(schema['x-kubernetes-group-version-kind'], model.type.gvk, `${name} gvk`);
      assert.equal(schema['x-kubernetes-map-type'], model.type.mapType, `${name} map type`);
      for (const [f, field] of Object.entries(fields)) {
        const p = schema.properties[f];
        const what = `${name}.${f}`;
        assert.equal(p['x-kubernetes-list-type'], field.listType, what);
        assert.deepEqual(p['x-kubernetes-list-map-keys'], field.listMapKeys, what);
        assert.equal(p['x-kubernetes-map-type'], field.mapType, what);
        assert.equal(p['x-kubernetes-patch-strategy'], field.patchStrategy, what);
        assert.equal(p['x-kubernetes-patch-merge-key'], field.patchMergeKey, what);
        assert.deepEqual(p.default, field.default, what);
        const parsed = parseTypeRef(field.type);
        if (parsed.kind === 'named') assert.equal(p.$ref ?? p.allOf[0].$ref, `#/components/schemas/${parsed.name}`, what);
        else assert.equal(p.type, parsed.kind === 'list' ? 'array' : parsed.kind === 'map' ? 'object' : p.type, what);
        checked++;
      }
    }
  }
  assert.ok(checked > 1000, `${checked} fields checked`);
});

test('a resource without a List schema gets one derived', () => {
  const custom = { ...resources[0]!, group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList', schemaName: 'com.example.v1.Widget' };
  const d = buildOpenAPIV3Document('example.com', 'v1', [custom], { ...definitions, 'com.example.v1.Widget': { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Widget', version: 'v1' }] } }) as Doc;
  const list = d.components.schemas['com.example.v1.WidgetList'];
  assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: 'example.com', kind: 'WidgetList', version: 'v1' }]);
  assert.equal(d.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}']!.patch.requestBody.content['application/strategic-merge-patch+json'], undefined);
});

test('root lists every group/version with the document hash', () => {
  const docs = new Map<string, object>([[openAPIV3PathKey('', 'v1'), doc('', 'v1')], [openAPIV3PathKey('apps', 'v1'), doc('apps', 'v1')]]);
  const root = openAPIV3Root(docs);
  assert.deepEqual(Object.keys(root.paths), ['api/v1', 'apis/apps/v1']);
  const expected = createHash('sha512').update(JSON.stringify(docs.get('apis/apps/v1'))).digest('hex').toUpperCase();
  assert.equal(root.paths['apis/apps/v1']!.serverRelativeURL, `/openapi/v3/apis/apps/v1?hash=${expected}`);
  assert.match(openAPIV3Hash({}), /^[0-9A-F]{128}$/);
});
