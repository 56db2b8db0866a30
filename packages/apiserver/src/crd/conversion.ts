/**
 * Version conversion of custom resources. Strategy None rewrites apiVersion; strategy Webhook
 * sends a ConversionReview (apiextensions.k8s.io v1 or v1beta1, the first of the CRD's
 * conversionReviewVersions that kube-apiserver speaks) to the webhook — its `url`, or its
 * `service` resolved through the Service's EndpointSlices, as admission webhooks are — and
 * checks the answer as kube-apiserver does. A converting backend view makes each served version
 * read and write the storage version's objects in its own apiVersion.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject, StatusCause } from '@kplane/api';
import { ApiError, validateAnnotations, validateLabels } from '@kplane/api';
import type { Backend, KeyValue, ListOptions, ListResult, StorageEvent } from '@kplane/storage';
import { postJson, resolveWebhookTarget, WebhookRequestError, type ServiceLister } from '../webhookutil/client.js';
import type { CRDConversion } from './crd-types.js';

/** Converts objects to another apiVersion of the same kind. */
export interface Converter {
  convert(objects: KubeObject[], toApiVersion: string): Promise<KubeObject[]>;
}

/** Options of createConverter. */
export interface ConverterOptions {
  conversion: CRDConversion | undefined;
  group: string;
  kind: string;
  /** Services and EndpointSlices, to resolve a webhook given by `service`. */
  objects?: ServiceLister;
  /** Webhook timeout (ms); default 30 000, kube-apiserver's for conversion webhooks. */
  timeoutMs?: number;
}

/** kube-apiserver's timeout of a conversion webhook call (its webhook client's default). */
export const CONVERSION_WEBHOOK_TIMEOUT_MS = 30_000;

/** The ConversionReview versions kube-apiserver speaks. */
const REVIEW_VERSIONS = ['v1beta1', 'v1'];

/** Go's GroupVersionKind.String(): "group/version, Kind=Kind". */
function gvkString(apiVersion: string | undefined, kind: string | undefined): string {
  const av = apiVersion ?? '';
  return `${av.includes('/') ? av : `/${av}`}, Kind=${kind ?? ''}`;
}

/** A failed conversion: kube returns a plain error, which reaches the client as a 500 without reason. */
const conversionError = (message: string) => new ApiError(500, '', message);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Go's %T of a JSON value, as it appears in kube's messages. */
function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return '<nil>';
  return 'map[string]interface {}';
}

/** The JSON type of a value as Go's json errors name it. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'number' || typeof v === 'string' ? typeof v : 'object';
}

/** Name, namespace, kind and uid must come back unchanged (kube's validateConvertedObject). */
function sameIdentity(original: KubeObject, converted: KubeObject): string | undefined {
  const om = original.metadata ?? {};
  const cm = isObj(converted.metadata) ? (converted.metadata as KubeObject['metadata'] & Obj) : {};
  const checks: [string, unknown, unknown][] = [
    ['kind', original.kind ?? '', converted.kind ?? ''],
    ['name', om.name ?? '', cm.name ?? ''],
    ['namespace', om.namespace ?? '', cm.namespace ?? ''],
    ['UID', om.uid ?? '', cm.uid ?? ''],
  ];
  for (const [what, e, a] of checks) if (e !== a) return `must have the same ${what}: ${String(e)} != ${String(a)}`;
  return undefined;
}

/** Go's aggregate of field errors: one alone, several in brackets. */
function aggregate(causes: StatusCause[]): string {
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : String(c.message)));
  return parts.length === 1 ? parts[0]! : `[${parts.join(', ')}]`;
}

/**
 * The original's metadata with the converted object's labels and annotations (the only metadata
 * a conversion may change; kube's restoreObjectMeta), or why that metadata is invalid.
 */
function restoreMetadata(original: KubeObject, converted: KubeObject): KubeObject | string {
  if (!('metadata' in converted)) return 'missing metadata in converted object';
  const response = converted.metadata as unknown;
  if (!isObj(response)) return `invalid metadata of type ${goType(response)} in converted object`;
  const m: Obj = structuredClone((original.metadata ?? {}) as Obj);
  for (const field of ['labels', 'annotations'] as const) {
    const got = response[field];
    if (got === undefined || got === null) {
      delete m[field];
      continue;
    }
    if (!isObj(got)) return `invalid metadata.${field} of type ${goType(got)} in converted object`;
    const before = isObj(m[field]) ? (m[field] as Obj) : {};
    let changed = Object.keys(before).length !== Object.keys(got).length;
    for (const [k, v] of Object.entries(got)) {
      if (typeof v !== 'string') return `metadata.${field}[${k}] must be a string, but is ${goType(v)} in converted object`;
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const causes = field === 'labels' ? validateLabels(got as Record<string, string>, 'metadata.labels') : validateAnnotations(got as Record<string, string>, 'metadata.annotation');
      if (causes.length > 0) return aggregate(causes);
    }
    m[field] = got;
  }
  return { ...converted, metadata: m as KubeObject['metadata'] };
}

