/**
 * batch/v1 jobs: defaults (pkg/apis/batch/v1/defaults.go), the generated selector and labels
 * added on create, validation (pkg/apis/batch/validation), Table columns and the status
 * subresource.
 */
import {
  fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, fieldTooMany, isDNS1123Subdomain, labelSelectorFromObject, validateAnnotations, validateLabels,
  validateLabelSelector, FIELD_IMMUTABLE_ERROR_MSG, type KubeObject, type LabelSelectorObject, type StatusCause,
} from '@kplane/api';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { humanDuration, translateTimestampSince } from './age.js';
import { defaultPodSpec } from './pod-defaults.js';
import { validatePodSpec } from './pod-validation.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, child, containerCells, formatLabelSelector, goLabelSelector, goStringMap, invalidRendered, objs, semanticEqual, setDefault, str, type Obj } from './util.js';

/** The label the generated selector selects on (batch.kubernetes.io/controller-uid). */
export const JOB_CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
/** The label naming the Job on its pods. */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
/** The labels older Kubernetes releases set, still set alongside the new ones. */
export const LEGACY_JOB_LABELS = { controllerUid: 'controller-uid', jobName: 'job-name' } as const;

/** The most completions (and parallelism) of an Indexed Job. */
const MAX_INDEXED_COMPLETIONS = 100_000;
/** The most failed indexes maxFailedIndexes may allow. */
const MAX_FAILED_INDEXES = 100_000;
/** The most podFailurePolicy rules. */
const MAX_POD_FAILURE_POLICY_RULES = 20;
/** The most exit codes in one onExitCodes requirement. */
const MAX_EXIT_CODES = 255;
/** The most successPolicy rules. */
const MAX_SUCCESS_POLICY_RULES = 20;

const specOf = (obj: KubeObject): Obj => (asObj(obj.spec) ?? {}) as Obj;
const statusOf = (obj: KubeObject): Obj => (asObj(obj.status) ?? {}) as Obj;

/** SetDefaults_Job. */
export function defaultJob(obj: KubeObject): void {
  const spec = child(obj as Obj, 'spec');
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  if (spec.backoffLimit === undefined) spec.backoffLimit = spec.backoffLimitPerIndex !== undefined ? 2147483647 : 6;
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'manualSelector', false);
  const pfp = asObj(spec.podFailurePolicy);
  for (const rule of objs(pfp?.rules)) for (const pattern of objs(rule.onPodConditions)) setDefault(pattern, 'status', 'True');
  setDefault(spec, 'podReplacementPolicy', pfp ? 'Failed' : 'TerminatingOrFailed');
  const template = child(spec, 'template');
  defaultPodSpec(child(template, 'spec'));
  copyTemplateLabels(obj);
}

/** A Job without labels takes its template's (SetDefaults_Job). */
function copyTemplateLabels(obj: KubeObject): void {
  const labels = asObj(asObj(asObj(specOf(obj).template)?.metadata)?.labels);
  const meta = obj.metadata ?? (obj.metadata = {});
  if (labels && Object.keys(labels).length > 0 && Object.keys(meta.labels ?? {}).length === 0) meta.labels = { ...(labels as Record<string, string>) };
}

/** generateSelector: unless manualSelector, the pod template gets the job-name and controller-uid labels and the selector selects the uid. */
export function generateJobSelector(obj: KubeObject): void {
  const spec = child(obj as Obj, 'spec');
  if (spec.manualSelector === true) return;
  const name = obj.metadata?.name ?? '';
  const uid = obj.metadata?.uid ?? '';
  const labels = child(child(child(spec, 'template'), 'metadata'), 'labels') as Record<string, unknown>;
  for (const key of [LEGACY_JOB_LABELS.jobName, JOB_NAME_LABEL]) if (!Object.hasOwn(labels, key)) labels[key] = name;
  for (const key of [LEGACY_JOB_LABELS.controllerUid, JOB_CONTROLLER_UID_LABEL]) if (!Object.hasOwn(labels, key)) labels[key] = uid;
  const matchLabels = child(child(spec, 'selector'), 'matchLabels');
  if (!Object.hasOwn(matchLabels, JOB_CONTROLLER_UID_LABEL)) matchLabels[JOB_CONTROLLER_UID_LABEL] = uid;
}

