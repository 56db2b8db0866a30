/**
 * The Greeting CustomResourceDefinition used by the custom-resource benchmark: a namespaced
 * resource with a structural schema, defaults, a pattern, bounds and three CEL rules (two on
 * create, one transition rule), a status and a scale subresource and printer columns.
 */

import { greetingCRD } from '@kplane/apiserver/testing';

/** Group of the Greeting resource. */
export const GREETING_GROUP = 'demo.example.com';
/** Name of the Greeting CRD (`<plural>.<group>`). */
export const GREETING_CRD_NAME = `greetings.${GREETING_GROUP}`;

/** The Greeting CRD (apiextensions.k8s.io/v1): the seed chapter's, shared with the API server's tests. */
export function greetingCrd(): object {
  return greetingCRD();
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
