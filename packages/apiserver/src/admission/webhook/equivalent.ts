/**
 * Equivalent resources (kube's EquivalentResourceMapper): the served group/version/resources
 * that are views of the same stored objects, e.g. autoscaling/v1 and autoscaling/v2
 * horizontalpodautoscalers, core/v1 and events.k8s.io/v1 events, every served version of a
 * custom resource. A webhook with `matchPolicy: Equivalent` whose rules name one of them is
 * called for a request through another, with the object converted to the version it names.
 */
import type { KubeObject } from '@kplane/api';
import type { Backend, KeyValue } from '@kplane/storage';
import type { ResourceType } from '../../registry/resource.js';

/** A group/version/resource. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** A served resource equivalent to another, with the kind its objects (or the subresource's) have there. */
export interface EquivalentResource extends GroupVersionResource {
  readonly kind: string;
}

/** What the webhook steps need to match and call webhooks across equivalent resources. */
export interface EquivalentResources {
  /** The served resources sharing `resource`'s storage (itself included) that serve `subresource`. */
  equivalents(resource: GroupVersionResource, subresource: string): readonly EquivalentResource[];
  /** Converts an object read or written through `from` into the object `to` serves. */
  convert(obj: KubeObject, from: GroupVersionResource, to: GroupVersionResource): Promise<KubeObject>;
}

/** The part of the registry the mapper reads: every served type, and a signal when they change. */
export interface ServedTypes {
  all(): readonly { readonly type: ResourceType }[];
  onChange(fn: () => void): unknown;
}

const gvrKey = (r: GroupVersionResource) => `${r.group}/${r.version}/${r.resource}`;

function servesSubresource(type: ResourceType, subresource: string): boolean {
  if (subresource === '') return true;
  const subs = type.subresources ?? {};
  if (subresource === 'status') return !!subs.status;
  // A scale body is an autoscaling/v1 Scale in every version: nothing to convert, and the scale
  // subresource does not pass the admission chain yet.
  if (subresource === 'scale') return false;
  return !!subs.extra?.includes(subresource);
}

/**
 * The object a type's storage view stores for `obj` (the type's conversion to the storage
 * version), or `obj` itself when the type stores its own version.
 */
async function toStorage(type: ResourceType, obj: KubeObject): Promise<KubeObject> {
  if (!type.storage) return obj;
  let stored: string | undefined;
  const sink: Partial<Backend> = {
    create: async (key: string, value: string): Promise<KeyValue> => {
      stored = value;
      return { key, value, createRevision: 0, modRevision: 0 };
    },
  };
  await type.storage(sink as Backend).create('/convert', JSON.stringify(obj));
  return JSON.parse(stored!) as KubeObject;
}

/** The object a type's storage view reads for a stored object (the conversion from the storage version). */
async function fromStorage(type: ResourceType, obj: KubeObject): Promise<KubeObject> {
  if (!type.storage) return obj;
  const value = JSON.stringify(obj);
  const source: Partial<Backend> = { get: async (key: string): Promise<KeyValue> => ({ key, value, createRevision: 0, modRevision: 0 }) };
  const kv = await type.storage(source as Backend).get('/convert');
  return JSON.parse(kv!.value) as KubeObject;
}

/**
 * The equivalent-resource mapper of a registry: resources are equivalent when they share a
 * storage prefix; objects are converted through each resource's own storage view (the same
 * conversion its reads and writes use: CRD conversion, the HPA and Event converters).
 */
export function equivalentResources(types: ServedTypes): EquivalentResources {
  let byPrefix: Map<string, ResourceType[]> | undefined;
  let byGvr: Map<string, ResourceType> | undefined;
  /** Answers of `equivalents`, by resource and subresource (asked on every write a rule does not match exactly). */
  const answers = new Map<string, readonly EquivalentResource[]>();
  let subscribed = false;
  const index = () => {
    if (byPrefix && byGvr) return { byPrefix, byGvr };
    if (!subscribed) {
      // Subscribed on first use: the registry may not exist yet when the mapper is made.
      subscribed = true;
      types.onChange(() => {
        byPrefix = undefined;
        byGvr = undefined;
        answers.clear();
      });
    }
    byPrefix = new Map();
    byGvr = new Map();
    for (const { type } of types.all()) {
      if (type.review || type.read) continue;
      byGvr.set(gvrKey(type), type);
      const prefix = type.storagePrefix ?? `/registry/${type.resource}`;
      const same = byPrefix.get(prefix);
      if (same) same.push(type);
      else byPrefix.set(prefix, [type]);
    }
    return { byPrefix, byGvr };
  };
  const typeOf = (r: GroupVersionResource): ResourceType => {
    const t = index().byGvr.get(gvrKey(r));
    if (!t) throw new Error(`unable to convert to ${r.group}/${r.version}, Resource=${r.resource}: not served`);
    return t;
  };
  return {
    equivalents(resource, subresource) {
      const { byPrefix, byGvr } = index();
      const key = `${gvrKey(resource)}/${subresource}`;
      let answer = answers.get(key);
      if (!answer) {
        const type = byGvr.get(gvrKey(resource));
        const same = type ? (byPrefix.get(type.storagePrefix ?? `/registry/${type.resource}`) ?? [type]) : [];
        answer = same.filter((t) => servesSubresource(t, subresource)).map((t) => ({ group: t.group, version: t.version, resource: t.resource, kind: t.kind }));
        answers.set(key, answer);
      }
      return answer;
    },
    async convert(obj, from, to) {
      if (gvrKey(from) === gvrKey(to)) return obj;
      return fromStorage(typeOf(to), await toStorage(typeOf(from), obj));
    },
  };
}
