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
    if (typeof s.$ref === 'string' && !definitions[s.$ref.replace('#/components/schemas/', '')]) missing.push(s.$ref);
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
  assert.equal(prop('io.k8s.api.core.v1.Service', 'spec.ports.targetPort').format, 'int-or-string');
  assert.equal(prop('io.k8s.api.apps.v1.Deployment', 'spec.strategy.rollingUpdate.maxSurge').format, 'int-or-string');
  assert.deepEqual(prop('io.k8s.api.core.v1.Pod', 'spec.containers.resources.limits').additionalProperties, {
    $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity',
  });
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'spec.containers.lifecycle.preStop.sleep.seconds').format, 'int64');
  assert.equal((prop('io.k8s.api.core.v1.Secret', 'data').additionalProperties as SchemaObject).format, 'byte');
});

test('v3-only facts: enums, defaults, and the defaults of list items and map values', () => {
  assert.deepEqual(prop('io.k8s.api.core.v1.Pod', 'spec.containers.imagePullPolicy').enum, ['Always', 'IfNotPresent', 'Never']);
  const protocol = prop('io.k8s.api.core.v1.Service', 'spec.ports.protocol');
  assert.equal(protocol.default, 'TCP');
  assert.deepEqual(protocol.enum, ['SCTP', 'TCP', 'UDP']);
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'spec.containers.ports.containerPort').default, 0);
  assert.deepEqual(prop('io.k8s.api.apps.v1.Deployment', 'spec').default, {});
  const podSpec = definitions['io.k8s.api.core.v1.Pod']!.properties!.spec!;
  assert.deepEqual(podSpec.allOf, [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }]);
  assert.deepEqual(podSpec.default, {});
  assert.equal(podSpec.$ref, undefined);
  assert.deepEqual(prop('io.k8s.api.core.v1.Pod', 'spec.containers').items, { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }], default: {} });
  assert.deepEqual(prop('io.k8s.api.core.v1.Pod', 'spec.containers.args').items, { default: '', type: 'string' });
  assert.deepEqual(prop('io.k8s.api.core.v1.Pod', 'metadata.labels').additionalProperties, { default: '', type: 'string' });
  const accessModes = prop('io.k8s.api.core.v1.Pod', 'spec.volumes.ephemeral.volumeClaimTemplate.spec.accessModes');
  assert.deepEqual((accessModes.items as SchemaObject).enum, ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']);
});

test('1.32 facts kplane once had wrong: list types, required lists, 1.33-only fields', () => {
  const hostIPs = prop('io.k8s.api.core.v1.Pod', 'status.hostIPs');
  assert.equal(hostIPs['x-kubernetes-list-type'], 'atomic');
  assert.equal(hostIPs['x-kubernetes-patch-merge-key'], 'ip');
  assert.equal(hostIPs['x-kubernetes-patch-strategy'], 'merge');
  assert.equal(hostIPs['x-kubernetes-list-map-keys'], undefined);
  assert.equal(prop('io.k8s.api.core.v1.Pod', 'status.podIPs')['x-kubernetes-list-type'], 'map');
  assert.equal(prop('io.k8s.api.core.v1.Event', 'metadata').type, 'object');
  assert.equal(definitions['io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails']!.properties!.causes!['x-kubernetes-list-type'], 'atomic');
  // Kubernetes marks the Status details struct itself atomic.
  assert.deepEqual(definitions['io.k8s.apimachinery.pkg.apis.meta.v1.Status']!.properties!.details, {
    allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails' }],
    description: 'Extended data about the failure.',
    'x-kubernetes-list-type': 'atomic',
  });
  const required = (name: string) => [...(definitions[`io.k8s.api.core.v1.${name}`]!.required ?? [])].sort();
  assert.deepEqual(required('Volume'), ['name']);
  assert.deepEqual(required('PodResourceClaim'), ['name']);
  assert.deepEqual(required('TopologySpreadConstraint'), ['maxSkew', 'topologyKey', 'whenUnsatisfiable']);
  assert.deepEqual(required('NodeSystemInfo'), [
    'architecture', 'bootID', 'containerRuntimeVersion', 'kernelVersion', 'kubeProxyVersion', 'kubeletVersion', 'machineID', 'operatingSystem', 'osImage', 'systemUUID',
  ]);
  assert.equal(definitions['io.k8s.api.core.v1.Lifecycle']!.properties!.stopSignal, undefined);
  assert.equal(definitions['io.k8s.api.apps.v1.DeploymentStatus']!.properties!.terminatingReplicas, undefined);
  assert.equal(definitions['io.k8s.api.apps.v1.ReplicaSetStatus']!.properties!.terminatingReplicas, undefined);
});

test('objects kplane once left open are typed, and no built-in schema keeps unknown fields', () => {
  const typed: [string, string, string][] = [
    ['io.k8s.api.core.v1.Pod', 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.matchExpressions.operator', 'string'],
    ['io.k8s.api.core.v1.Pod', 'spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution.weight', 'integer'],
    ['io.k8s.api.core.v1.Pod', 'spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution.topologyKey', 'string'],
    ['io.k8s.api.core.v1.Pod', 'spec.os.name', 'string'],
    ['io.k8s.api.core.v1.Pod', 'spec.containers.securityContext.capabilities.add', 'array'],
    ['io.k8s.api.core.v1.Pod', 'spec.volumes.projected.sources', 'array'],
    ['io.k8s.api.core.v1.Pod', 'status.containerStatuses.state.terminated.exitCode', 'integer'],
    ['io.k8s.api.core.v1.Service', 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', 'integer'],
    ['io.k8s.api.core.v1.Node', 'spec.configSource.configMap.kubeletConfigKey', 'string'],
    ['io.k8s.api.core.v1.Node', 'status.daemonEndpoints.kubeletEndpoint.Port', 'integer'],
    ['io.k8s.api.networking.v1.Ingress', 'spec.defaultBackend.resource.kind', 'string'],
    ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition', 'spec.conversion.strategy', 'string'],
    ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition', 'spec.versions.schema.openAPIV3Schema.x-kubernetes-validations', 'array'],
  ];
  for (const [kind, path, type] of typed) assert.equal(prop(kind, path).type, type, `${kind} ${path}`);
  assert.equal(prop('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition', 'spec.versions.subresources.status').type, 'object');
  const open: string[] = [];
  for (const [name, schema] of Object.entries(definitions)) {
    walk(schema, (s) => {
      if (s['x-kubernetes-preserve-unknown-fields'] === true) open.push(name);
    });
  }
  assert.deepEqual(open, []);
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
