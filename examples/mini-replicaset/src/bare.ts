/**
 * The mini-replicaset on Node's standard library alone, through `kubectl proxy`: a ConfigMap
 * labelled `cours/mini-rs=oui` asks for `data.repliques` pods, and this program keeps that many.
 *
 *   node dist/bare.js [NAMESPACE] [--status] [--proxy http://127.0.0.1:8001] [--lang fr]
 *
 * Two halves, as every controller: list then watch keeps a cache and puts the key of every
 * changed object in a queue; a worker takes keys one by one and reconciles, reading only the
 * cache, never the event that queued the key.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { WANT_SELECTOR, OWNER_LABEL, desiredCount, messages, parseOptions, podFor, podsOf, statusOf, statusPatch, surplus, type PodLike, type WantLike } from './common.js';

const opts = parseOptions(process.argv.slice(2));
const say = messages(opts.lang);
const base = `${opts.proxy}/api/v1/namespaces/${encodeURIComponent(opts.namespace)}`;

/** One HTTP call through the proxy: resolves with the response (its status checked). */
function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers: body === undefined ? {} : { 'content-type': contentType } }, (res) => {
      if ((res.statusCode ?? 0) < 300) return resolve(res);
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => reject(Object.assign(new Error(`${method} ${path}: ${res.statusCode} ${text.trim()}`), { status: res.statusCode })));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** One HTTP call, its JSON answer. */
async function requestJson<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const res = await call(method, path, body, contentType);
  let text = '';
  for await (const chunk of res.setEncoding('utf8')) text += chunk;
  return JSON.parse(text) as T;
}

type Obj = WantLike & PodLike;
/** The cache: one map of objects by name per resource, filled by list then watch. */
const cache: Record<'configmaps' | 'pods', Map<string, Obj>> = { configmaps: new Map(), pods: new Map() };

/** The queue of keys (ConfigMap names), in arrival order, duplicates included. */
const queue: string[] = [];
let wake: (() => void) | undefined;
function enqueue(key: string | undefined): void {
  if (!key) return;
  queue.push(key);
  wake?.();
}

/**
 * List then watch: fills the cache, keeps it up to date, and queues the key of every object
 * touched; `listed` is called after the first list.
 */
async function listThenWatch(resource: 'configmaps' | 'pods', selector: string, keyOf: (o: Obj) => string | undefined, listed: () => void): Promise<never> {
  const sel = `labelSelector=${encodeURIComponent(selector)}`;
  for (;;) {
    try {
      const list = await requestJson<{ items: Obj[]; metadata: { resourceVersion: string } }>('GET', `/${resource}?${sel}`);
      cache[resource] = new Map(list.items.map((o) => [o.metadata!.name!, o]));
      for (const o of list.items) enqueue(keyOf(o));
      listed();
      const stream = await call('GET', `/${resource}?${sel}&watch=true&resourceVersion=${list.metadata.resourceVersion}`);
      for await (const line of createInterface({ input: stream })) {
        const ev = JSON.parse(line) as { type: string; object: Obj };
        if (ev.type === 'ERROR') break; // e.g. 410 Gone: list again
        if (ev.type === 'DELETED') cache[resource].delete(ev.object.metadata!.name!);
        else cache[resource].set(ev.object.metadata!.name!, ev.object);
        enqueue(keyOf(ev.object));
      }
    } catch (err) {
      console.error(say.failed(resource, err));
      await sleep(1000);
    }
  }
}

/** Compares the wish with reality, both read from the cache, and corrects the gap. Nothing else. */
async function reconcile(name: string): Promise<void> {
  const cm = cache.configmaps.get(name);
  if (!cm) return; // no wish any more: the garbage collector removes the pods
  const pods = podsOf(cache.pods.values(), name);
  const want = desiredCount(cm);
  if (opts.status) {
    const s = statusOf(pods, want);
    const patch = statusPatch(cm, s); // written only when it changes, or each write would wake us again
    if (patch) {
      await requestJson('PATCH', `/configmaps/${name}`, patch, 'application/merge-patch+json');
      console.log(say.status(name, s));
    }
  }
  for (let have = pods.length; have < want; have++) {
    const pod = await requestJson<Obj>('POST', '/pods', podFor(cm));
    console.log(say.creating(name, have, want, pod.metadata!.name!));
  }
  let have = pods.length;
  for (const pod of surplus(pods, want)) {
    await requestJson('DELETE', `/pods/${pod.metadata!.name!}`).catch((err: { status?: number }) => {
      if (err.status !== 404) throw err; // already gone
    });
    console.log(say.deleting(name, have--, want, pod.metadata!.name!));
  }
}

await Promise.all([
  new Promise<void>((listed) => void listThenWatch('configmaps', WANT_SELECTOR, (cm) => cm.metadata?.name, listed)),
  new Promise<void>((listed) => void listThenWatch('pods', OWNER_LABEL, (pod) => pod.metadata?.labels?.[OWNER_LABEL], listed)),
]);
console.log(say.started(opts.namespace)); // once the cache holds both lists
for (;;) {
  while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
  const key = queue.shift()!;
  await sleep(200); // a bet: that the cache has caught up with our own last writes
  await reconcile(key).catch((err: unknown) => console.error(say.failed(key, err)));
}
