/** batch/v1 cronjobs: defaults, validation (schedule, time zone, job template), Table columns, status subresource. */
import { cronScheduleError, fieldInvalid, fieldNotSupported, fieldRequired, isDNS1123Label, isKnownTimeZone, type KubeObject, type StatusCause } from '@kplane/api';
import type { ResourceType, TableSpec, WriteRequest } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { defaultPodSpec } from './pod-defaults.js';
import { validateJobSpec } from './job.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, child, containerCells, formatLabelSelector, goLabelSelector, invalidRendered, setDefault, type Obj } from './util.js';

/** Longest CronJob name: its Jobs are named `<name>-<11 characters>` and a Job name is a 63-character label. */
export const MAX_CRONJOB_NAME_LENGTH = 52;

const specOf = (obj: KubeObject): Obj => (asObj(obj.spec) ?? {}) as Obj;
const statusOf = (obj: KubeObject): Obj => (asObj(obj.status) ?? {}) as Obj;
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** SetDefaults_CronJob, and the pod defaults of the job template. */
export function defaultCronJob(obj: KubeObject): void {
  const spec = child(obj as Obj, 'spec');
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  const jobSpec = child(child(spec, 'jobTemplate'), 'spec');
  const pfp = asObj(jobSpec.podFailurePolicy);
  for (const rule of Array.isArray(pfp?.rules) ? pfp.rules : []) {
    for (const pattern of Array.isArray(asObj(rule)?.onPodConditions) ? (asObj(rule)!.onPodConditions as unknown[]) : []) {
      const p = asObj(pattern);
      if (p) setDefault(p, 'status', 'True');
    }
  }
  defaultPodSpec(child(child(jobSpec, 'template'), 'spec'));
}

/** ValidateJobTemplateSpec: the Job spec, a selector that is generated, never manual. */
function validateJobTemplate(template: Obj, path: string): StatusCause[] {
  const spec = (asObj(template.spec) ?? {}) as Obj;
  const out = validateJobSpec(spec, `${path}.spec`);
  if (spec.selector !== undefined && spec.selector !== null) out.push(invalidRendered(`${path}.spec.selector`, goLabelSelector(spec.selector), '`selector` will be auto-generated'));
  if (spec.manualSelector === true) out.push(fieldNotSupported(`${path}.spec.manualSelector`, true, ['nil', 'false']));
  return out;
}

