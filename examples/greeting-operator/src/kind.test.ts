import { test } from 'node:test';
import assert from 'node:assert/strict';
import { greetingCRD } from '@kplane/apiserver/testing';
import { structuralSchemaErrors, type CustomResourceDefinition, type ObjectOf } from '@kplane/runtime';
import { Greetings, type Greeting } from './kind.js';

/**
 * The chapter's Greeting CRD as written by hand (names, scope, one served and stored version,
 * its subresources, columns, selectable field, and the schema of spec and status with their
 * defaults, bounds and CEL rules): the reference the TypeScript declaration must reproduce.
 */
const chapter = greetingCRD() as unknown as CustomResourceDefinition;

test('the CRD generated from the TypeScript schema is the chapter\'s, field by field', () => {
  const crd = Greetings.crd();
  assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
  assert.equal(crd.kind, 'CustomResourceDefinition');
  assert.equal(crd.metadata?.name, 'greetings.demo.example.com');
  assert.deepEqual(crd.metadata, chapter.metadata);
  assert.equal(crd.spec.group, chapter.spec.group);
  assert.equal(crd.spec.scope, chapter.spec.scope);
  assert.deepEqual(crd.spec.names, chapter.spec.names);
  assert.equal(crd.spec.versions.length, 1);
  const { schema, ...version } = crd.spec.versions[0]!;
  const { schema: chapterSchema, ...chapterVersion } = chapter.spec.versions[0]!;
  assert.deepEqual(version, chapterVersion);
  const root = schema!.openAPIV3Schema!;
  const want = chapterSchema!.openAPIV3Schema!;
  assert.equal(root.type, 'object');
  assert.deepEqual(root.required, ['spec']);
  const spec = root.properties!.spec!;
  const wantSpec = want.properties!.spec!;
  assert.deepEqual(spec.required, wantSpec.required);
  assert.deepEqual(spec['x-kubernetes-validations'], wantSpec['x-kubernetes-validations']);
  for (const field of Object.keys(wantSpec.properties!)) assert.deepEqual(spec.properties![field], wantSpec.properties![field], `spec.${field}`);
  assert.deepEqual(spec, wantSpec);
  assert.deepEqual(root.properties!.status, want.properties!.status);
  // What defineKind adds, as Kubernetes expects of every top-level schema.
  assert.deepEqual(Object.keys(root.properties!).sort(), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  assert.equal(root.properties!.apiVersion!.type, 'string');
  assert.equal(root.properties!.kind!.type, 'string');
  assert.deepEqual(root.properties!.metadata, { type: 'object' }, 'Kubernetes allows nothing else on metadata');
  // And nothing else differs: the whole CRD minus those three is the hand-written one.
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = root.properties!;
  assert.deepEqual({ ...crd, spec: { ...crd.spec, versions: [{ ...version, schema: { openAPIV3Schema: { ...root, properties: rest } } }] } }, chapter);
});

test('the generated schema is structural', () => {
  assert.deepEqual(structuralSchemaErrors(Greetings.schema()), []);
});

test('the descriptor addresses greetings.demo.example.com/v1, namespaced', () => {
  assert.equal(Greetings.crdName, 'greetings.demo.example.com');
  assert.deepEqual([Greetings.group, Greetings.version, Greetings.resource, Greetings.kind, Greetings.namespaced], ['demo.example.com', 'v1', 'greetings', 'Greeting', true]);
  assert.deepEqual({ ...Greetings.descriptor }, {
    group: 'demo.example.com', version: 'v1', resource: 'greetings', namespaced: true, kind: 'Greeting', apiVersion: 'demo.example.com/v1',
  });
});

test('Greeting type: spec fields are typed from the TypeBox schema', () => {
  const g: Greeting = {
    apiVersion: 'demo.example.com/v1',
    kind: 'Greeting',
    metadata: { name: 'hello', namespace: 'demo' },
    spec: { version: '1.0', message: 'hi', host: 'hello.apps.example.com' },
  };
  const viaDescriptor: ObjectOf<typeof Greetings> = g;
  const viaKind: ObjectOf<typeof Greetings.descriptor> = viaDescriptor;
  const replicas: number | undefined = viaKind.spec.replicas;
  const cond = g.status?.conditions?.[0];
  const status: 'True' | 'False' | 'Unknown' | undefined = cond?.status;
  assert.equal(replicas, undefined);
  assert.equal(status, undefined);
  if (false as boolean) {
    // @ts-expect-error spec.version is required
    const noVersion: Greeting = { spec: { message: 'x' } };
    // @ts-expect-error spec itself is required
    const noSpec: Greeting = { metadata: { name: 'x' } };
    // @ts-expect-error replicas is a number
    const badReplicas: Greeting = { spec: { version: '1', replicas: 'two' } };
    // @ts-expect-error unknown spec field
    const typo: Greeting = { spec: { version: '1', replica: 2 } };
    // @ts-expect-error condition status is a literal union
    g.status = { conditions: [{ type: 'Ready', status: 'Yes' }] };
    void [noVersion, noSpec, badReplicas, typo];
  }
});
