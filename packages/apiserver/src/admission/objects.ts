import type { KubeObject, SchemaDefinitions, SchemaObject } from '@kplane/api';

/** What admission steps read and write of the cluster (kube's plugins use informers and clients). */
export interface AdmissionObjects {
  /**
   * The objects of a resource, in one namespace ('' for cluster-scoped kinds or all namespaces):
   * from memory kept by a watch where the server follows the resource (ResourceQuotas,
   * LimitRanges, PriorityClasses, as kube's plugins read informers), else, or with `fresh`, from storage.
   */
  list(group: string, version: string, resource: string, namespace: string, options?: { fresh?: boolean }): Promise<KubeObject[]>;
  /** A conditional write of an object's status (its resourceVersion must be current: else a 409 ApiError). */
  updateStatus(group: string, version: string, resource: string, obj: KubeObject): Promise<KubeObject>;
  /** The served resource of a kind and whether it is namespaced (ValidatingAdmissionPolicy's paramKind). */
  kindResource?(group: string, version: string, kind: string): { resource: string; namespaced: boolean } | undefined;
  /** The schema of a served resource and the definitions it refers to (MutatingAdmissionPolicy's apply configurations). */
  schema?(group: string, version: string, resource: string): { schema: SchemaObject | undefined; definitions: SchemaDefinitions } | undefined;
  /** Applies a served resource's defaults to an object in place (after a MutatingAdmissionPolicy changed it). */
  defaults?(group: string, version: string, resource: string, obj: KubeObject): void;
  /** A namespace by name, from memory when it can (MutatingAdmissionPolicy's namespaceObject and namespaceSelector). */
  namespace?(name: string): Promise<KubeObject | undefined>;
  /** The MutatingAdmissionPolicies and their bindings as a watch keeps them (without it the step lists them per request). */
  mutatingPolicies?: { policies(): readonly KubeObject[]; bindings(): readonly KubeObject[] };
}
