import type { KubeObject, SchemaDefinitions, StatusCause, UserInfo } from '@kplane/api';
import { ApiError, admitObject, apiVersionOf, badRequest, finalizerWarnings, invalid, notFound, resolveSchema, validateObjectMeta, validateObjectMetaUpdate } from '@kplane/api';
import type { ResourceType, WriteRequest } from './resource.js';
import type { WatchCache } from './watch-cache.js';
import type { AdmissionAttributes, AdmissionOperation } from '../admission/types.js';
import { dropEmptyMetadata } from './object-paths.js';
import { meta, valueText, type StoreDeps, type StoredKv, type WriteOptions } from './store-types.js';

/**
 * What every verb of a Store shares: the resource's storage keys, the stored form of its
 * objects, its schema, the checks of a request body and what the admission chain sees.
 */
export abstract class StoreCore {
  readonly prefix: string;
  readonly apiVersion: string;
  /** The resource's watch cache (made by Store). */
  abstract readonly cache: WatchCache;
  protected readonly filterFields: Record<string, (o: KubeObject) => string | undefined>;

  protected readonly deps: StoreDeps;

  constructor(
    readonly type: ResourceType,
    deps: StoreDeps,
  ) {
    this.deps = type.storage ? { ...deps, backend: type.storage(deps.backend) } : deps;
    const base = type.storagePrefix ?? `/registry/${type.resource}`;
    this.prefix = base.endsWith('/') ? base : base + '/';
    this.apiVersion = apiVersionOf(type.group, type.version);
    this.filterFields = {
      'metadata.name': (o) => o.metadata?.name,
      ...(type.namespaced ? { 'metadata.namespace': (o: KubeObject) => o.metadata?.namespace } : {}),
      ...(type.strategy.fieldSelectors ?? {}),
    };
  }

  /** The schema definitions the store checks bodies against. */
  get definitions(): SchemaDefinitions {
    return this.deps.definitions;
  }

  /** Is object `name` stored? */
  async exists(namespace: string | undefined, name: string): Promise<boolean> {
    return !!(await this.deps.backend.get(this.key(namespace, name)));
  }

  /** Storage key of one object. */
  key(namespace: string | undefined, name: string): string {
    return this.type.namespaced ? `${this.prefix}${namespace}/${name}` : `${this.prefix}${name}`;
  }

  protected listPrefix(namespace: string | undefined): string {
    return this.type.namespaced && namespace ? `${this.prefix}${namespace}/` : this.prefix;
  }

  /** Decodes a stored value and stamps its resourceVersion. */
  decode(value: string, revision: number): KubeObject {
    const obj = JSON.parse(value) as KubeObject;
    meta(obj).resourceVersion = String(revision);
    this.type.strategy.decode?.(obj);
    return obj;
  }

  protected fromKv(kv: StoredKv): KubeObject {
    return this.decode(valueText(kv), kv.modRevision);
  }

  /** Stored form: apiVersion, kind and metadata first (see withResourceVersion), no resourceVersion. */
  protected encode(obj: KubeObject): string {
    const { apiVersion, kind, metadata, ...rest } = obj;
    const { resourceVersion: _rv, ...m } = meta(obj);
    return JSON.stringify({ apiVersion, kind, metadata: m, ...rest });
  }

  /** Can stored JSON be served as it is (no read-time transform)? */
  protected get servesStoredJson(): boolean {
    return !this.type.strategy.decode && !this.type.customResource;
  }

  /** The 404 of object `name`. */
  notFound(name: string): ApiError {
    return notFound(this.type.group, this.type.resource, name);
  }

  private resolvedSchema?: ReturnType<typeof resolveSchema>;
  /** The kind's schema, resolved. */
  schema() {
    // A store lives as long as its kind's definition: a changed CRD registers a new store.
    this.resolvedSchema ??= resolveSchema({ $ref: `#/components/schemas/${this.type.schemaName}` }, this.deps.definitions);
    return this.resolvedSchema;
  }

