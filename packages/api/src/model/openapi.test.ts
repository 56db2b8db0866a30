import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Descriptions } from './descriptions.js';
import { toOpenApiV3 } from './openapi.js';
import type { ApiPackageModel } from './types.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const DEMO = 'io.k8s.api.demo.v1.';
const Q = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const IOS = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

const meta: ApiPackageModel = {
  kubernetes: '1.32.0',
  schemaPrefix: META,
  protoPackage: 'k8s.io.apimachinery.pkg.apis.meta.v1',
  types: {
    Time: { special: 'time' },
    MicroTime: { special: 'micro-time' },
    FieldsV1: { special: 'fields-v1' },
    ObjectMeta: { fields: { name: { type: 'string', proto: 1 } } },
    ListMeta: { fields: { continue: { type: 'string', proto: 3 } } },
    LabelSelector: { mapType: 'atomic', fields: { matchLabels: { type: 'map[string]string', proto: 1, items: { default: '' } } } },
  },
};
const apimachinery: ApiPackageModel[] = [
  { kubernetes: '1.32.0', schemaPrefix: 'io.k8s.apimachinery.pkg.api.resource.', protoPackage: 'k8s.io.apimachinery.pkg.api.resource', types: { Quantity: { special: 'quantity' } } },
  { kubernetes: '1.32.0', schemaPrefix: 'io.k8s.apimachinery.pkg.util.intstr.', protoPackage: 'k8s.io.apimachinery.pkg.util.intstr', types: { IntOrString: { special: 'int-or-string' } } },
  { kubernetes: '1.32.0', schemaPrefix: 'io.k8s.apimachinery.pkg.runtime.', protoPackage: 'k8s.io.apimachinery.pkg.runtime', types: { RawExtension: { special: 'raw-extension' } } },
];
const demo: ApiPackageModel = {
  kubernetes: '1.32.0',
  group: 'demo.k8s.io',
  version: 'v1',
  schemaPrefix: DEMO,
  protoPackage: 'k8s.io.api.demo.v1',
  types: {
    Widget: {
      gvk: [{ group: 'demo.k8s.io', version: 'v1', kind: 'Widget' }],
      fields: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: `${META}ObjectMeta`, proto: 1, default: {} },
        spec: { type: `${DEMO}WidgetSpec`, proto: 2, default: {} },
        status: { type: `${DEMO}WidgetStatus`, proto: 3 },
      },
    },
    WidgetList: {
      gvk: [{ group: 'demo.k8s.io', version: 'v1', kind: 'WidgetList' }],
      fields: {
        apiVersion: { type: 'string' },
        items: { type: `[]${DEMO}Widget`, proto: 2, required: true, items: { default: {} } },
        kind: { type: 'string' },
        metadata: { type: `${META}ListMeta`, proto: 1, default: {} },
      },
    },
    WidgetSpec: {
      fields: {
        blob: { type: 'byte', proto: 9 },
        data: { type: 'map[string]byte', proto: 8 },
        limits: { type: `map[string]${Q}`, proto: 7, items: { default: {} } },
        modes: { type: '[]string', proto: 13, items: { default: '', enum: ['ReadOnce', 'ReadWrite'] }, listType: 'atomic' },
        others: { type: `[]${DEMO}Part`, proto: 14 },
        parts: {
          type: `[]${DEMO}Part`, proto: 2, items: { default: {} }, listType: 'map', listMapKeys: ['name', 'protocol'], patchStrategy: 'merge', patchMergeKey: 'name',
        },
        policy: { type: 'string', proto: 3, default: 'Always', enum: ['Always', 'Never'] },
        port: { type: IOS, proto: 4, default: {} },
        replicas: { type: 'int32', proto: 1, ptr: true, required: true },
        selector: { type: `${META}LabelSelector`, proto: 5 },
        size: { type: 'int64', proto: 10, default: 0 },
        strategy: { type: `${DEMO}Strategy`, proto: 6, default: {}, patchStrategy: 'retainKeys' },
        tags: { type: '[]string', proto: 11, items: { default: '' }, listType: 'set' },
        weights: { type: 'map[string][]double', proto: 12, items: { items: { default: 0 } }, mapType: 'atomic' },
      },
    },
    WidgetStatus: { fields: { observedAt: { type: `${META}Time`, proto: 1 }, ready: { type: 'boolean', proto: 2, always: true, default: false } } },
    Part: { fields: { name: { type: 'string', proto: 1, required: true, default: '' }, protocol: { type: 'string', proto: 2 } } },
    PartSource: { protoOnly: true, fields: { path: { type: 'string', proto: 1 } } },
    Strategy: { unions: [{ discriminator: 'type', 'fields-to-discriminateBy': { rollingUpdate: 'RollingUpdate' } }], fields: {} },
  },
};
const PACKAGES = [meta, ...apimachinery, demo];
const DESCRIPTIONS: Descriptions = {
  [`${DEMO}Widget`]: { type: 'A widget.', fields: { spec: 'What the widget should be.' } },
  [`${DEMO}WidgetSpec`]: { fields: { port: 'The port.', replicas: 'How many.' } },
  [Q]: { type: 'An amount.' },
};

