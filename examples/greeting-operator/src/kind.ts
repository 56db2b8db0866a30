/**
 * The Greeting kind, declared once in TypeScript: the TypeBox schemas below give the type of
 * the objects the operator reads and writes, and `Greetings.crd()` the CustomResourceDefinition
 * that makes the API server serve them (the chapter's CRD: CEL rules, defaults, printer
 * columns, categories, selectable fields, the status and scale subresources).
 */
import { Type } from '@sinclair/typebox';
import { KubeType, defineKind, type ObjectOf } from '@kplane/runtime';

/** The desired state: which image tag, which greeting, how many replicas, on which host. */
export const GreetingSpec = Type.Object(
  {
    version: Type.String({ pattern: '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$', description: 'Tag of the ghcr.io/example/hello image' }),
    message: Type.Optional(Type.String({ maxLength: 200, default: 'hello' })),
    replicas: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 2 })),
    host: Type.Optional(
      Type.String({
        maxLength: 253,
        // A transition rule: checked on updates only, it makes the host immutable once set.
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
        // format(), not concatenation: the cost estimator bounds it, and accepts the CRD.
        messageExpression: "'a public application needs at least 2 replicas, got %d'.format([self.replicas])",
        reason: 'FieldValueForbidden',
      },
    ],
  },
);

/** One entry of status.conditions (metav1.Condition's fields). */
export const GreetingCondition = Type.Object({
  type: Type.String(),
  status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')]),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  lastTransitionTime: Type.Optional(KubeType.Time()),
  observedGeneration: Type.Optional(KubeType.Int64()),
});

/** The observed state, written by the operator through /status. */
export const GreetingStatus = Type.Object({
  readyReplicas: Type.Optional(Type.Integer()),
  selector: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  observedGeneration: Type.Optional(KubeType.Int64()),
  conditions: Type.Optional(KubeType.ListMap(GreetingCondition, ['type'])),
});

/** The Greeting kind, demo.example.com/v1: its descriptor (for clients, informers, controllers) and its CRD. */
export const Greetings = defineKind({
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

/** A Greeting object. */
export type Greeting = ObjectOf<typeof Greetings>;
/** A Greeting's status. */
export type GreetingStatusFields = NonNullable<Greeting['status']>;