  /** Checks apiVersion/kind of a body, prunes unknown fields per fieldValidation. */
  admitBody(obj: KubeObject, opts: WriteOptions, expectedKind = this.type.kind, expectedApiVersion = this.apiVersion): void {
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw badRequest('the body of the request must be a JSON object');
    if (obj.kind !== undefined && obj.kind !== expectedKind) {
      throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${expectedKind})`);
    }
    if (obj.apiVersion !== undefined && obj.apiVersion !== expectedApiVersion) {
      throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expectedApiVersion})`);
    }
    obj.kind = expectedKind;
    obj.apiVersion = expectedApiVersion;
    dropEmptyMetadata(obj);
    const schema = expectedKind === this.type.kind ? this.schema() : resolveSchema({ $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' }, this.deps.definitions);
    admitObject(obj, schema, this.deps.definitions, {
      kind: expectedKind,
      version: expectedApiVersion.split('/').pop()!,
      fieldValidation: opts.fieldValidation,
      warnings: opts.warnings,
      customResource: this.type.customResource && expectedKind === this.type.kind,
    });
  }

  protected validate(obj: KubeObject, old: KubeObject | undefined, warnings?: string[], req?: WriteRequest): void {
    const m = meta(obj);
    const nameValidator = this.type.strategy.nameValidator;
    const customResource = this.type.customResource;
    const causes: StatusCause[] = old
      ? [...validateObjectMeta(m, { namespaced: this.type.namespaced, isCreate: false, nameValidator, customResource }), ...validateObjectMetaUpdate(m, meta(old))]
      : validateObjectMeta(m, { namespaced: this.type.namespaced, isCreate: true, nameValidator, customResource });
    causes.push(...(this.type.strategy.validate?.(obj, old, warnings, req) ?? []));
    if (causes.length) throw invalid(this.type.group, this.type.kind, m.name ?? m.generateName ?? '', causes);
    // A valid custom resource: kube-apiserver warns about the finalizers it adds without a domain.
    if (customResource && warnings) warnings.push(...finalizerWarnings(m.finalizers, old ? meta(old).finalizers : undefined));
  }

  /**
   * Runs both admission phases for a write the store does not make through create, update or
   * delete: a subresource whose body is another kind (pods/binding, pods/eviction). `object` is
   * the request's body, of `kind`; the mutating steps may change it.
   */
  async admitSubresource(
    operation: AdmissionOperation,
    subresource: string,
    namespace: string | undefined,
    name: string,
    object: KubeObject,
    kind: { group: string; version: string; kind: string },
    opts: { dryRun?: boolean; user?: UserInfo } = {},
  ): Promise<void> {
    const chain = this.deps.admission;
    if (!chain) return;
    const { group, version, resource } = this.type;
    const attrs: AdmissionAttributes = {
      operation,
      kind,
      resource: { group, version, resource },
      subresource,
      namespace: this.type.namespaced ? (namespace ?? '') : '',
      name,
      object,
      dryRun: !!opts.dryRun,
      user: opts.user,
    };
    await chain.admit(attrs);
    await chain.validate(attrs);
  }

  /** The attributes the admission chain sees of a write of this resource. */
  protected admissionAttributes(
    operation: AdmissionOperation,
    subresource: string,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    opts: { dryRun?: boolean; user?: UserInfo; warnings?: string[]; audit?: (key: string, value: string) => void },
  ): AdmissionAttributes {
    const m = (object ?? oldObject)?.metadata ?? {};
    const { group, version, kind, resource } = this.type;
    return {
      operation,
      kind: { group, version, kind },
      resource: { group, version, resource },
      subresource,
      namespace: this.type.namespaced ? (m.namespace ?? '') : '',
      name: m.name ?? '',
      object,
      oldObject,
      dryRun: !!opts.dryRun,
      user: opts.user,
      warnings: opts.warnings,
      audit: opts.audit,
    };
  }
}