const defs = toOpenApiV3(PACKAGES, DESCRIPTIONS);
const props = (name: string) => defs[name]!.properties!;

test('special types have their v3 forms', () => {
  assert.deepEqual(defs[IOS], { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] });
  assert.deepEqual(defs[Q], { description: 'An amount.', oneOf: [{ type: 'string' }, { type: 'number' }] });
  assert.deepEqual(defs[`${META}Time`], { format: 'date-time', type: 'string' });
  assert.deepEqual(defs[`${META}MicroTime`], { format: 'date-time', type: 'string' });
  assert.deepEqual(defs[`${META}FieldsV1`], { type: 'object' });
  assert.deepEqual(defs['io.k8s.apimachinery.pkg.runtime.RawExtension'], { type: 'object' });
});

test('a $ref alone stays a $ref; with siblings it is wrapped in a one-element allOf', () => {
  assert.deepEqual(props(`${DEMO}WidgetSpec`).selector, { $ref: `#/components/schemas/${META}LabelSelector` });
  assert.deepEqual(props(`${DEMO}Widget`).status, { $ref: `#/components/schemas/${DEMO}WidgetStatus` });
  assert.deepEqual(props(`${DEMO}Widget`).spec, {
    allOf: [{ $ref: `#/components/schemas/${DEMO}WidgetSpec` }],
    default: {},
    description: 'What the widget should be.',
  });
  assert.deepEqual(props(`${DEMO}WidgetSpec`).port, { allOf: [{ $ref: `#/components/schemas/${IOS}` }], default: {}, description: 'The port.' });
  assert.deepEqual(props(`${DEMO}WidgetSpec`).strategy, {
    allOf: [{ $ref: `#/components/schemas/${DEMO}Strategy` }],
    default: {},
    'x-kubernetes-patch-strategy': 'retainKeys',
  });
  assert.deepEqual(props(`${DEMO}WidgetStatus`).observedAt, { $ref: `#/components/schemas/${META}Time` });
});

test('lists and maps: the model\'s defaults and enums of items and values, and the list/patch extensions', () => {
  assert.deepEqual(props(`${DEMO}WidgetSpec`).parts, {
    items: { allOf: [{ $ref: `#/components/schemas/${DEMO}Part` }], default: {} },
    type: 'array',
    'x-kubernetes-list-map-keys': ['name', 'protocol'],
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-patch-merge-key': 'name',
    'x-kubernetes-patch-strategy': 'merge',
  });
  assert.deepEqual(props(`${DEMO}WidgetSpec`).tags, { items: { default: '', type: 'string' }, type: 'array', 'x-kubernetes-list-type': 'set' });
  assert.deepEqual(props(`${DEMO}WidgetSpec`).limits, {
    additionalProperties: { allOf: [{ $ref: `#/components/schemas/${Q}` }], default: {} },
    type: 'object',
  });
  assert.deepEqual(props(`${DEMO}WidgetSpec`).data, { additionalProperties: { format: 'byte', type: 'string' }, type: 'object' });
  assert.deepEqual(props(`${DEMO}WidgetSpec`).weights, {
    additionalProperties: { items: { default: 0, format: 'double', type: 'number' }, type: 'array' },
    type: 'object',
    'x-kubernetes-map-type': 'atomic',
  });
  assert.deepEqual(props(`${META}LabelSelector`).matchLabels, { additionalProperties: { default: '', type: 'string' }, type: 'object' });
  assert.deepEqual(props(`${DEMO}WidgetSpec`).modes, {
    items: { default: '', enum: ['ReadOnce', 'ReadWrite'], type: 'string' },
    type: 'array',
    'x-kubernetes-list-type': 'atomic',
  });
  assert.deepEqual(props(`${DEMO}WidgetSpec`).others, { items: { $ref: `#/components/schemas/${DEMO}Part` }, type: 'array' }, 'no item facts: a bare $ref');
});

