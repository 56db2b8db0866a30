/**
 * Events in both groups: core/v1 Event and events.k8s.io/v1 Event. Kubernetes stores one
 * object and converts between the two shapes; the converters below map the fields the same way.
 */
import { fieldNotSupported, fieldRequired, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType, StrategyContext, TableSpec } from '../registry/resource.js';
import { convertingBackend } from '../crd/conversion.js';
import { translateTimestampSince } from './age.js';
import { NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, num, str, type Obj } from './util.js';

/** Fields that differ between the two shapes: [events.k8s.io/v1 name, core/v1 name]. */
const RENAMED: readonly (readonly [string, string])[] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['reportingController', 'reportingComponent'],
];

function rename(e: KubeObject, apiVersion: string, from: 0 | 1): KubeObject {
  const o = e as Obj;
  const out: Obj = { ...o, apiVersion, kind: 'Event' };
  for (const pair of RENAMED) delete out[pair[from]];
  for (const pair of RENAMED) if (o[pair[from]] !== undefined) out[pair[1 - from]!] = o[pair[from]];
  return out as KubeObject;
}

/** Converts an events.k8s.io/v1 Event into the core/v1 shape (as kube-apiserver's conversion does). */
export function eventsV1ToCore(e: KubeObject): KubeObject {
  return rename(e, 'v1', 0);
}

/** Converts a core/v1 Event into the events.k8s.io/v1 shape. */
export function coreToEventsV1(e: KubeObject): KubeObject {
  return rename(e, 'events.k8s.io/v1', 1);
}

/** The core/v1 view of an event in either shape. */
function asCore(e: KubeObject): Obj {
  const o = e as Obj;
  return (o.regarding !== undefined || o.note !== undefined || o.reportingController !== undefined ? eventsV1ToCore(e) : e) as Obj;
}

function involved(e: Obj): Obj {
  return (asObj(e.involvedObject) ?? {}) as Obj;
}

