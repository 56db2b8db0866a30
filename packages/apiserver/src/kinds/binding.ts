/**
 * The core/v1 Binding body of pods/binding, type-checked like any other body: its metadata
 * (whose annotations are merged into the pod) and its target must have the types Kubernetes'
 * Binding has, or the request is 400 before anything is written.
 */
import { admitObject, type SchemaDefinitions } from '@kplane/api';
import { builtinDefinitions } from './index.js';

let definitions: SchemaDefinitions | undefined;

/**
 * Type-checks a Binding body in place (400 `Binding in version "v1" cannot be handled as a
 * Binding: ...` for a wrong JSON type; unknown fields are dropped, duplicates ignored).
 */
export function admitBinding(binding: Record<string, unknown>): void {
  definitions ??= builtinDefinitions();
  admitObject(binding, { $ref: '#/components/schemas/io.k8s.api.core.v1.Binding' }, definitions, { kind: 'Binding', version: 'v1', fieldValidation: 'Ignore' });
}
