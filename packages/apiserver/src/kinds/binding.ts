/**
 * The core/v1 Binding body of pods/binding, type-checked like any other body: its metadata
 * (whose annotations are merged into the pod) and its target must have the types Kubernetes'
 * Binding has, or the request is 400 before anything is written.
 */
import { admitObject, type SchemaDefinitions } from '@kplane/api';
import { CORE, OBJECT_META, kindSchema, ref } from './schema-dsl.js';
import { metaDefinitions } from './schemas-meta.js';
import { podDefinitions } from './schemas-pod.js';

let definitions: SchemaDefinitions | undefined;

function bindingDefinitions(): SchemaDefinitions {
  definitions ??= {
    ...metaDefinitions(),
    [`${CORE}ObjectReference`]: podDefinitions()[`${CORE}ObjectReference`]!,
    [`${CORE}Binding`]: kindSchema('', 'v1', 'Binding', 'Ties one object to another, e.g. a pod to the node it is scheduled on.', {
      metadata: ref(OBJECT_META, 'Standard object metadata.'),
      target: ref(`${CORE}ObjectReference`, 'The object to bind to.'),
    }),
  };
  return definitions;
}

/**
 * Type-checks a Binding body in place (400 `Binding in version "v1" cannot be handled as a
 * Binding: ...` for a wrong JSON type; unknown fields are dropped, duplicates ignored).
 */
export function admitBinding(binding: Record<string, unknown>): void {
  admitObject(binding, { $ref: `#/components/schemas/${CORE}Binding` }, bindingDefinitions(), { kind: 'Binding', version: 'v1', fieldValidation: 'Ignore' });
}