function eventSource(e: Obj): string {
  const src = (asObj(e.source) ?? {}) as Obj;
  const component = str(src.component) || str(e.reportingComponent);
  const instance = str(src.host) || str(e.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

const eventTable: TableSpec = {
  columns: [
    { name: 'Last Seen', type: 'string', description: 'The time at which the most recent occurrence of this event was recorded.', priority: 0 },
    { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning), new types could be added in the future', priority: 0 },
    { name: 'Reason', type: 'string', description: 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.', priority: 0 },
    { name: 'Object', type: 'string', description: 'The object that this event is about.', priority: 0 },
    { name: 'Subobject', type: 'string', description: 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].', priority: 1 },
    { name: 'Source', type: 'string', description: 'The component reporting this event. Should be a short machine understandable string.', priority: 1 },
    { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.', priority: 0 },
    { name: 'First Seen', type: 'string', description: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', priority: 1 },
    { name: 'Count', type: 'string', description: 'The number of times this event has occurred.', priority: 1 },
    { ...NAME_COLUMN, priority: 1 },
  ],
  row(obj, now) {
    const e = asCore(obj);
    const first = e.firstTimestamp ? translateTimestampSince(e.firstTimestamp, now) : translateTimestampSince(e.eventTime, now);
    let last = e.lastTimestamp ? translateTimestampSince(e.lastTimestamp, now) : first;
    let count = num(e.count);
    const series = asObj(e.series);
    if (series) {
      last = translateTimestampSince(series.lastObservedTime, now);
      count = num(series.count);
    } else if (count === 0) count = 1;
    const ref = involved(e);
    const kind = str(ref.kind).toLowerCase();
    const target = str(ref.name) ? `${kind}/${str(ref.name)}` : kind;
    return [last, str(e.type), str(e.reason), target, str(ref.fieldPath), eventSource(e), str(e.message).trim(), first, count, obj.metadata?.name ?? ''];
  },
};

function coreSelectors(): Record<string, (o: KubeObject) => string | undefined> {
  const ref = (k: string) => (o: KubeObject) => str(involved(asCore(o))[k]);
  return {
    'involvedObject.kind': ref('kind'),
    'involvedObject.namespace': ref('namespace'),
    'involvedObject.name': ref('name'),
    'involvedObject.uid': ref('uid'),
    'involvedObject.apiVersion': ref('apiVersion'),
    'involvedObject.resourceVersion': ref('resourceVersion'),
    'involvedObject.fieldPath': ref('fieldPath'),
    reason: (o) => str(asCore(o).reason),
    reportingComponent: (o) => str(asCore(o).reportingComponent),
    source: (o) => {
      const e = asCore(o);
      return str(asObj(e.source)?.component) || str(e.reportingComponent);
    },
    type: (o) => str(asCore(o).type),
  };
}

/**
 * Events expire: every write (re)starts a TTL of the server's event TTL (default 1 h, as
 * kube-apiserver's --event-ttl), after which storage deletes the Event.
 */
function eventTTL(_obj: KubeObject, ctx: StrategyContext): number | undefined {
  return ctx.eventTTLSeconds;
}

/** The core/v1 events resource. */
export function eventResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    listKind: 'EventList',
    singular: 'event',
    shortNames: ['ev'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/events',
    schemaName: 'io.k8s.api.core.v1.Event',
    strategy: { generation: false, table: eventTable, fieldSelectors: coreSelectors(), ttlSeconds: eventTTL },
  };
}

function validateEventsV1(obj: KubeObject): StatusCause[] {
  const o = obj as Obj;
  const out: StatusCause[] = [];
  if (!o.eventTime) out.push(fieldRequired('eventTime'));
  const type = str(o.type);
  if (type !== 'Normal' && type !== 'Warning') out.push(fieldNotSupported('type', type, ['Normal', 'Warning']));
  if (!str(o.reportingController)) out.push(fieldRequired('reportingController'));
  if (!str(o.reportingInstance)) out.push(fieldRequired('reportingInstance'));
  if (!str(o.action)) out.push(fieldRequired('action'));
  if (!str(o.reason)) out.push(fieldRequired('reason'));
  return out;
}

/**
 * The events.k8s.io/v1 events resource. As in Kubernetes, both groups share /registry/events:
 * objects are stored in the core/v1 shape and converted on the way in and out, so an Event
 * written through either API is listed and watched through both.
 */
export function eventsV1Resource(): ResourceType {
  const selectors = coreSelectors();
  return {
    group: 'events.k8s.io',
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    listKind: 'EventList',
    singular: 'event',
    shortNames: ['ev'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/events',
    // Stored as core/v1 Events: discovery's storageVersionHash is theirs, as in Kubernetes.
    storageVersion: { group: '', version: 'v1', kind: 'Event' },
    storage: (backend) =>
      convertingBackend(
        backend,
        { convert: async (objects, to) => objects.map((o) => (to === 'v1' ? eventsV1ToCore(o) : coreToEventsV1(o))) },
        'events.k8s.io/v1',
        'v1',
      ),
    schemaName: 'io.k8s.api.events.v1.Event',
    strategy: {
      generation: false,
      ttlSeconds: eventTTL,
      validate: validateEventsV1,
      table: eventTable,
      fieldSelectors: {
        'regarding.kind': selectors['involvedObject.kind']!,
        'regarding.namespace': selectors['involvedObject.namespace']!,
        'regarding.name': selectors['involvedObject.name']!,
        'regarding.uid': selectors['involvedObject.uid']!,
        'regarding.apiVersion': selectors['involvedObject.apiVersion']!,
        'regarding.resourceVersion': selectors['involvedObject.resourceVersion']!,
        'regarding.fieldPath': selectors['involvedObject.fieldPath']!,
        reason: selectors.reason!,
        reportingController: selectors.reportingComponent!,
        type: selectors.type!,
      },
    },
  };
}
