import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Greetings } from './kind.js';

/**
 * What the chapter's Greeting CRD specifies, field by field: names, scope, one served and
 * stored version, its subresources, columns, selectable field, and the schema of spec and
 * status with their defaults, bounds and CEL rules.
 */
const chapter = {
  name: 'greetings.demo.example.com',
  group: 'demo.example.com',
  scope: 'Namespaced',
  names: { kind: 'Greeting', listKind: 'GreetingList', plural: 'greetings', singular: 'greeting', shortNames: ['gr'], categories: ['demo'] },
  version: {
    name: 'v1',
    served: true,
    storage: true,
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.readyReplicas', labelSelectorPath: '.status.selector' } },
    additionalPrinterColumns: [
      { name: 'Version', type: 'string', jsonPath: '.spec.version' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
      { name: 'URL', type: 'string', jsonPath: '.status.url', priority: 1 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    selectableFields: [{ jsonPath: '.spec.version' }],
  },
  spec: {
    type: 'object',
    required: ['version'],
    properties: {
      version: { type: 'string', pattern: '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$', description: 'Tag of the ghcr.io/example/hello image' },
      message: { type: 'string', maxLength: 200, default: 'hello' },
      replicas: { type: 'integer', minimum: 1, maximum: 10, default: 2 },
      host: {
        type: 'string',
        maxLength: 253,
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'host cannot be changed, create a new Greeting' }],
      },
    },
    'x-kubernetes-validations': [
      { rule: "!has(self.host) || self.host.endsWith('.apps.example.com')", message: 'host must be in the apps.example.com zone', fieldPath: '.host' },
      {
        rule: '!has(self.host) || self.replicas >= 2',
        messageExpression: "'a public application needs at least 2 replicas, got %d'.format([self.replicas])",
        reason: 'FieldValueForbidden',
      },
    ],
  },
  status: {
    type: 'object',
    properties: {
      readyReplicas: { type: 'integer' },
      selector: { type: 'string' },
      url: { type: 'string' },
      observedGeneration: { type: 'integer', format: 'int64' },
      conditions: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
        items: {
          type: 'object',
          required: ['type', 'status'],
          properties: {
            type: { type: 'string' },
            status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
            reason: { type: 'string' },
            message: { type: 'string' },
            lastTransitionTime: { type: 'string', format: 'date-time' },
            observedGeneration: { type: 'integer', format: 'int64' },
          },
        },
      },
    },
  },
};

test('the CRD generated from the TypeScript schema is the chapter\'s', () => {
  const crd = Greetings.crd();
  assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
  assert.equal(crd.kind, 'CustomResourceDefinition');
  assert.equal(crd.metadata?.name, chapter.name);
  assert.equal(crd.spec.group, chapter.group);
  assert.equal(crd.spec.scope, chapter.scope);
  assert.deepEqual(crd.spec.names, chapter.names);
  assert.equal(crd.spec.versions.length, 1);
  const { schema, ...version } = crd.spec.versions[0]!;
  assert.deepEqual(version, chapter.version);
  const root = schema!.openAPIV3Schema!;
  assert.equal(root.type, 'object');
  assert.deepEqual(root.required, ['spec']);
  assert.deepEqual(Object.keys(root.properties!).sort(), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  assert.deepEqual(root.properties!.metadata, { type: 'object' });
  assert.deepEqual(root.properties!.spec, chapter.spec);
  assert.deepEqual(root.properties!.status, chapter.status);
});

test('the descriptor addresses greetings.demo.example.com/v1, namespaced', () => {
  assert.equal(Greetings.crdName, 'greetings.demo.example.com');
  assert.deepEqual([Greetings.group, Greetings.version, Greetings.resource, Greetings.kind, Greetings.namespaced], ['demo.example.com', 'v1', 'greetings', 'Greeting', true]);
});
