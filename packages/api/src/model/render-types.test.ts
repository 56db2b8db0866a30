import { test } from 'node:test';
import assert from 'node:assert/strict';
import ts from 'typescript';
import { compareVersions, packageLabel, packagePrefix, renderTypes, typeNames, type RenderTypesOptions } from './render-types.js';
import type { ApiPackageModel } from './types.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const CORE = 'io.k8s.api.core.v1.';

/** A small model shaped like the real one: meta/v1, intstr, core/v1, apps/v1, events.k8s.io/v1, apiextensions. */
const meta: ApiPackageModel = {
  kubernetes: '1.32.0',
  schemaPrefix: META,
  protoPackage: 'k8s.io.apimachinery.pkg.apis.meta.v1',
  types: {
    Time: { special: 'time' },
    MicroTime: { special: 'micro-time' },
    ObjectMeta: {
      fields: {
        creationTimestamp: { type: META + 'Time', proto: 8 },
        labels: { type: 'map[string]string', proto: 11 },
        name: { type: 'string', proto: 1 },
      },
    },
    ListMeta: { fields: { resourceVersion: { type: 'string', proto: 2 } } },
    Status: {
      gvk: [{ group: '', version: 'v1', kind: 'Status' }],
      fields: {
        apiVersion: { type: 'string' },
        code: { type: 'int32', proto: 6 },
        kind: { type: 'string' },
        metadata: { type: META + 'ListMeta', proto: 1 },
      },
    },
    DeleteOptions: {
      gvk: [
        { group: 'apps', version: 'v1', kind: 'DeleteOptions' },
        { group: '', version: 'v1', kind: 'DeleteOptions' },
      ],
      fields: { apiVersion: { type: 'string' }, dryRun: { type: '[]string', proto: 5 }, kind: { type: 'string' } },
    },
  },
};

const intstr: ApiPackageModel = {
  kubernetes: '1.32.0',
  schemaPrefix: 'io.k8s.apimachinery.pkg.util.intstr.',
  protoPackage: 'k8s.io.apimachinery.pkg.util.intstr',
  types: { IntOrString: { special: 'int-or-string' } },
};

const core: ApiPackageModel = {
  kubernetes: '1.32.0',
  group: '',
  version: 'v1',
  schemaPrefix: CORE,
  protoPackage: 'k8s.io.api.core.v1',
  types: {
    Pod: {
      gvk: [{ group: '', version: 'v1', kind: 'Pod' }],
      fields: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: META + 'ObjectMeta', proto: 1, default: {} },
        spec: { type: CORE + 'PodSpec', proto: 2, default: {} },
      },
    },
    PodSpec: {
      fields: {
        containers: { type: '[]' + CORE + 'Container', proto: 2, required: true, patchStrategy: 'merge', patchMergeKey: 'name' },
        ipFamilies: { type: '[]string', proto: 3, items: { enum: ['IPv4', 'IPv6'] }, listType: 'atomic' },
        modes: { type: 'map[string][]string', proto: 9, items: { items: { enum: ['A', 'B'] } } },
        nodeSelector: { type: 'map[string]string', proto: 7, mapType: 'atomic' },
        restartPolicy: { type: 'string', proto: 3, enum: ['Always', 'Never', 'OnFailure'] },
        terminationGracePeriodSeconds: { type: 'int64', proto: 4, ptr: true },
      },
    },
    Container: {
      fields: {
        args: { type: '[]string', proto: 4 },
        image: { type: 'string', proto: 2 },
        name: { type: 'string', proto: 1, required: true },
        port: { type: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString', proto: 5 },
        ratio: { type: 'double', proto: 6 },
        stdin: { type: 'boolean', proto: 7 },
        weights: { type: 'map[string][]int32', proto: 8 },
      },
    },
    Event: {
      gvk: [{ group: '', version: 'v1', kind: 'Event' }],
      fields: {
        apiVersion: { type: 'string' },
        eventTime: { type: META + 'MicroTime', proto: 10 },
        kind: { type: 'string' },
        metadata: { type: META + 'ObjectMeta', proto: 1, required: true },
        series: { type: CORE + 'EventSeries', proto: 11 },
      },
    },
    EventSeries: { fields: { count: { type: 'int32', proto: 1 } } },
    Secret: {
      gvk: [{ group: '', version: 'v1', kind: 'Secret' }],
      fields: {
        data: { type: 'map[string]byte', proto: 2 },
        metadata: { type: META + 'ObjectMeta', proto: 1 },
      },
    },
    EmptyThing: {},
    VolumeSource: { protoOnly: true, fields: { hostPath: { type: 'string', proto: 1 } } },
  },
};

