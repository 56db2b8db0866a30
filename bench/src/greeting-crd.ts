/**
 * The Greeting CustomResourceDefinition used by the custom-resource benchmark: a namespaced
 * resource with a structural schema, defaults, a pattern, bounds and three CEL rules (two on
 * create, one transition rule), a status and a scale subresource and printer columns.
 */

/** Group of the Greeting resource. */
export const GREETING_GROUP = 'demo.example.com';
/** Name of the Greeting CRD (`<plural>.<group>`). */
export const GREETING_CRD_NAME = `greetings.${GREETING_GROUP}`;

/** The Greeting CRD (apiextensions.k8s.io/v1). */
export function greetingCrd(): object {
  const conditions = {
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
  };
  const spec = {
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
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: GREETING_CRD_NAME },
    spec: {
      group: GREETING_GROUP,
      scope: 'Namespaced',
      names: { kind: 'Greeting', listKind: 'GreetingList', plural: 'greetings', singular: 'greeting', shortNames: ['gr'], categories: ['demo'] },
      versions: [
        {
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
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: ['spec'],
              properties: {
                spec,
                status: {
                  type: 'object',
                  properties: {
                    readyReplicas: { type: 'integer' },
                    selector: { type: 'string' },
                    url: { type: 'string' },
                    observedGeneration: { type: 'integer', format: 'int64' },
                    conditions,
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

/**
 * A valid Greeting with a host, so that both CEL rules of `spec` are evaluated on create, and
 * `replicas` left out, so that the default is applied.
 */
export function greeting(name: string, namespace: string): object {
  return {
    apiVersion: `${GREETING_GROUP}/v1`,
    kind: 'Greeting',
    metadata: { name, namespace, labels: { app: 'bench', tier: 'backend' } },
    spec: {
      version: '1.4.2',
      message: 'hello from the kplane benchmark: a greeting of a typical length, with a few words more to make it so',
      host: `${name}.apps.example.com`,
    },
  };
}
