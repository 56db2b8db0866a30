/** The seed chapter's Greeting CRD (and helpers) as test fixtures. */
import type { KubeObject } from '@kplane/api';

/** The Greeting CustomResourceDefinition of the CRD chapter. */
export function greetingCRD(): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'greetings.demo.example.com' },
    spec: {
      group: 'demo.example.com',
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
              },
            },
          },
        },
      ],
    },
  };
}

/** A Greeting in namespace demo. */
export function greeting(spec: Record<string, unknown>, name = 'hello'): KubeObject {
  return { apiVersion: 'demo.example.com/v1', kind: 'Greeting', metadata: { name, namespace: 'demo' }, spec };
}
