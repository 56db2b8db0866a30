/**
 * An event recorder writing core/v1 Events like client-go's tools/record: events are named
 * `<object name>.<time in hex>`; an event identical to a recent one bumps that Event's count and
 * lastTimestamp (a PATCH) instead of creating another object; similar events (same object, type
 * and reason, ten different messages) are combined into one; and a per-object token bucket
 * drops a flood of events about one object.
 */
import { ApiError, type KubeObject } from '@kplane/api';
import type { Client, ResourceClient } from '@kplane/client';
import { realClock, type Clock } from '../clock.js';
import { catchRejection, reportPanic } from '../recover.js';
import type { ObjectReference } from '../kinds/builtin/index.js';
import { formatTime } from './conditions.js';

/** core/v1 ObjectReference of an Event's involvedObject (the built-in kind's type). */
export type { ObjectReference };

/** A core/v1 Event as the recorder writes it. */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: { component: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: EventType;
  reportingComponent: string;
  reportingInstance: string;
}

/** The two event types core/v1 accepts. */
export type EventType = 'Normal' | 'Warning';

/** Options of createEventRecorder. */
export interface EventRecorderOptions {
  client: Client;
  /** source.component and reportingComponent, e.g. "replicaset-controller". */
  component: string;
  /** source.host and reportingInstance. */
  host?: string;
  clock?: Clock;
  /** An identical event within this long after the last one is counted, not created (default 10 min). */
  aggregationWindowMs?: number;
  /** Distinct events remembered for counting, least recently used dropped first (default 4096). */
  cacheSize?: number;
  /**
   * Similar events (same source, object, type and reason) with this many different messages
   * within `aggregationWindowMs` are combined into one Event whose message starts with
   * `(combined from similar events): ` (default 10, client-go's).
   */
  maxSimilarEvents?: number;
  /** Events about one object (per source, type and reason) written in a burst before the bucket runs dry (default 25). */
  spamBurst?: number;
  /** One more event per object is allowed every this long once the burst is spent (default 5 min: client-go's 1/300 qps). */
  spamRefillMs?: number;
  /** Called when an event could not be written (events are best effort and never throw). */
  onError?(error: unknown, event: CoreEvent): void;
}

/** Records events about objects. */
export interface EventRecorder {
  /**
   * Records an event about `object` and resolves with the Event as written, or undefined when
   * it was dropped (no reference could be made, an unsupported type, or the write failed —
   * see `onError` —, or the object's spam bucket is empty). Never rejects. Writes happen one at
   * a time, in call order.
   */
  event(object: KubeObject, type: EventType, reason: string, message: string): Promise<CoreEvent | undefined>;
  /** Resolves once every event recorded so far has been written or dropped. */
  flush(): Promise<void>;
}

interface CacheEntry {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
  lastSeen: number;
}

const eventsResource = { group: '', version: 'v1', resource: 'events', namespaced: true, kind: 'Event' } as const;

/** The involvedObject reference for `object` (kind and name are required). */
export function objectReference(object: KubeObject): ObjectReference | undefined {
  const meta = object.metadata ?? {};
  if (!object.kind || !meta.name) return undefined;
  const ref: ObjectReference = { kind: object.kind };
  if (meta.namespace) ref.namespace = meta.namespace;
  ref.name = meta.name;
  if (meta.uid) ref.uid = meta.uid;
  if (object.apiVersion) ref.apiVersion = object.apiVersion;
  if (meta.resourceVersion) ref.resourceVersion = meta.resourceVersion;
  return ref;
}