test('scalars: formats, defaults, enums', () => {
  const spec = props(`${DEMO}WidgetSpec`);
  assert.deepEqual(spec.replicas, { description: 'How many.', format: 'int32', type: 'integer' });
  assert.deepEqual(spec.size, { default: 0, format: 'int64', type: 'integer' });
  assert.deepEqual(spec.blob, { format: 'byte', type: 'string' });
  assert.deepEqual(spec.policy, { default: 'Always', enum: ['Always', 'Never'], type: 'string' });
  assert.deepEqual(props(`${DEMO}WidgetStatus`).ready, { default: false, type: 'boolean' });
});

test('types: required, map type, unions, kinds with their group/version/kind', () => {
  assert.deepEqual(defs[`${DEMO}WidgetSpec`]!.required, ['replicas']);
  assert.equal(defs[`${DEMO}WidgetStatus`]!.required, undefined);
  assert.equal(defs[`${META}LabelSelector`]!['x-kubernetes-map-type'], 'atomic');
  assert.deepEqual(defs[`${DEMO}Strategy`], {
    type: 'object',
    'x-kubernetes-unions': [{ discriminator: 'type', 'fields-to-discriminateBy': { rollingUpdate: 'RollingUpdate' } }],
  });
  assert.deepEqual(defs[`${DEMO}Widget`]!['x-kubernetes-group-version-kind'], [{ group: 'demo.k8s.io', kind: 'Widget', version: 'v1' }]);
  assert.equal(defs[`${DEMO}Widget`]!.type, 'object');
  assert.equal(defs[`${DEMO}Widget`]!.description, 'A widget.');
  assert.equal(defs[`${DEMO}WidgetSpec`]!.description, undefined, 'no description: none');
});

test('kinds and lists get the common descriptions of apiVersion, kind, metadata and items', () => {
  const widget = props(`${DEMO}Widget`);
  assert.match(widget.apiVersion!.description!, /versioned schema/);
  assert.match(widget.kind!.description!, /REST kind/);
  assert.match(widget.metadata!.description!, /Standard object metadata/);
  const list = defs[`${DEMO}WidgetList`]!;
  assert.equal(list.description, 'WidgetList is a list of Widget objects.');
  assert.equal(list.properties!.items!.description, 'The Widget objects.');
  assert.match(list.properties!.metadata!.description!, /Standard list metadata/);
  assert.deepEqual(list.required, ['items']);
  assert.equal(props(`${DEMO}Part`).name!.description, undefined, 'not a kind: no common descriptions');
});

test('keys are sorted as kube-apiserver writes them; every type is built but the protobuf-only ones', () => {
  assert.deepEqual(Object.keys(defs[`${DEMO}Widget`]!), ['description', 'properties', 'type', 'x-kubernetes-group-version-kind']);
  assert.deepEqual(Object.keys(props(`${DEMO}WidgetSpec`).parts!), [
    'items', 'type', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-patch-merge-key', 'x-kubernetes-patch-strategy',
  ]);
  const expected = PACKAGES.flatMap((p) => Object.keys(p.types).map((t) => p.schemaPrefix + t)).filter((n) => n !== `${DEMO}PartSource`).sort();
  assert.deepEqual(Object.keys(defs).sort(), expected);
  assert.equal(defs[`${DEMO}PartSource`], undefined);
});

test('each call builds new schemas, sharing no object with the model', () => {
  const again = toOpenApiV3(PACKAGES, DESCRIPTIONS);
  assert.deepEqual(again, defs);
  assert.notEqual(again[`${DEMO}Widget`], defs[`${DEMO}Widget`]);
  const spec = demo.types.Widget!.fields!.spec!;
  assert.notEqual(props(`${DEMO}Widget`).spec!.default, spec.default);
  assert.notEqual(defs[`${DEMO}Strategy`]!['x-kubernetes-unions'], demo.types.Strategy!.unions);
  assert.notEqual((defs[`${DEMO}Strategy`]!['x-kubernetes-unions'] as unknown[])[0], demo.types.Strategy!.unions![0]);
  assert.notEqual(props(`${DEMO}WidgetSpec`).parts!.items!.default, demo.types.WidgetSpec!.fields!.parts!.items!.default);
});
