import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveSchema, type SchemaObject } from '@kplane/api';
import { builtinKinds } from './index.js';

const { resources, definitions } = builtinKinds();

function walk(s: unknown, visit: (s: SchemaObject) => void): void {
  if (Array.isArray(s)) return s.forEach((x) => walk(x, visit));
  if (s === null || typeof s !== 'object') return;
  visit(s as SchemaObject);
  for (const [k, v] of Object.entries(s)) if (k !== 'x-kubernetes-group-version-kind' && k !== 'enum' && k !== 'default') walk(v, visit);
}

/** Follows a dotted property path through refs, arrays and maps. */
function prop(schemaName: string, path: string): SchemaObject {
  let s: SchemaObject | undefined = resolveSchema({ $ref: `#/components/schemas/${schemaName}` }, definitions);
  for (const part of path.split('.')) {
    while (s?.items) s = resolveSchema(s.items, definitions);
    const next: SchemaObject | undefined = s?.properties?.[part];
    assert.ok(next, `${schemaName}: no property ${part} in ${path}`);
    s = resolveSchema(next, definitions);
  }
  return s!;
}

test('every $ref resolves', () => {
  const missing: string[] = [];
  walk(definitions, (s) => {
    if (s.$ref && !definitions[s.$ref.replace('#/components/schemas/', '')]) missing.push(s.$ref);
  });
  assert.deepEqual(missing, []);
});

test('every kind and its List carry their group/version/kind', () => {
  for (const r of resources) {
    const kind = definitions[r.schemaName];
    const list = definitions[`${r.schemaName}List`];
    assert.ok(kind, r.schemaName);
    assert.ok(list, `${r.schemaName}List`);
    assert.deepEqual(kind['x-kubernetes-group-version-kind'], [{ group: r.group, kind: r.kind, version: r.version }]);
    assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: r.group, kind: r.listKind, version: r.version }]);
    assert.ok(kind.description, `${r.schemaName} has a description`);
  }
});

test('strategic merge keys are where Kubernetes puts them', () => {
  const cases: [string, string, string | undefined, string][] = [
    ['io.k8s.api.core.v1.Pod', 'spec.containers', 'name', 'merge'],
    ['io.k8s.api.core.v1.Pod', 'spec.initContainers', 'name', 'merge'],
    ['io.k8s.api.core.v1.Pod', 'spec.ephemeralContainers', 'name', 'merge'],
    ['io.k8s.api.core.v1.Pod', 'spec.containers.env', 'name', 'merge'],
    ['io.k8s.api.core.v1.Pod', 'spec.containers.ports', 'containerPort', 'merge'],
    ['io.k8s.api.core.v1.Pod', 'spec.containers.volumeMounts', 'mountPath', 'merge'],
    ['io.k8s.api.core.v1.Pod', 'spec.volumes', 'name', 'merge,retainKeys'],
    ['io.k8s.api.core.v1.Pod', 'spec.imagePullSecrets', 'name', 'merge'],
    ['io.k8s.api.core.v1.Pod', 'spec.hostAliases', 'ip', 'merge'],
    ['io.k8s.api.core.v1.Pod', 'status.conditions', 'type', 'merge'],
    ['io.k8s.api.core.v1.Pod', 'metadata.ownerReferences', 'uid', 'merge'],
    ['io.k8s.api.core.v1.Service', 'spec.ports', 'port', 'merge'],
    ['io.k8s.api.apps.v1.Deployment', 'spec.template.spec.containers', 'name', 'merge'],
    ['io.k8s.api.apps.v1.Deployment', 'status.conditions', 'type', 'merge'],
    ['io.k8s.api.core.v1.Node', 'status.addresses', 'type', 'merge'],
    ['io.k8s.api.core.v1.Node', 'status.conditions', 'type', 'merge'],
  ];
  for (const [kind, path, key, strategy] of cases) {
    const s = prop(kind, path);
    assert.equal(s['x-kubernetes-patch-merge-key'], key, `${kind} ${path}`);
    assert.equal(s['x-kubernetes-patch-strategy'], strategy, `${kind} ${path}`);
  }
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'metadata.finalizers')['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'spec.tolerations')['x-kubernetes-list-type'], 'atomic');
  assert.equal(prop('io.k8s.api.apps.v1.Deployment', 'spec.strategy')['x-kubernetes-patch-strategy'], 'retainKeys');
});

test('types and formats of common fields', () => {
  assert.equal(prop('io.k8s.api.apps.v1.Deployment', 'spec.replicas').format, 'int32');
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'spec.terminationGracePeriodSeconds').format, 'int64');
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'metadata.creationTimestamp').format, 'date-time');
  assert.equal(prop('io.k8s.api.core.v1.Service', 'spec.ports.targetPort')['x-kubernetes-int-or-string'], true);
  assert.equal(prop('io.k8s.api.apps.v1.Deployment', 'spec.strategy.rollingUpdate.maxSurge')['x-kubernetes-int-or-string'], true);
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'spec.containers.lifecycle.preStop.sleep.seconds').format, 'int64');
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'spec.affinity')['x-kubernetes-preserve-unknown-fields'], true);
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'spec.volumes')['items'] !== undefined, true);
  assert.equal(resolveSchema(prop('io.k8s.api.core.v1.Pod', 'spec.volumes').items, definitions)?.['x-kubernetes-preserve-unknown-fields'], true);
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'spec.containers.resources.limits').additionalProperties !== undefined, true);
  assert.equal(
    resolveSchema(prop('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition', 'spec.versions.schema.openAPIV3Schema'), definitions)?.[
      'x-kubernetes-preserve-unknown-fields'
    ],
    true,
  );
});

test('resources are unique and well named', () => {
  const ids = resources.map((r) => `${r.group}/${r.version}/${r.resource}`);
  assert.equal(new Set(ids).size, ids.length);
  for (const r of resources) {
    assert.equal(r.singular, r.singular.toLowerCase());
    assert.ok(r.verbs.includes('get') && r.verbs.includes('list') && r.verbs.includes('watch'), r.resource);
    assert.ok(r.storagePrefix?.startsWith('/registry/'), r.resource);
    assert.ok(r.strategy.table, `${r.resource} has a table`);
    assert.equal(r.strategy.table!.columns.length, r.strategy.table!.row({ metadata: { name: 'x' } }, new Date()).length, `${r.resource} row width`);
  }
});