const eventsV1: ApiPackageModel = {
  kubernetes: '1.32.0',
  group: 'events.k8s.io',
  version: 'v1',
  schemaPrefix: 'io.k8s.api.events.v1.',
  protoPackage: 'k8s.io.api.events.v1',
  types: {
    Event: {
      gvk: [{ group: 'events.k8s.io', version: 'v1', kind: 'Event' }],
      fields: {
        eventTime: { type: META + 'MicroTime', proto: 2, required: true },
        metadata: { type: META + 'ObjectMeta', proto: 1 },
        series: { type: 'io.k8s.api.events.v1.EventSeries', proto: 3 },
      },
    },
    EventSeries: { fields: { count: { type: 'int32', proto: 1, required: true } } },
  },
};

const apiextensions: ApiPackageModel = {
  kubernetes: '1.32.0',
  group: 'apiextensions.k8s.io',
  version: 'v1',
  schemaPrefix: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.',
  protoPackage: 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1',
  types: {
    JSON: { special: 'json' },
    JSONSchemaProps: {
      fields: {
        $ref: { type: 'string', proto: 2 },
        additionalProperties: { type: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool', proto: 3 },
        default: { type: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON', proto: 4 },
        items: { type: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray', proto: 5 },
        'x-kubernetes-list-type': { type: 'string', proto: 6 },
      },
    },
    JSONSchemaPropsOrArray: { special: 'json-schema-props-or-array' },
    JSONSchemaPropsOrBool: { special: 'json-schema-props-or-bool' },
  },
};

const MODEL: readonly ApiPackageModel[] = [eventsV1, core, apiextensions, meta, intstr];

const OPTIONS: RenderTypesOptions = {
  header: ['Generated for a test; do not edit.'],
  imports: ["import type { KubeObject, ObjectMeta as BaseObjectMeta } from './base.js';"],
  kindBase: 'KubeObject',
  bases: { [META + 'ObjectMeta']: 'BaseObjectMeta' },
};

/** The declaration of one exported type in `text`, from its `export` line to its end. */
function declaration(text: string, name: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`export interface ${name} `) || l.startsWith(`export type ${name} =`));
  assert.ok(start >= 0, `${name} is not declared`);
  if (lines[start]!.startsWith('export type')) return lines[start]!;
  const end = lines.indexOf('}', start);
  return lines.slice(start, end + 1).join('\n');
}

test('one rule names colliding types: the core group keeps the short name, other packages get a prefix', () => {
  const names = typeNames(MODEL);
  assert.equal(names.get(CORE + 'Event'), 'Event');
  assert.equal(names.get('io.k8s.api.events.v1.Event'), 'EventsV1Event');
  assert.equal(names.get('io.k8s.api.events.v1.EventSeries'), 'EventsV1EventSeries');
  assert.equal(names.get(META + 'ObjectMeta'), 'ObjectMeta');
  // the order of the packages given does not matter
  assert.deepEqual([...typeNames([...MODEL].reverse())].sort(), [...names].sort());
});

test('the alias table overrides the rule, and a name given twice is an error', () => {
  const names = typeNames(MODEL, { 'io.k8s.api.events.v1.Event': 'NewEvent' });
  assert.equal(names.get('io.k8s.api.events.v1.Event'), 'NewEvent');
  assert.equal(names.get(CORE + 'Event'), 'Event');
  assert.throws(() => typeNames(MODEL, { 'io.k8s.api.events.v1.Event': 'Pod' }), /io\.k8s\.api\.core\.v1\.Pod and io\.k8s\.api\.events\.v1\.Event would both be named Pod/);
});

test('package labels, prefixes and version order', () => {
  assert.deepEqual(MODEL.map(packageLabel), ['events.k8s.io/v1', 'core/v1', 'apiextensions.k8s.io/v1', 'meta/v1', 'intstr']);
  assert.deepEqual(MODEL.map(packagePrefix), ['EventsV1', 'CoreV1', 'ApiextensionsV1', 'MetaV1', 'Intstr']);
  assert.deepEqual(['v1alpha1', 'v1beta1', 'v1', 'v2', 'v1beta2', 'v2beta1', 'x'].sort(compareVersions), ['v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v1alpha1', 'x']);
});

test('fields: required ones are not optional, scalars map to TypeScript, enums become unions', () => {
  const text = renderTypes(MODEL, OPTIONS);
  assert.equal(
    declaration(text, 'Container'),
    [
      'export interface Container {',
      '  args?: string[];',
      '  image?: string;',
      '  name: string;',
      '  port?: IntOrString;',
      '  ratio?: number;',
      '  stdin?: boolean;',
      '  weights?: Record<string, number[]>;',
      '}',
    ].join('\n'),
  );
  assert.equal(
    declaration(text, 'PodSpec'),
    [
      'export interface PodSpec {',
      '  containers: Container[];',
      "  ipFamilies?: ('IPv4' | 'IPv6')[];",
      "  modes?: Record<string, ('A' | 'B')[]>;",
      '  nodeSelector?: Record<string, string>;',
      "  restartPolicy?: 'Always' | 'Never' | 'OnFailure';",
      '  terminationGracePeriodSeconds?: number;',
      '}',
    ].join('\n'),
  );
  assert.match(declaration(text, 'Secret'), /\n {2}data\?: Record<string, string>;\n/);
  assert.equal(declaration(text, 'EmptyThing'), 'export type EmptyThing = Record<string, never>;');
  assert.doesNotMatch(text, /VolumeSource/, 'protobuf-only messages have no JSON form');
  assert.equal(declaration(text, 'EventsV1EventSeries'), 'export interface EventsV1EventSeries {\n  count: number;\n}');
});

test('kinds extend the base with literal apiVersion and kind; lists and multi-version types get unions', () => {
  const text = renderTypes(MODEL, OPTIONS);
  assert.equal(
    declaration(text, 'Pod'),
    [
      'export interface Pod extends KubeObject {',
      "  apiVersion?: 'v1';",
      "  kind?: 'Pod';",
      '  metadata?: ObjectMeta;',
      '  spec?: PodSpec;',
      '}',
    ].join('\n'),
  );
  // Status has a kind but ListMeta metadata: not an object, no base
  assert.match(declaration(text, 'Status'), /^export interface Status \{\n {2}apiVersion\?: 'v1';\n {2}code\?: number;\n {2}kind\?: 'Status';/);
  assert.match(declaration(text, 'DeleteOptions'), /apiVersion\?: 'apps\/v1' \| 'v1';\n {2}dryRun\?: string\[\];\n {2}kind\?: 'DeleteOptions';/);
  assert.match(declaration(text, 'ObjectMeta'), /^export interface ObjectMeta extends BaseObjectMeta \{\n {2}creationTimestamp\?: Time;/);
  assert.match(declaration(text, 'EventsV1Event'), /^export interface EventsV1Event extends KubeObject \{\n {2}eventTime: MicroTime;/);
  assert.match(declaration(text, 'Event'), /\n {2}metadata: ObjectMeta;\n {2}series\?: EventSeries;/);
});

test('long unions of literals are written one value a line', () => {
  const versions = ['v1', 'v1beta1', 'v1alpha1', 'v2', 'v2beta1', 'v2beta2', 'v3', 'v3alpha1'];
  const wide: ApiPackageModel = {
    ...meta,
    types: {
      WatchEvent: {
        gvk: versions.map((version) => ({ group: 'example.k8s.io', version, kind: 'WatchEvent' })),
        fields: { apiVersion: { type: 'string' }, kind: { type: 'string' }, type: { type: 'string', required: true, enum: ['ADDED', 'DELETED'] } },
      },
    },
  };
  const text = renderTypes([wide]);
  const expected = [
    'export interface WatchEvent {',
    '  apiVersion?:',
    ...[...versions].sort().map((v, i) => `    | 'example.k8s.io/${v}'${i === versions.length - 1 ? ';' : ''}`),
    "  kind?: 'WatchEvent';",
    "  type: 'ADDED' | 'DELETED';",
    '}',
  ];
  assert.equal(declaration(text, 'WatchEvent'), expected.join('\n'));
});

test('special types are aliases of their JSON forms; odd field names are quoted', () => {
  const text = renderTypes(MODEL, OPTIONS);
  assert.equal(declaration(text, 'Time'), 'export type Time = string;');
  assert.equal(declaration(text, 'IntOrString'), 'export type IntOrString = number | string;');
  assert.equal(declaration(text, 'JSON'), 'export type JSON = unknown;');
  assert.equal(declaration(text, 'JSONSchemaPropsOrArray'), 'export type JSONSchemaPropsOrArray = JSONSchemaProps | JSONSchemaProps[];');
  assert.equal(declaration(text, 'JSONSchemaPropsOrBool'), 'export type JSONSchemaPropsOrBool = JSONSchemaProps | boolean;');
  assert.match(declaration(text, 'JSONSchemaProps'), /\n {2}\$ref\?: string;\n[^]*\n {2}'x-kubernetes-list-type'\?: string;\n\}$/);
  const replaced = renderTypes(MODEL, { ...OPTIONS, replace: { [apiextensions.schemaPrefix + 'JSONSchemaProps']: 'SchemaObject' } });
  assert.equal(declaration(replaced, 'JSONSchemaProps'), 'export type JSONSchemaProps = SchemaObject;');
});

test('the output is the same whatever the order of packages and types, with header and imports first', () => {
  const text = renderTypes(MODEL, OPTIONS);
  const shuffled = MODEL.map((p) => ({ ...p, types: Object.fromEntries(Object.entries(p.types).reverse()) })).reverse();
  assert.equal(renderTypes(shuffled, OPTIONS), text);
  const lines = text.split('\n');
  assert.deepEqual(lines.slice(0, 3), ['// Generated for a test; do not edit.', '', OPTIONS.imports![0]]);
  // core/v1 first, then apimachinery, then the other groups
  const order = ['Container', 'Time', 'IntOrString', 'JSON', 'EventsV1Event'].map((n) => text.search(new RegExp(`^export (type|interface) ${n} `, 'm')));
  assert.ok(order.every((at) => at > 0), String(order));
  assert.deepEqual([...order].sort((a, b) => a - b), order);
  assert.match(text, /\/\*\* events\.k8s\.io\/v1 Event\. \*\/\nexport interface EventsV1Event /);
});

test('a reference to a type outside the model is an error naming both', () => {
  const broken: ApiPackageModel = { ...core, types: { Broken: { fields: { x: { type: CORE + 'Missing' } } } } };
  assert.throws(() => renderTypes([broken]), /io\.k8s\.api\.core\.v1\.Broken refers to io\.k8s\.api\.core\.v1\.Missing, which is not in the model/);
});

/** Type-checks `files` (name → text) with a minimal standard library; returns the error texts. */
function typeErrors(files: Record<string, string>): string[] {
  const lib = [
    'interface Array<T> { length: number; [n: number]: T }',
    'interface Boolean {} interface Function {} interface CallableFunction {} interface NewableFunction {}',
    'interface IArguments {} interface Number {} interface Object {} interface RegExp {} interface String {}',
    'type Record<K extends keyof any, T> = { [P in K]: T };',
  ].join('\n');
  const all: Record<string, string> = { '/lib.d.ts': lib, ...files };
  const options: ts.CompilerOptions = { noLib: true, types: [], strict: true, noEmit: true, module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const host = ts.createCompilerHost(options);
  host.getSourceFile = (name, version) => (all[name] === undefined ? undefined : ts.createSourceFile(name, all[name]!, version));
  host.fileExists = (name) => all[name] !== undefined;
  host.readFile = (name) => all[name];
  const program = ts.createProgram(Object.keys(all), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

test('the rendered text type-checks, and rejects a missing required field and a value outside an enum', () => {
  const base = [
    'export interface ObjectMeta { [extra: string]: unknown }',
    'export interface KubeObject { apiVersion?: string; kind?: string; metadata?: ObjectMeta; [field: string]: unknown }',
  ].join('\n');
  const good = "import type { Pod } from './types.js';\nexport const p: Pod = { apiVersion: 'v1', spec: { containers: [{ name: 'a', port: 80 }], restartPolicy: 'Never' } };\n";
  const text = renderTypes(MODEL, OPTIONS);
  assert.deepEqual(typeErrors({ '/base.ts': base, '/types.ts': text, '/good.ts': good }), []);
  const bad = [
    "import type { Pod, EventsV1Event } from './types.js';",
    "export const a: Pod = { spec: { containers: [{ image: 'x' }] } };",
    "export const b: Pod = { spec: { containers: [], restartPolicy: 'Sometimes' } };",
    "export const c: Pod = { apiVersion: 'apps/v1' };",
    'export const d: EventsV1Event = {};',
  ].join('\n');
  const errors = typeErrors({ '/base.ts': base, '/types.ts': text, '/bad.ts': bad });
  assert.equal(errors.length, 4, errors.join('\n'));
  assert.ok(errors.every((e) => e.startsWith('/bad.ts: ')), errors.join('\n'));
  for (const [i, needle] of ["'name' is missing", '"Sometimes"', '"apps/v1"', "'eventTime' is missing"].entries()) {
    assert.ok(errors[i]!.includes(needle), `${errors[i]} should mention ${needle}`);
  }
});
