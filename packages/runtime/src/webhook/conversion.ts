/**
 * CRD conversion webhooks (apiextensions.k8s.io/v1 ConversionReview): every version converts to
 * and from one hub version, as controller-runtime's conversion.Hub / Convertible.
 */
import type { KubeObject } from '@kplane/api';

/** apiextensions.k8s.io/v1 ConversionReview. */
export interface ConversionReview {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'ConversionReview';
  request?: { uid: string; desiredAPIVersion: string; objects: KubeObject[] };
  response?: {
    uid: string;
    convertedObjects: KubeObject[];
    result: { status: 'Success' | 'Failure'; message?: string; metadata?: Record<string, never> };
  };
}

/** How one spoke version converts to the hub and back. Set `apiVersion` is done for you. */
export interface VersionConverter<Spoke extends KubeObject = KubeObject, Hub extends KubeObject = KubeObject> {
  toHub(obj: Spoke): Hub;
  fromHub(hub: Hub): Spoke;
}

/** A kind's conversions: its group and kind, the hub version, and a converter per other version. */
export interface KindConversion {
  group: string;
  kind: string;
  /** The version every conversion goes through (usually the storage version). */
  hub: string;
  /** Converters of the other versions, by version name. */
  spokes: Record<string, VersionConverter>;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/**
 * Converts one object to `desiredAPIVersion` through its kind's hub: spoke → hub → spoke.
 * Throws when the kind or a version is unknown, or the group would change.
 */
export function convertObject(obj: KubeObject, desiredAPIVersion: string, kinds: readonly KindConversion[]): KubeObject {
  const src = splitApiVersion(obj.apiVersion ?? '');
  const dst = splitApiVersion(desiredAPIVersion);
  if (src.group !== dst.group) throw new Error(`cannot convert from group "${src.group}" to group "${dst.group}"`);
  const conv = kinds.find((k) => k.group === src.group && k.kind === obj.kind);
  if (!conv) throw new Error(`no conversion registered for ${obj.kind}.${src.group}`);
  if (src.version === dst.version) return clone(obj);
  const spoke = (version: string): VersionConverter => {
    const c = conv.spokes[version];
    if (!c) throw new Error(`no converter for ${obj.kind} version "${version}" (hub "${conv.hub}")`);
    return c;
  };
  let hub = clone(obj);
  if (src.version !== conv.hub) hub = spoke(src.version).toHub(hub);
  hub.apiVersion = `${conv.group ? `${conv.group}/` : ''}${conv.hub}`;
  hub.kind = obj.kind;
  let out = hub;
  if (dst.version !== conv.hub) out = spoke(dst.version).fromHub(clone(hub));
  out.apiVersion = desiredAPIVersion;
  out.kind = obj.kind;
  return out;
}

/**
 * Answers a ConversionReview: every object converted to the desired version, or a Failure result
 * with the first error's message (and no objects).
 */
export function reviewConversion(body: unknown, kinds: readonly KindConversion[]): ConversionReview {
  const review = body as Partial<ConversionReview> | undefined;
  const request = review?.request;
  const failure = (uid: string, message: string): ConversionReview => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    response: { uid, convertedObjects: [], result: { status: 'Failure', message } },
  });
  if (!review || review.kind !== 'ConversionReview' || review.apiVersion !== 'apiextensions.k8s.io/v1') {
    return failure(request?.uid ?? '', 'the body is not an apiextensions.k8s.io/v1 ConversionReview');
  }
  if (!request || typeof request.uid !== 'string' || typeof request.desiredAPIVersion !== 'string' || !Array.isArray(request.objects)) {
    return failure(request?.uid ?? '', 'the ConversionReview has no request');
  }
  try {
    const convertedObjects = request.objects.map((o) => convertObject(o, request.desiredAPIVersion, kinds));
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: { uid: request.uid, convertedObjects, result: { status: 'Success', metadata: {} } },
    };
  } catch (err) {
    return failure(request.uid, err instanceof Error ? err.message : String(err));
  }
}