/** ValidateGeneratedSelector: a generated selector and labels must name this Job. */
function validateGeneratedSelector(obj: KubeObject): StatusCause[] {
  const spec = specOf(obj);
  if (spec.manualSelector === true || !asObj(spec.selector)) return [];
  const out: StatusCause[] = [];
  const uid = obj.metadata?.uid ?? '';
  const name = obj.metadata?.name ?? '';
  if (!uid) out.push(fieldRequired('metadata.uid'));
  const labels = (asObj(asObj(asObj(spec.template)?.metadata)?.labels) ?? {}) as Record<string, string>;
  const hasLabel = (key: string, value: string): void => {
    if (!Object.hasOwn(labels, key)) out.push(fieldRequired(`spec.template.metadata.labels[${key}]`));
    else if (labels[key] !== value) out.push(fieldInvalid(`spec.template.metadata.labels[${key}]`, labels[key], `must be '${value}'`));
  };
  hasLabel(LEGACY_JOB_LABELS.controllerUid, uid);
  hasLabel(LEGACY_JOB_LABELS.jobName, name);
  hasLabel(JOB_CONTROLLER_UID_LABEL, uid);
  hasLabel(JOB_NAME_LABEL, name);
  try {
    const sel = labelSelectorFromObject(spec.selector as LabelSelectorObject);
    if (!sel.matches({ [JOB_CONTROLLER_UID_LABEL]: uid, [JOB_NAME_LABEL]: name, [LEGACY_JOB_LABELS.controllerUid]: uid, [LEGACY_JOB_LABELS.jobName]: name })) {
      out.push(invalidRendered('spec.selector', goLabelSelector(spec.selector), '`selector` not auto-generated'));
    }
  } catch {
    // Reported by the selector's own validation.
  }
  return out;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** validatePodFailurePolicy: rule count, one of onExitCodes / onPodConditions, exit-code lists. */
function validatePodFailurePolicy(spec: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const rules = objs(asObj(spec.podFailurePolicy)?.rules);
  if (rules.length > MAX_POD_FAILURE_POLICY_RULES) out.push(fieldTooMany(`${path}.rules`, rules.length, MAX_POD_FAILURE_POLICY_RULES));
  const actions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
  const containers = new Set(
    [...objs(asObj(asObj(spec.template)?.spec)?.containers), ...objs(asObj(asObj(spec.template)?.spec)?.initContainers)].map((c) => str(c.name)),
  );
  rules.forEach((rule, i) => {
    const rp = `${path}.rules[${i}]`;
    if (!actions.includes(str(rule.action))) out.push(fieldNotSupported(`${rp}.action`, rule.action ?? '', actions));
    else if (rule.action === 'FailIndex' && spec.backoffLimitPerIndex === undefined) {
      out.push(fieldInvalid(`${rp}.action`, rule.action, 'requires the backoffLimitPerIndex to be set'));
    }
    const codes = asObj(rule.onExitCodes);
    const conds = Array.isArray(rule.onPodConditions) ? objs(rule.onPodConditions) : undefined;
    if (codes && conds !== undefined) out.push(fieldInvalid(rp, '', 'specifying both OnExitCodes and OnPodConditions is not supported'));
    else if (!codes && conds === undefined) out.push(fieldInvalid(rp, '', 'specifying one of OnExitCodes and OnPodConditions is required'));
    if (codes) {
      const cp = `${rp}.onExitCodes`;
      if (codes.containerName !== undefined && !containers.has(str(codes.containerName))) {
        out.push(fieldInvalid(`${cp}.containerName`, codes.containerName, 'must be one of the container or initContainer names in the pod template'));
      }
      if (codes.operator !== 'In' && codes.operator !== 'NotIn') out.push(fieldNotSupported(`${cp}.operator`, codes.operator ?? '', ['In', 'NotIn']));
      const values = Array.isArray(codes.values) ? codes.values : [];
      if (values.length === 0) out.push(fieldInvalid(`${cp}.values`, values, 'at least one value is required'));
      if (values.length > MAX_EXIT_CODES) out.push(fieldTooMany(`${cp}.values`, values.length, MAX_EXIT_CODES));
      let prev: number | undefined;
      values.forEach((v, j) => {
        if (codes.operator === 'In' && v === 0) out.push(fieldInvalid(`${cp}.values[${j}]`, v, 'must not be 0 for the In operator'));
        if (prev !== undefined && typeof v === 'number') {
          if (v === prev) out.push(fieldDuplicate(`${cp}.values[${j}]`, v));
          else if (v < prev) out.push(fieldInvalid(`${cp}.values[${j}]`, v, 'must be ordered'));
        }
        if (typeof v === 'number') prev = v;
      });
    }
    (conds ?? []).forEach((c, j) => {
      const pp = `${rp}.onPodConditions[${j}]`;
      if (!str(c.type)) out.push(fieldRequired(`${pp}.type`));
      if (!['True', 'False', 'Unknown'].includes(str(c.status))) out.push(fieldNotSupported(`${pp}.status`, c.status ?? '', ['True', 'False', 'Unknown']));
    });
  });
  return out;
}

/** Parses "1,3-5" index intervals; undefined when malformed or out of [0, completions). */
export function parseIndexIntervals(s: string, completions: number): number[][] | undefined {
  if (s === '') return [];
  const out: number[][] = [];
  for (const part of s.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return undefined;
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a || b >= completions) return undefined;
    const last = out.at(-1);
    if (last && a <= last[1]) return undefined;
    out.push([a, b]);
  }
  return out;
}