/** The characters a time zone name's parts may use (IANA's naming rules, digits and '+' tolerated). */
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** validateTimeZone. */
function validateTimeZone(timeZone: unknown, path: string): StatusCause[] {
  if (timeZone === undefined || timeZone === null) return [];
  const tz = String(timeZone);
  if (tz.length === 0) return [fieldInvalid(path, tz, 'timeZone must be nil or non-empty string')];
  for (const part of tz.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part)) return [fieldInvalid(path, tz, `unknown time zone ${tz}`)];
  }
  const out: StatusCause[] = [];
  if (tz.toLowerCase() === 'local') out.push(fieldInvalid(path, tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  else if (!isKnownTimeZone(tz)) out.push(fieldInvalid(path, tz, `unknown time zone ${tz}`));
  return out;
}

/** validateCronJobSpec (create: `old` undefined). */
function validateCronJobSpec(spec: Obj, old: Obj | undefined): StatusCause[] {
  const out: StatusCause[] = [];
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  if (schedule.length === 0) {
    out.push(fieldRequired('spec.schedule'));
  } else {
    const error = cronScheduleError(schedule);
    if (error !== undefined) out.push(fieldInvalid('spec.schedule', schedule, error));
    // A zone in the schedule is only kept by objects that already had one.
    const allowTZ = typeof old?.schedule === 'string' && old.schedule.includes('TZ');
    if (allowTZ && schedule.includes('TZ') && spec.timeZone !== undefined && spec.timeZone !== null) {
      out.push(fieldInvalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    } else if (!allowTZ && schedule.includes('TZ')) {
      out.push(fieldInvalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    }
  }
  if (isInt(spec.startingDeadlineSeconds) && spec.startingDeadlineSeconds < 0) {
    out.push(fieldInvalid('spec.startingDeadlineSeconds', spec.startingDeadlineSeconds, 'must be greater than or equal to 0'));
  }
  if (!old || (old.timeZone ?? null) !== (spec.timeZone ?? null)) out.push(...validateTimeZone(spec.timeZone, 'spec.timeZone'));
  const policy = spec.concurrencyPolicy;
  if (policy === undefined || policy === null || policy === '') out.push(fieldRequired('spec.concurrencyPolicy'));
  else if (policy !== 'Allow' && policy !== 'Forbid' && policy !== 'Replace') out.push(fieldNotSupported('spec.concurrencyPolicy', policy, ['Allow', 'Forbid', 'Replace']));
  out.push(...validateJobTemplate((asObj(spec.jobTemplate) ?? {}) as Obj, 'spec.jobTemplate'));
  for (const k of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) {
    const v = spec[k];
    if (isInt(v) && v < 0) out.push(fieldInvalid(`spec.${k}`, v, 'must be greater than or equal to 0'));
  }
  return out;
}

/**
 * ValidateCronJobCreate / ValidateCronJobUpdate (metadata is checked by the store); a write of
 * the status subresource is not validated, as kube's status strategy does not.
 */
function validateCronJob(obj: KubeObject, old: KubeObject | undefined, warnings?: string[], req?: WriteRequest): StatusCause[] {
  if (old && req?.subresource === 'status') return [];
  const out = validateCronJobSpec(specOf(obj), old ? specOf(old) : undefined);
  const name = obj.metadata?.name ?? '';
  if (!old) {
    if (name.length > MAX_CRONJOB_NAME_LENGTH) out.push(fieldInvalid('metadata.name', name, `must be no more than ${MAX_CRONJOB_NAME_LENGTH} characters`));
    const msgs = isDNS1123Label(name);
    if (name && msgs.length > 0) {
      warnings?.push(`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`);
    }
  }
  return out;
}

const cronJobTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Schedule', type: 'string', description: 'The schedule in Cron format.', priority: 0 },
    { name: 'Timezone', type: 'string', description: 'The time zone name for the given schedule.', priority: 0 },
    { name: 'Suspend', type: 'boolean', description: 'Whether subsequent executions are suspended.', priority: 0 },
    { name: 'Active', type: 'integer', description: 'References to the currently running jobs.', priority: 0 },
    { name: 'Last Schedule', type: 'string', description: 'When the job was last successfully scheduled.', priority: 0 },
    AGE_COLUMN,
    { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1 },
    { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1 },
    { name: 'Selector', type: 'string', description: 'A label query over the pods that should match the pod count.', priority: 1 },
  ],
  row(obj, now) {
    const spec = specOf(obj);
    const status = statusOf(obj);
    const jobSpec = asObj(asObj(spec.jobTemplate)?.spec) ?? {};
    const [names, images] = containerCells(asObj(asObj(jobSpec.template)?.spec)?.containers);
    const last = typeof status.lastScheduleTime === 'string' ? translateTimestampSince(status.lastScheduleTime, now) : '<none>';
    return [
      obj.metadata?.name ?? '',
      typeof spec.schedule === 'string' ? spec.schedule : '',
      typeof spec.timeZone === 'string' ? spec.timeZone : '<none>',
      typeof spec.suspend === 'boolean' ? (spec.suspend ? 'True' : 'False') : '<unset>',
      Array.isArray(status.active) ? status.active.length : 0,
      last,
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(jobSpec.selector),
    ];
  },
};

/** The cronjobs resource. */
export function cronJobResource(): ResourceType {
  return {
    group: 'batch',
    version: 'v1',
    resource: 'cronjobs',
    kind: 'CronJob',
    listKind: 'CronJobList',
    singular: 'cronjob',
    shortNames: ['cj'],
    categories: ['all'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/cronjobs',
    schemaName: 'io.k8s.api.batch.v1.CronJob',
    strategy: {
      generation: true,
      defaults: defaultCronJob,
      validate: validateCronJob,
      table: cronJobTable,
    },
  };
}
