/** apiextensions.k8s.io/v1 CustomResourceDefinition: enough to build one and read its status. */
import type { SchemaObject } from '@kplane/api';
import type { ConditionStatus, KubeObject, ObjectMeta, Time } from './meta.js';

/** A structural OpenAPI v3 schema with the x-kubernetes-* extensions (JSONSchemaProps). */
export type JSONSchemaProps = SchemaObject;

/** Names of a custom resource. */
export interface CustomResourceDefinitionNames {
  /** Lower-case plural used in URLs, e.g. "greetings". */
  plural: string;
  /** Defaults to the lower-cased kind. */
  singular?: string;
  shortNames?: string[];
  /** CamelCase kind, e.g. "Greeting". */
  kind: string;
  /** Defaults to `<kind>List`. */
  listKind?: string;
  /** e.g. "all". */
  categories?: string[];
}

/** An additional kubectl get column. */
export interface CustomResourceColumnDefinition {
  name: string;
  /** integer, number, string, boolean or date. */
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  format?: string;
  description?: string;
  /** Columns above 0 show only in -o wide. */
  priority?: number;
  /** A simple JSON path evaluated against each object, e.g. ".spec.replicas". */
  jsonPath: string;
}

/** Paths of the scale subresource. */
export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** Subresources of a custom resource. */
export interface CustomResourceSubresources {
  /** An empty object enables /status. */
  status?: Record<string, never>;
  scale?: CustomResourceSubresourceScale;
}

/** A field usable in field selectors. */
export interface SelectableField {
  jsonPath: string;
}

/** One version of a custom resource. */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  /** Exactly one version is the storage version. */
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: SelectableField[];
}

/** How versions are converted. */
export interface CustomResourceConversion {
  strategy: 'None' | 'Webhook';
  webhook?: { conversionReviewVersions: string[]; clientConfig?: Record<string, unknown> };
}

/** apiextensions.k8s.io/v1 CustomResourceDefinitionSpec. */
export interface CustomResourceDefinitionSpec {
  group: string;
  names: CustomResourceDefinitionNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

/** A CustomResourceDefinitionCondition: Established, NamesAccepted, Terminating… */
export interface CustomResourceDefinitionCondition {
  type: 'Established' | 'NamesAccepted' | 'NonStructuralSchema' | 'Terminating' | 'KubernetesAPIApprovalPolicyConformant' | (string & {});
  status: ConditionStatus;
  lastTransitionTime?: Time;
  reason?: string;
  message?: string;
}

/** apiextensions.k8s.io/v1 CustomResourceDefinitionStatus. */
export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

/** An apiextensions.k8s.io/v1 CustomResourceDefinition, named `<plural>.<group>`. */
export interface CustomResourceDefinition extends KubeObject {
  metadata?: ObjectMeta;
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}