/** validateSuccessPolicy: Indexed only; each rule sets succeededIndexes and/or succeededCount within bounds. */
function validateSuccessPolicy(spec: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const sp = asObj(spec.successPolicy)!;
  if (spec.completionMode !== 'Indexed') out.push(fieldInvalid('spec.completionMode', spec.completionMode, 'requires indexed completion mode'));
  const rules = objs(sp.rules);
  if (rules.length === 0) out.push(fieldRequired(`${path}.rules`, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) out.push(fieldTooMany(`${path}.rules`, rules.length, MAX_SUCCESS_POLICY_RULES));
  const completions = isInt(spec.completions) ? spec.completions : 0;
  rules.forEach((rule, i) => {
    const rp = `${path}.rules[${i}]`;
    if (rule.succeededIndexes === undefined && rule.succeededCount === undefined) {
      out.push(fieldRequired(rp, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    let indexes = completions;
    if (rule.succeededIndexes !== undefined) {
      const parsed = parseIndexIntervals(str(rule.succeededIndexes), completions);
      if (!parsed) out.push(fieldInvalid(`${rp}.succeededIndexes`, rule.succeededIndexes, 'error parsing succeededIndexes'));
      else indexes = parsed.reduce((n, [a, b]) => n + b - a + 1, 0);
    }
    const count = rule.succeededCount;
    if (isInt(count)) {
      if (count < 0) out.push(fieldInvalid(`${rp}.succeededCount`, count, 'must be greater than or equal to 0'));
      if (count > completions) out.push(fieldInvalid(`${rp}.succeededCount`, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      else if (rule.succeededIndexes !== undefined && count > indexes) {
        out.push(fieldInvalid(`${rp}.succeededCount`, count, `must be less than or equal to ${indexes} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
  return out;
}

/** validateJobSpec (also used for a CronJob's job template). */
export function validateJobSpec(spec: Obj, path = 'spec'): StatusCause[] {
  const out: StatusCause[] = [];
  for (const k of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'backoffLimitPerIndex', 'maxFailedIndexes', 'ttlSecondsAfterFinished']) {
    const v = spec[k];
    if (isInt(v) && v < 0) out.push(fieldInvalid(`${path}.${k}`, v, 'must be greater than or equal to 0'));
  }
  const mode = spec.completionMode;
  if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') out.push(fieldNotSupported(`${path}.completionMode`, mode, ['NonIndexed', 'Indexed']));
  if (mode === 'Indexed') {
    if (spec.completions === undefined) out.push(fieldRequired(`${path}.completions`, 'when completion mode is Indexed'));
    else if (isInt(spec.completions) && spec.completions > MAX_INDEXED_COMPLETIONS) {
      out.push(fieldInvalid(`${path}.completions`, spec.completions, `must be less than or equal to ${MAX_INDEXED_COMPLETIONS} when completion mode is Indexed`));
    }
    if (isInt(spec.parallelism) && spec.parallelism > MAX_INDEXED_COMPLETIONS) {
      out.push(fieldInvalid(`${path}.parallelism`, spec.parallelism, `must be less than or equal to ${MAX_INDEXED_COMPLETIONS} when completion mode is Indexed`));
    }
  }
  if (spec.backoffLimitPerIndex !== undefined && mode !== 'Indexed') {
    out.push(fieldInvalid(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, 'requires indexed completion mode'));
  }
  if (spec.maxFailedIndexes !== undefined) {
    if (spec.backoffLimitPerIndex === undefined) out.push(fieldRequired(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
    if (isInt(spec.maxFailedIndexes) && isInt(spec.completions) && spec.maxFailedIndexes > spec.completions) {
      out.push(fieldInvalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, 'must be less than or equal to completions'));
    }
    if (isInt(spec.maxFailedIndexes) && spec.maxFailedIndexes > MAX_FAILED_INDEXES) {
      out.push(fieldInvalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, `must be less than or equal to ${MAX_FAILED_INDEXES}`));
    }
  }
  if (typeof spec.managedBy === 'string') out.push(...validateManagedBy(spec.managedBy, `${path}.managedBy`));
  const prp = spec.podReplacementPolicy;
  if (prp !== undefined) {
    if (prp !== 'TerminatingOrFailed' && prp !== 'Failed') out.push(fieldNotSupported(`${path}.podReplacementPolicy`, prp, ['Failed', 'TerminatingOrFailed']));
    else if (spec.podFailurePolicy !== undefined && prp !== 'Failed') out.push(fieldNotSupported(`${path}.podReplacementPolicy`, prp, ['Failed']));
  }
  if (asObj(spec.podFailurePolicy)) out.push(...validatePodFailurePolicy(spec, `${path}.podFailurePolicy`));
  if (asObj(spec.successPolicy)) out.push(...validateSuccessPolicy(spec, `${path}.successPolicy`));
  const template = asObj(spec.template) ?? {};
  const tmeta = asObj(template.metadata) ?? {};
  out.push(...validateLabels(tmeta.labels as Record<string, string> | undefined, `${path}.template.metadata.labels`));
  out.push(...validateAnnotations(tmeta.annotations as Record<string, string> | undefined, `${path}.template.metadata.annotations`));
  const podSpec = (asObj(template.spec) ?? {}) as Obj;
  out.push(...validatePodSpec(podSpec, `${path}.template.spec`));
  const restart = podSpec.restartPolicy;
  if (restart !== 'OnFailure' && restart !== 'Never') out.push(fieldNotSupported(`${path}.template.spec.restartPolicy`, restart ?? '', ['OnFailure', 'Never']));
  else if ((spec.podFailurePolicy !== undefined || spec.backoffLimitPerIndex !== undefined) && restart !== 'Never') {
    out.push(fieldNotSupported(`${path}.template.spec.restartPolicy`, restart, ['Never']));
  }
  return out;
}

/** managedBy: a domain-prefixed path ("example.com/controller") of at most 63 characters. */
function validateManagedBy(v: string, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const slash = v.indexOf('/');
  if (slash <= 0 || slash === v.length - 1) out.push(fieldInvalid(path, v, 'must be a domain-prefixed path (such as "acme.io/foo")'));
  else {
    const host = v.slice(0, slash);
    for (const msg of isDNS1123Subdomain(host)) out.push(fieldInvalid(path, host, msg));
    const rest = v.slice(slash + 1);
    if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(rest)) {
      out.push(fieldInvalid(path, rest, "Invalid path: a valid path must match the regex '[A-Za-z0-9/\\-._~%!$&\\'()*+,;=:]+'"));
    }
  }
  if (v.length > 63) out.push(fieldTooLong(path, 63));
  return out;
}

/** ValidateJobSpec: validateJobSpec plus the selector (required, valid, matching the template). */
function validateJobSpecWithSelector(spec: Obj): StatusCause[] {
  const out = validateJobSpec(spec);
  const selector = asObj(spec.selector) as LabelSelectorObject | undefined;
  if (!selector) return [...out, fieldRequired('spec.selector')];
  out.push(...validateLabelSelector(selector, 'spec.selector'));
  try {
    const sel = labelSelectorFromObject(selector);
    const labels = asObj(asObj(asObj(spec.template)?.metadata)?.labels) as Record<string, string> | undefined;
    if (!sel.matches(labels)) out.push(invalidRendered('spec.template.metadata.labels', goStringMap(labels), '`selector` does not match template `labels`'));
  } catch {
    // Reported above.
  }
  return out;
}

/** What may change in the template of a suspended Job that never started (the scheduling directives). */
const MUTABLE_WHILE_SUSPENDED = ['nodeSelector', 'affinity', 'tolerations', 'schedulingGates'];

function templateWithoutSchedulingDirectives(template: unknown): Obj {
  const t = structuredClone((asObj(template) ?? {}) as Obj);
  const meta = asObj(t.metadata);
  if (meta) {
    delete meta.labels;
    delete meta.annotations;
  }
  const spec = asObj(t.spec);
  if (spec) for (const k of MUTABLE_WHILE_SUSPENDED) delete spec[k];
  return t;
}

/** ValidateJobSpecUpdate: completions, selector and template immutable (with kube's exceptions). */
function validateJobUpdate(obj: KubeObject, old: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  if (spec.completions !== oldSpec.completions) {
    // Elastic Indexed Jobs: completions may change together with parallelism, kept equal.
    const elastic = spec.completionMode === 'Indexed' && spec.completions === spec.parallelism && oldSpec.completions === oldSpec.parallelism;
    if (!elastic) out.push(fieldInvalid('spec.completions', spec.completions ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  }
  if (!semanticEqual(spec.selector, oldSpec.selector)) out.push(invalidRendered('spec.selector', goLabelSelector(spec.selector), FIELD_IMMUTABLE_ERROR_MSG));
  if (!semanticEqual(spec.template, oldSpec.template)) {
    const neverStarted = !statusOf(old).startTime && oldSpec.suspend === true;
    if (!neverStarted || !semanticEqual(templateWithoutSchedulingDirectives(spec.template), templateWithoutSchedulingDirectives(oldSpec.template))) {
      out.push(fieldInvalid('spec.template', JSON.stringify(spec.template), FIELD_IMMUTABLE_ERROR_MSG));
    }
  }
  for (const k of ['completionMode', 'backoffLimitPerIndex', 'managedBy']) {
    if (spec[k] !== oldSpec[k]) out.push(fieldInvalid(`spec.${k}`, spec[k] ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  }
  for (const k of ['podFailurePolicy', 'successPolicy']) {
    if (!semanticEqual(spec[k], oldSpec[k])) out.push(fieldInvalid(`spec.${k}`, JSON.stringify(spec[k] ?? null), FIELD_IMMUTABLE_ERROR_MSG));
  }
  return out;
}

/** ValidateJobStatus: the counters are never negative. */
function validateJobStatus(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const status = statusOf(obj);
  for (const k of ['active', 'succeeded', 'failed', 'ready', 'terminating']) {
    const v = status[k];
    if (isInt(v) && v < 0) out.push(fieldInvalid(`status.${k}`, v, 'must be greater than or equal to 0'));
  }
  return out;
}

const hasCondition = (obj: KubeObject, type: string): boolean => objs(statusOf(obj).conditions).some((c) => c.type === type && c.status === 'True');

/** The STATUS cell of `kubectl get jobs`. */
export function jobStatusCell(obj: KubeObject): string {
  if (hasCondition(obj, 'Complete')) return 'Complete';
  if (hasCondition(obj, 'Failed')) return 'Failed';
  if (obj.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(obj, 'Suspended')) return 'Suspended';
  if (hasCondition(obj, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(obj, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** The COMPLETIONS cell: "succeeded/completions", "n/1 of parallelism" for work queues. */
export function jobCompletionsCell(obj: KubeObject): string {
  const spec = specOf(obj);
  const succeeded = isInt(statusOf(obj).succeeded) ? statusOf(obj).succeeded : 0;
  if (isInt(spec.completions)) return `${succeeded}/${spec.completions}`;
  const parallelism = isInt(spec.parallelism) ? spec.parallelism : 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** The DURATION cell: start to completion, or to now while running; empty before the start. */
export function jobDurationCell(obj: KubeObject, now: Date): string {
  const status = statusOf(obj);
  const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : NaN;
  if (Number.isNaN(start)) return '';
  const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : now.getTime();
  return humanDuration(end - start);
}

const jobTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'Status of the job.', priority: 0 },
    { name: 'Completions', type: 'string', description: 'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.', priority: 0 },
    { name: 'Duration', type: 'string', description: 'Time required to complete the job.', priority: 0 },
    AGE_COLUMN,
    { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1 },
    { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1 },
    { name: 'Selector', type: 'string', description: 'A label query over pods that should match the pod count.', priority: 1 },
  ],
  row(obj, now) {
    const spec = specOf(obj);
    const [names, images] = containerCells(asObj(asObj(spec.template)?.spec)?.containers);
    return [
      obj.metadata?.name ?? '',
      jobStatusCell(obj),
      jobCompletionsCell(obj),
      jobDurationCell(obj, now),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

/** The jobs resource (batch/v1). */
export function jobResource(): ResourceType {
  return {
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    kind: 'Job',
    listKind: 'JobList',
    singular: 'job',
    categories: ['all'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/jobs',
    schemaName: 'io.k8s.api.batch.v1.Job',
    strategy: {
      generation: true,
      defaults: defaultJob,
      admitCreate(obj) {
        // The uid is known here: generate the selector and labels before validation (as kube's PrepareForCreate).
        generateJobSelector(obj);
        copyTemplateLabels(obj);
      },
      validate(obj, old, _warnings, req) {
        if (req?.subresource === 'status') return validateJobStatus(obj);
        if (old) return [...validateJobSpecWithSelector(specOf(obj)), ...validateJobUpdate(obj, old)];
        return [...validateGeneratedSelector(obj), ...validateJobSpecWithSelector(specOf(obj))];
      },
      table: jobTable,
      fieldSelectors: { 'status.successful': (o) => String(isInt(statusOf(o).succeeded) ? statusOf(o).succeeded : 0) },
    },
  };
}
