/**
 * Version conversion of custom resources. Strategy None rewrites apiVersion; strategy Webhook
 * sends an apiextensions.k8s.io/v1 ConversionReview to an HTTPS service and takes back the
 * converted objects. A converting backend view makes each served version read and write the
 * storage version's objects in its own apiVersion.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:https';
import type { KubeObject } from '@kplane/api';
import { ApiError } from '@kplane/api';
import type { Backend, KeyValue, ListOptions, ListResult, StorageEvent } from '@kplane/storage';
import type { CRDConversion, WebhookClientConfig } from './crd-types.js';

/** Converts objects to another apiVersion of the same kind. */
export interface Converter {
  convert(objects: KubeObject[], toApiVersion: string): Promise<KubeObject[]>;
}

/** Options of createConverter. */
export interface ConverterOptions {
  conversion: CRDConversion | undefined;
  group: string;
  kind: string;
  /** Webhook timeout (ms); default 10 000. */
  timeoutMs?: number;
}

function webhookURL(cc: WebhookClientConfig): string {
  if (cc.url) return cc.url;
  const s = cc.service!;
  return `https://${s.name}.${s.namespace}.svc:${s.port ?? 443}${s.path ?? ''}`;
}

function post(url: string, body: string, ca: string | undefined, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (data += c));
      res.on('end', () => ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300 ? resolve(data) : reject(new Error(`the server responded with status ${res.statusCode}: ${data.slice(0, 200)}`))));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/** Metadata a conversion webhook may change: labels and annotations only. */
function restoreMetadata(original: KubeObject, converted: KubeObject): KubeObject {
  const m = { ...(original.metadata ?? {}) };
  const c = converted.metadata ?? {};
  if (c.labels !== undefined) m.labels = c.labels;
  else delete m.labels;
  if (c.annotations !== undefined) m.annotations = c.annotations;
  else delete m.annotations;
  return { ...converted, metadata: m };
}

/** Creates the converter of a CRD's spec.conversion (None when absent). */
export function createConverter(options: ConverterOptions): Converter {
  const strategy = options.conversion?.strategy ?? 'None';
  if (strategy !== 'Webhook') {
    return {
      async convert(objects, toApiVersion) {
        return objects.map((o) => (o.apiVersion === toApiVersion ? o : { ...o, apiVersion: toApiVersion }));
      },
    };
  }
  const cc = options.conversion!.webhook?.clientConfig ?? {};
  const ca = cc.caBundle ? Buffer.from(cc.caBundle, 'base64').toString('utf8') : undefined;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    async convert(objects, toApiVersion) {
      const pending = objects.filter((o) => o.apiVersion !== toApiVersion);
      if (pending.length === 0) return objects;
      const failed = (why: string) => new ApiError(500, 'InternalError', `Internal error occurred: conversion webhook for ${toApiVersion}, Kind=${options.kind} failed: ${why}`);
      const uid = randomUUID();
      const review = { kind: 'ConversionReview', apiVersion: 'apiextensions.k8s.io/v1', request: { uid, desiredAPIVersion: toApiVersion, objects: pending } };
      let parsed: { response?: { uid?: string; convertedObjects?: KubeObject[]; result?: { status?: string; message?: string } } };
      try {
        parsed = JSON.parse(await post(webhookURL(cc), JSON.stringify(review), ca, timeoutMs));
      } catch (err) {
        throw failed(`Post "${webhookURL(cc)}": ${err instanceof Error ? err.message : String(err)}`);
      }
      const res = parsed.response;
      if (!res) throw failed('no response provided');
      if (res.uid !== uid) throw failed(`expected response uid "${uid}", got "${res.uid ?? ''}"`);
      if (res.result?.status !== 'Success') throw failed(res.result?.message ?? 'conversion failed');
      const converted = res.convertedObjects ?? [];
      if (converted.length !== pending.length) throw failed(`expected ${pending.length} converted objects, got ${converted.length}`);
      const out: KubeObject[] = [];
      let i = 0;
      for (const o of objects) {
        if (o.apiVersion === toApiVersion) {
          out.push(o);
          continue;
        }
        const c = converted[i++]!;
        if (c.apiVersion !== toApiVersion) throw failed(`invalid converted object at index ${i - 1}: invalid apiVersion "${c.apiVersion}", expected "${toApiVersion}"`);
        if (c.kind !== o.kind) throw failed(`invalid converted object at index ${i - 1}: invalid kind "${c.kind}", expected "${o.kind}"`);
        out.push(restoreMetadata(o, c));
      }
      return out;
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