interface ReviewAnswer {
  apiVersion?: string;
  kind?: string;
  response?: { uid?: string; convertedObjects?: unknown[] | null; result?: { status?: string; message?: string } };
}

/** The converted objects of a ConversionReview answer, or why it is unusable (kube's getConvertedObjectsFromResponse). */
function convertedObjectsOf(reviewVersion: string, uid: string, value: unknown): unknown[] | string {
  if (!isObj(value)) return `Object 'Kind' is missing in '${JSON.stringify(value)}'`;
  const answer = value as ReviewAnswer;
  if (reviewVersion === 'v1') {
    if (!answer.kind) return `Object 'Kind' is missing in '${JSON.stringify(value)}'`;
    const expected = 'apiextensions.k8s.io/v1';
    if ((answer.apiVersion ?? expected) !== expected || answer.kind !== 'ConversionReview') {
      return `expected webhook response of ${gvkString(expected, 'ConversionReview')}, got ${gvkString(answer.apiVersion, answer.kind)}`;
    }
  }
  if (!isObj(answer.response)) return 'no response provided';
  const res = answer.response as NonNullable<ReviewAnswer['response']>;
  // v1beta1 answers were never checked for their uid; kube still does not.
  if (reviewVersion === 'v1' && (res.uid ?? '') !== uid) return `expected response.uid="${uid}", got "${res.uid ?? ''}"`;
  const status = res.result?.status ?? '';
  if (status !== 'Success') return res.result?.message ? res.result.message : `response.result.status was '${status}', not 'Success'`;
  return Array.isArray(res.convertedObjects) ? res.convertedObjects : [];
}

/** The webhook converter of a CRD whose spec.conversion.strategy is Webhook. */
function webhookConverter(options: ConverterOptions): Converter {
  const webhook = options.conversion!.webhook ?? {};
  const cc = webhook.clientConfig ?? {};
  const timeoutMs = options.timeoutMs ?? CONVERSION_WEBHOOK_TIMEOUT_MS;
  const objects: ServiceLister = options.objects ?? { list: async () => [] };
  const reviewVersion = (webhook.conversionReviewVersions ?? []).find((v) => REVIEW_VERSIONS.includes(v));
  return {
    async convert(all, toApiVersion) {
      const pending = all.filter((o) => o.apiVersion !== toApiVersion);
      if (pending.length === 0) return all;
      if (!reviewVersion) throw conversionError('no supported conversion review versions');
      const gvk = gvkString(pending[0]!.apiVersion, pending[0]!.kind);
      const failed = (why: string) => conversionError(`conversion webhook for ${gvk} failed: ${why}`);
      const returned = (why: string) => conversionError(`conversion webhook for ${gvk} returned ${why}`);
      const uid = randomUUID();
      // kube sends an empty response stanza along with the request.
      const review = {
        kind: 'ConversionReview',
        apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
        request: { uid, desiredAPIVersion: toApiVersion, objects: pending },
        response: { uid: '', convertedObjects: null, result: { metadata: {} } },
      };
      let answer: unknown;
      try {
        const target = await resolveWebhookTarget(cc, timeoutMs / 1000, objects);
        answer = await postJson(target, review, cc.caBundle, timeoutMs);
      } catch (err) {
        if (err instanceof WebhookRequestError) throw failed(err.message);
        throw err;
      }
      const converted = convertedObjectsOf(reviewVersion, uid, answer);
      if (typeof converted === 'string') throw failed(converted);
      if (converted.length !== pending.length) throw returned(`${converted.length} objects, expected ${pending.length}`);
      const out: KubeObject[] = [];
      let index = 0;
      for (const original of all) {
        if (original.apiVersion === toApiVersion) {
          out.push(original);
          continue;
        }
        const raw = converted[index++]!;
        // kube-apiserver 1.32 converts what it reads from storage one object at a time, so a bad
        // answer is worded for one object ("at index 0"), naming the object's own version.
        const bad = (why: string) => conversionError(`conversion webhook for ${gvkString(original.apiVersion, original.kind)} returned ${why}`);
        // Each converted object is decoded as unstructured JSON first: an object with a kind.
        if (!isObj(raw)) throw conversionError(`json: cannot unmarshal ${jsonKind(raw)} into Go value of type map[string]interface {}`);
        if (!raw.kind) throw conversionError(`Object 'Kind' is missing in '${JSON.stringify(raw)}'`);
        const c = raw as KubeObject;
        if ((c.apiVersion ?? '') !== toApiVersion) throw bad(`invalid object at index 0: invalid groupVersion (expected ${toApiVersion}, received ${c.apiVersion ?? ''})`);
        if (c.kind !== original.kind) throw bad(`invalid object at index 0: invalid kind (expected ${original.kind}, received ${c.kind})`);
        const mismatch = sameIdentity(original, c);
        if (mismatch) throw bad(`invalid object: ${mismatch}`);
        const restored = restoreMetadata(original, c);
        if (typeof restored === 'string') throw bad(`invalid metadata: ${restored}`);
        out.push(restored);
      }
      return out;
    },
  };
}

