/**
 * An event recorder writing core/v1 Events like client-go's tools/record: events are named
 * `<object name>.<time in hex>`, and an event identical to a recent one bumps that Event's
 * count and lastTimestamp (a PATCH) instead of creating another object. Like client-go's
 * EventCorrelator, events of one reason about one object that differ only by message are
 * combined once 10 distinct messages were seen within 10 minutes, and a source may write at
 * most 25 events about one object in a burst, then one per 5 minutes (the rest are dropped).
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
  /** Called when an event could not be written (events are best effort and never throw). */
  onError?(error: unknown, event: CoreEvent): void;
  /**
   * Distinct messages of one reason about one object, within 10 minutes of the last, from
   * which on they are combined into one Event `(combined from similar events): <message>`
   * (client-go's default 10).
   */
  similarMaxEvents?: number;
  /**
   * Events of one type and reason a source may write about one object at once (client-go's spam filter, default 25);
   * the bucket refills by one every `spamRefillMs`. Events over it are dropped.
   */
  spamBurst?: number;
  /** Time for the spam filter's bucket to gain one event (default 5 minutes, client-go's 1/300 per second). */
  spamRefillMs?: number;
}

/** Records events about objects. */
export interface EventRecorder {
  /**
   * Records an event about `object` and resolves with the Event as written, or undefined when
   * it was dropped (no reference could be made, an unsupported type, the write failed —
   * see `onError` — or the spam filter held it back). Never rejects. Writes happen one at a time, in call order.
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

/** client-go's similar-event aggregation: distinct messages seen per aggregate key. */
interface SimilarRecord {
  messages: Set<string>;
  last: number;
}

/** client-go's spam filter: a token bucket per source, object, type and reason. */
interface SpamRecord {
  tokens: number;
  last: number;
}

const SIMILAR_WINDOW_MS = 600_000;
const COMBINED_PREFIX = '(combined from similar events): ';

/** Reads `key` of an LRU map (insertion order = least recently used first), marking it used. */
function touch<V>(lru: Map<string, V>, key: string): V | undefined {
  const v = lru.get(key);
  if (v !== undefined) {
    lru.delete(key);
    lru.set(key, v);
  }
  return v;
}

function remember<V>(lru: Map<string, V>, key: string, value: V, size: number): void {
  lru.delete(key);
  lru.set(key, value);
  while (lru.size > size) lru.delete(lru.keys().next().value!);
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
  const similar = new Map<string, SimilarRecord>();
  const spam = new Map<string, SpamRecord>();
  const similarMax = Math.max(1, options.similarMaxEvents ?? 10);
  const spamBurst = Math.max(1, options.spamBurst ?? 25);
  const spamRefillMs = Math.max(1, options.spamRefillMs ?? 300_000);
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

    const about = [source.component, source.host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.uid ?? '', ref.apiVersion ?? ''];
    // Similar events (same reason about the same object, other messages): from the
    // similarMax-th distinct message within the window on, one combined Event counts them.
    let key = JSON.stringify([...about, ref.fieldPath ?? '', type, reason, message]);
    const aggregateKey = JSON.stringify([...about, type, reason]);
    let record = touch(similar, aggregateKey);
    if (record === undefined || now - record.last > SIMILAR_WINDOW_MS) record = { messages: new Set(), last: now };
    record.messages.add(message);
    record.last = now;
    remember(similar, aggregateKey, record, cacheSize);
    if (record.messages.size >= similarMax) {
      record.messages.delete(record.messages.values().next().value!);
      key = aggregateKey;
      event.message = COMBINED_PREFIX + message;
    }
    const seen = cache.get(key);
    cache.delete(key);
    if (seen !== undefined && now - seen.lastSeen <= windowMs) {
      event.metadata!.name = seen.name;
      event.metadata!.namespace = seen.namespace;
      event.count = seen.count + 1;
      event.firstTimestamp = seen.firstTimestamp;
    }
    // The spam filter: a token bucket per source, object, type and reason (client-go's spam key),
    // so a flood of one reason never silences another. A dropped event is still counted.
    const spamKey = aggregateKey;
    const bucket = touch(spam, spamKey) ?? { tokens: spamBurst, last: now };
    bucket.tokens = Math.min(spamBurst, bucket.tokens + (now - bucket.last) / spamRefillMs);
    bucket.last = now;
    remember(spam, spamKey, bucket, cacheSize);
    if (bucket.tokens < 1) {
      remember(cache, key, { name: event.metadata!.name!, namespace: event.metadata!.namespace!, count: event.count, firstTimestamp: event.firstTimestamp, lastSeen: now }, cacheSize);
      return undefined;
    }
    bucket.tokens -= 1;

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
