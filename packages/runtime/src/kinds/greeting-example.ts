/**
 * Test support (not exported from the package): the Greeting kind of the defineKind example,
 * demo.example.com/v1, declared with TypeBox.
 */
import { Type } from '@sinclair/typebox';
import { defineKind } from './custom.js';
import type { ObjectOf } from './descriptors.js';
import { KubeType } from './schema.js';

/** Schema of Greeting.spec. */
export const GreetingSpec = Type.Object(
  {
    version: Type.String({ pattern: '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$', description: 'Tag of the ghcr.io/example/hello image' }),
    message: Type.Optional(Type.String({ maxLength: 200, default: 'hello' })),
    replicas: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 2 })),
    host: Type.Optional(
      Type.String({
        maxLength: 253,
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'host cannot be changed, create a new Greeting' }],
      }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: "!has(self.host) || self.host.endsWith('.apps.example.com')",
        message: 'host must be in the apps.example.com zone',
        fieldPath: '.host',
      },
      {
        rule: '!has(self.host) || self.replicas >= 2',
        messageExpression: "'a public application needs at least 2 replicas, got %d'.format([self.replicas])",
        reason: 'FieldValueForbidden',
      },
    ],
  },
);

/** Schema of Greeting.status. */
export const GreetingStatus = Type.Object({
  readyReplicas: Type.Optional(Type.Integer()),
  selector: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  observedGeneration: Type.Optional(KubeType.Int64()),
  conditions: Type.Optional(
    KubeType.ListMap(
      Type.Object({
        type: Type.String(),
        status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
        reason: Type.Optional(Type.String()),
        message: Type.Optional(Type.String()),
        lastTransitionTime: Type.Optional(KubeType.Time()),
        observedGeneration: Type.Optional(KubeType.Int64()),
      }),
      ['type'],
    ),
  ),
});

/** The Greeting kind. */
export const GreetingKind = defineKind({
  group: 'demo.example.com',
  version: 'v1',
  kind: 'Greeting',
  plural: 'greetings',
  singular: 'greeting',
  shortNames: ['gr'],
  categories: ['demo'],
  scope: 'Namespaced',
  spec: GreetingSpec,
  status: GreetingStatus,
  subresources: {
    status: true,
    scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.readyReplicas', labelSelectorPath: '.status.selector' },
  },
  printerColumns: [
    { name: 'Version', type: 'string', jsonPath: '.spec.version' },
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
    { name: 'URL', type: 'string', jsonPath: '.status.url', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  selectableFields: ['.spec.version'],
});

/** A Greeting object: `apiVersion?: 'demo.example.com/v1'`, `kind?: 'Greeting'`, spec and status. */
export type Greeting = ObjectOf<typeof GreetingKind>;