/** Creates the converter of a CRD's spec.conversion (None when absent). */
export function createConverter(options: ConverterOptions): Converter {
  const strategy = options.conversion?.strategy ?? 'None';
  if (strategy === 'Webhook') return webhookConverter(options);
  return {
    async convert(objects, toApiVersion) {
      return objects.map((o) => (o.apiVersion === toApiVersion ? o : { ...o, apiVersion: toApiVersion }));
    },
  };
}

function apiVersionOf(value: string): string | undefined {
  try {
    return (JSON.parse(value) as KubeObject).apiVersion;
  } catch {
    return undefined;
  }
}

/**
 * A view of `backend` in which values read come converted to `servedApiVersion` and values
 * written are converted to `storageApiVersion` first. Several objects read together (a list)
 * are converted in one call.
 */
export function convertingBackend(backend: Backend, converter: Converter, servedApiVersion: string, storageApiVersion: string): Backend {
  const convertValues = async (values: string[], to: string): Promise<string[]> => {
    const idx: number[] = [];
    const objs: KubeObject[] = [];
    values.forEach((v, i) => {
      if (apiVersionOf(v) !== to) {
        idx.push(i);
        objs.push(JSON.parse(v) as KubeObject);
      }
    });
    if (objs.length === 0) return values;
    const converted = await converter.convert(objs, to);
    const out = [...values];
    idx.forEach((at, j) => (out[at] = JSON.stringify(converted[j])));
    return out;
  };
  const readKv = async (kv: KeyValue | null | undefined): Promise<KeyValue | null> => {
    if (!kv) return null;
    const [value] = await convertValues([kv.value], servedApiVersion);
    return { ...kv, value: value! };
  };
  const toStorage = async (value: string) => (await convertValues([value], storageApiVersion))[0]!;
  return {
    currentRevision: () => backend.currentRevision(),
    compactedRevision: () => backend.compactedRevision(),
    count: (prefix) => backend.count(prefix),
    compact: (rev) => backend.compact(rev),
    async close() {
      /* the shared backend is closed by its owner */
    },
    get: async (k, rev) => readKv(await backend.get(k, rev)),
    async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
      const r = await backend.list(prefix, opts);
      const values = await convertValues(r.items.map((kv) => kv.value), servedApiVersion);
      return { ...r, items: r.items.map((kv, i) => ({ ...kv, value: values[i]! })) };
    },
    async create(k, value, opts) {
      const kv = await backend.create(k, await toStorage(value), opts);
      return { ...kv, value };
    },
    async update(k, value, expected, opts) {
      const kv = await backend.update(k, await toStorage(value), expected, opts);
      return { ...kv, value };
    },
    delete: async (k, expected) => (await readKv(await backend.delete(k, expected)))!,
    async deleteWithFinalValue(k, value, expected) {
      const kv = await backend.deleteWithFinalValue(k, await toStorage(value), expected);
      return { ...kv, value };
    },
    expireKeys: () => backend.expireKeys(),
    async *watch(prefix: string, after: number, signal?: AbortSignal): AsyncIterable<StorageEvent> {
      for await (const ev of backend.watch(prefix, after, signal)) {
        yield { ...ev, kv: (await readKv(ev.kv))!, prevKv: ev.prevKv ? ((await readKv(ev.prevKv)) ?? undefined) : undefined };
      }
    },
  };
}
