/** Small helpers of the CronJob controller: Job states, names, references, time formats. */
import { rfc3339, type KubeObject, type OwnerReference } from '@kplane/api';
import type { CronJob, Job } from '@kplane/runtime';

/** The annotation a CronJob's Job carries: its scheduled time, RFC 3339 in the CronJob's zone. */
export const CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** An object reference as a CronJob's status.active holds it. */
export interface JobReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

/** "Complete" or "Failed" when the Job has that condition True, else undefined (jobutil.FinishedCondition). */
export function finishedCondition(job: Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

/** The Job's controller owner reference, if any. */
export function controllerRef(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** `<cronjob>-<scheduled time in minutes since the epoch>`: one name per start time, so a start is never created twice. */
export function jobName(cronJobName: string, scheduledMs: number): string {
  return `${cronJobName}-${Math.floor(scheduledMs / 60_000)}`;
}

/** The reference status.active keeps of a Job. */
export function jobReference(job: Job): JobReference {
  return {
    kind: 'Job',
    namespace: job.metadata?.namespace,
    name: job.metadata?.name,
    uid: job.metadata?.uid,
    apiVersion: 'batch/v1',
    resourceVersion: job.metadata?.resourceVersion,
  };
}


/** Parses a metav1.Time; undefined when absent or invalid. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The offset of `timeZone` from UTC at `ms`, in minutes. */
function zoneOffsetMinutes(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Go's time.RFC3339 of `ms` in `timeZone` ("2006-01-02T15:04:05Z07:00"; UTC as "Z"). */
export function rfc3339InZone(ms: number, timeZone: string | undefined): string {
  const offset = timeZone ? zoneOffsetMinutes(ms, timeZone) : 0;
  if (offset === 0) return rfc3339(ms);
  const local = new Date(Math.floor(ms / 1000) * 1000 + offset * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(offset);
  return `${local}${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's time.RFC1123Z in UTC ("Mon, 02 Jan 2006 15:04:05 +0000"). */
export function rfc1123z(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

/** Jobs oldest first by status.startTime (Jobs not started last), ties by name (byJobStartTime). */
export function byStartTime(a: Job, b: Job): number {
  const sa = parseTime(a.status?.startTime);
  const sb = parseTime(b.status?.startTime);
  if (sa === undefined && sb !== undefined) return 1;
  if (sa !== undefined && sb === undefined) return -1;
  if (sa === sb) return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0;
  return sa! - sb!;
}

/** The uid of the CronJob owning a Job, if a CronJob controls it. */
export function cronJobOwner(job: Job): OwnerReference | undefined {
  const ref = controllerRef(job);
  return ref?.kind === 'CronJob' ? ref : undefined;
}

/** Is the reference list holding this uid? */
export function inActive(cj: CronJob, uid: string | undefined): boolean {
  return (cj.status?.active ?? []).some((r) => r.uid === uid);
}