/** Creates an event recorder. */
export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const clock = options.clock ?? realClock;
  const windowMs = options.aggregationWindowMs ?? 10 * 60_000;
  const cacheSize = Math.max(1, options.cacheSize ?? 4096);
  const events: ResourceClient<CoreEvent> = options.client.resource<CoreEvent>(eventsResource);
  const source = options.host ? { component: options.component, host: options.host } : { component: options.component };
  const cache = new Map<string, CacheEntry>(); // insertion order = least recently used first
  const maxSimilar = Math.max(1, options.maxSimilarEvents ?? 10);
  const spamBurst = Math.max(1, options.spamBurst ?? 25);
  const spamRefillMs = Math.max(1, options.spamRefillMs ?? 300_000);
  const similar = new Map<string, { messages: Set<string>; lastSeen: number }>(); // LRU, like `cache`
  const buckets = new Map<string, { tokens: number; at: number }>(); // LRU, like `cache`
  const touch = <V>(lru: Map<string, V>, key: string, value: V): void => {
    lru.delete(key);
    lru.set(key, value);
    while (lru.size > cacheSize) lru.delete(lru.keys().next().value!);
  };
  /** client-go's EventAggregator: the key to count the event under, and its message. */
  const aggregate = (similarKey: string, message: string, now: number): { key: string; message: string } => {
    let rec = similar.get(similarKey);
    if (rec === undefined || now - rec.lastSeen > windowMs) rec = { messages: new Set(), lastSeen: now };
    rec.messages.add(message);
    rec.lastSeen = now;
    touch(similar, similarKey, rec);
    if (rec.messages.size < maxSimilar) return { key: JSON.stringify([similarKey, message]), message };
    rec.messages.delete(rec.messages.values().next().value!); // never grow past the limit
    return { key: similarKey, message: `(combined from similar events): ${message}` };
  };
  /** client-go's EventSourceObjectSpamFilter: a token bucket per source, object, type and reason. */
  const allowed = (similarKey: string, now: number): boolean => {
    const b = buckets.get(similarKey) ?? { tokens: spamBurst, at: now };
    b.tokens = Math.min(spamBurst, b.tokens + (now - b.at) / spamRefillMs);
    b.at = now;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    touch(buckets, similarKey, b);
    return ok;
  };
  let tail: Promise<unknown> = Promise.resolve();
  let lastNameMs = -1;
  let sameMs = 0;

  /** client-go's "%x" of UnixNano; a counter keeps names from one millisecond distinct. */
  const nameSuffix = (ms: number): string => {
    sameMs = ms === lastNameMs ? sameMs + 1 : 0;
    lastNameMs = ms;
    return (BigInt(ms) * 1_000_000n + BigInt(sameMs)).toString(16).padStart(16, '0');
  };

  const report = (error: unknown, event: CoreEvent): undefined => {
    const failed = (thrown: unknown): void => void reportPanic(undefined, 'event-recorder', thrown, { name: 'onError', key: event.metadata?.name });
    try {
      catchRejection(options.onError?.(error, event), failed);
    } catch (thrown) {
      failed(thrown);
    }
    return undefined;
  };

  async function write(object: KubeObject, type: EventType, reason: string, message: string, now: number): Promise<CoreEvent | undefined> {
    const ref = objectReference(object);
    const stamp = formatTime(now);
    const namespace = ref?.namespace || 'default';
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${ref?.name ?? ''}.${nameSuffix(now)}`, namespace },
      involvedObject: ref ?? {},
      reason,
      message,
      source,
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
      type,
      reportingComponent: options.component,
      reportingInstance: options.host ?? '',
    };
    if (ref === undefined) return report(new Error(`Could not construct reference to object without kind and name, will not report event: '${type}' '${reason}' '${message}'`), event);
    if (type !== 'Normal' && type !== 'Warning') return report(new Error(`Unsupported event type: '${String(type)}'`), event);

    const similarKey = JSON.stringify([source.component, source.host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.fieldPath ?? '', ref.uid ?? '', ref.apiVersion ?? '', type, reason]);
    const combined = aggregate(similarKey, message, now);
    event.message = combined.message;
    if (!allowed(similarKey, now)) return undefined;
    const key = combined.key;
    const seen = cache.get(key);
    cache.delete(key);
    if (seen !== undefined && now - seen.lastSeen <= windowMs) {
      event.metadata!.name = seen.name;
      event.metadata!.namespace = seen.namespace;
      event.count = seen.count + 1;
      event.firstTimestamp = seen.firstTimestamp;
    }

    let written: CoreEvent | undefined;
    try {
      if (event.count > 1) {
        try {
          written = await events.patch(
            event.metadata!.name!,
            { count: event.count, lastTimestamp: event.lastTimestamp, message: event.message },
            'strategic',
            { namespace: event.metadata!.namespace },
          );
        } catch (err) {
          // The Event was deleted meanwhile: create it again under the same name.
          if (!(err instanceof ApiError && err.code === 404)) throw err;
        }
      }
      written ??= await events.create(event, { namespace: event.metadata!.namespace });
    } catch (err) {
      return report(err, event);
    }

    cache.set(key, {
      name: written.metadata?.name ?? event.metadata!.name!,
      namespace: written.metadata?.namespace ?? namespace,
      count: typeof written.count === 'number' ? written.count : event.count,
      firstTimestamp: written.firstTimestamp ?? event.firstTimestamp,
      lastSeen: now,
    });
    while (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
    return written;
  }

  return {
    event(object, type, reason, message) {
      const now = clock.now();
      const result = tail.then(() => write(object, type, reason, message, now));
      tail = result.catch(() => undefined);
      return result.catch(() => undefined);
    },
    async flush() {
      await tail;
    },
  };
}
