/**
 * Lookups over the model of the built-in API (see types.ts for its shape). Built once, on
 * first use.
 */
import { admissionregistrationV1alpha1 } from './gv/admissionregistration-v1alpha1.js';
import { PACKAGES } from './gv/index.js';
import type { ApiPackageModel, ScalarType, TypeModel, TypeRef } from './types.js';

export * from './types.js';

/** Every package of the model of the built-in API: the generated ones and the alpha types kplane serves (MutatingAdmissionPolicy). */
export const MODEL_PACKAGES: readonly ApiPackageModel[] = [...PACKAGES, admissionregistrationV1alpha1];

/** A parsed {@link TypeRef}. */
export type ParsedTypeRef =
  | { readonly kind: 'scalar'; readonly scalar: ScalarType }
  | { readonly kind: 'named'; readonly name: string }
  | { readonly kind: 'list'; readonly item: TypeRef }
  | { readonly kind: 'map'; readonly value: TypeRef };

const SCALARS = new Set<string>(['string', 'boolean', 'int32', 'int64', 'double', 'byte']);

/** Splits a TypeRef into its outer form. */
export function parseTypeRef(ref: TypeRef): ParsedTypeRef {
  if (ref.startsWith('[]')) return { kind: 'list', item: ref.slice(2) };
  if (ref.startsWith('map[string]')) return { kind: 'map', value: ref.slice('map[string]'.length) };
  if (SCALARS.has(ref)) return { kind: 'scalar', scalar: ref as ScalarType };
  return { kind: 'named', name: ref };
}

/** A named type with the package it belongs to. */
export interface ModelType {
  /** Full schema name, e.g. `io.k8s.api.apps.v1.Deployment`. */
  readonly name: string;
  /** Short name, e.g. `Deployment`. */
  readonly shortName: string;
  readonly type: TypeModel;
  readonly pkg: ApiPackageModel;
}

interface Index {
  readonly byName: Map<string, ModelType>;
  readonly byKind: Map<string, ModelType>;
}

const indexes = new WeakMap<readonly ApiPackageModel[], Index>();

function indexOf(packages: readonly ApiPackageModel[]): Index {
  let index = indexes.get(packages);
  if (!index) {
    const byName = new Map<string, ModelType>();
    const byKind = new Map<string, ModelType>();
    for (const pkg of packages) {
      for (const [shortName, type] of Object.entries(pkg.types)) {
        const entry: ModelType = { name: pkg.schemaPrefix + shortName, shortName, type, pkg };
        byName.set(entry.name, entry);
        for (const gvk of type.gvk ?? []) {
          byKind.set(kindKey(gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version, gvk.kind), entry);
        }
      }
    }
    index = { byName, byKind };
    indexes.set(packages, index);
  }
  return index;
}

function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}\u0000${kind}`;
}

/** Every named type of the given packages (the model's by default). */
export function modelTypes(packages: readonly ApiPackageModel[] = MODEL_PACKAGES): Iterable<ModelType> {
  return indexOf(packages).byName.values();
}

/** A named type by its full schema name. */
export function modelType(name: string, packages: readonly ApiPackageModel[] = MODEL_PACKAGES): ModelType | undefined {
  return indexOf(packages).byName.get(name);
}

/** The top-level type of a kind, by apiVersion (`v1`, `apps/v1`) and kind. */
export function modelKind(
  apiVersion: string,
  kind: string,
  packages: readonly ApiPackageModel[] = MODEL_PACKAGES,
): ModelType | undefined {
  return indexOf(packages).byKind.get(kindKey(apiVersion, kind));
}

export { openApiV3Builders, toOpenApiV3 } from './openapi.js';
export { DESCRIPTIONS, fieldDescription, typeDescription, type Descriptions, type TypeDescriptions } from './descriptions.js';
export * from './render-types.js';
