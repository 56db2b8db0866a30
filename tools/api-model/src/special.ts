/**
 * The types with their own JSON and protobuf forms (see SpecialKind in the model's types).
 * Which Go types these are is a fact of kube-openapi and apimachinery; their protobuf fields
 * are read from generated.proto.
 */
import type { SpecialKind } from '@kplane/api/model';

/** Full schema name → kind of special type. */
export const SPECIAL_TYPES: ReadonlyMap<string, SpecialKind> = new Map<string, SpecialKind>([
  ['io.k8s.apimachinery.pkg.apis.meta.v1.Time', 'time'],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', 'micro-time'],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.Duration', 'duration'],
  ['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1', 'fields-v1'],
  ['io.k8s.apimachinery.pkg.api.resource.Quantity', 'quantity'],
  ['io.k8s.apimachinery.pkg.util.intstr.IntOrString', 'int-or-string'],
  ['io.k8s.apimachinery.pkg.runtime.RawExtension', 'raw-extension'],
  ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON', 'json'],
  ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray', 'json-schema-props-or-array'],
  ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool', 'json-schema-props-or-bool'],
  ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray', 'json-schema-props-or-string-array'],
]);
