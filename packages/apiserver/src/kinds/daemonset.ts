/**
 * apps/v1 daemonsets: defaults (pkg/apis/apps/v1/defaults.go), validation (pkg/apis/apps/validation),
 * the template generation kube-apiserver keeps in the `deprecated.daemonset.template.generation`
 * annotation, Table columns and the status subresource (no scale).
 */
import {
  fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, goQuote, labelSelectorFromObject, validateLabelSelector,
  FIELD_IMMUTABLE_ERROR_MSG, type KubeObject, type LabelSelectorObject, type StatusCause,
} from '@kplane/api';
import type { ResourceType, TableSpec } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { defaultPodSpec } from './pod-defaults.js';
import { validatePodSpec } from './pod-validation.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import {
  STANDARD_VERBS, asObj, child, containerCells, formatLabelSelector, formatLabels, goLabelSelector, goStringMap, invalidRendered, num, semanticEqual, setDefault, type Obj,
} from './util.js';

/** The annotation carrying a DaemonSet's template generation (apps/v1 DeprecatedTemplateGeneration). */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

const PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
const NONNEGATIVE_MSG = 'must be greater than or equal to 0';

function specOf(obj: KubeObject): Obj {
  return (asObj(obj.spec) ?? {}) as Obj;
}

/** Go's %#v of an intstr.IntOrString value, as validation messages print it. */
function goIntOrString(v: unknown): string {
  if (typeof v === 'string') return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`;
  return `intstr.IntOrString{Type:0, IntVal:${typeof v === 'number' ? v : 0}, StrVal:""}`;
}

/** The value of an int-or-percent ("25%" → 25, 3 → 3; an invalid percent → 0), as getIntOrPercentValue. */
function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^[0-9]+%$/.test(v)) return parseInt(v, 10);
  return 0;
}

/** ValidatePositiveIntOrPercent and IsNotMoreThan100Percent of one field. */
function validateIntOrPercent(v: unknown, path: string): StatusCause[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') {
    if (!/^[0-9]+%$/.test(v)) return [invalidRendered(path, goIntOrString(v), PERCENT_MSG)];
    return parseInt(v, 10) > 100 ? [invalidRendered(path, goIntOrString(v), 'must not be greater than 100%')] : [];
  }
  return typeof v === 'number' && v < 0 ? [fieldInvalid(path, v, NONNEGATIVE_MSG)] : [];
}

/** ValidateDaemonSetUpdateStrategy. */
function validateUpdateStrategy(spec: Obj): StatusCause[] {
  const strategy = (asObj(spec.updateStrategy) ?? {}) as Obj;
  const type = strategy.type;
  if (type === 'OnDelete') return [];
  if (type !== 'RollingUpdate') {
    const ru = strategy.rollingUpdate ? '(*apps.RollingUpdateDaemonSet)(0xc000000000)' : '(*apps.RollingUpdateDaemonSet)(nil)';
    return [
      {
        ...fieldNotSupported('spec.updateStrategy', '', ['RollingUpdate', 'OnDelete']),
        message: `Unsupported value: apps.DaemonSetUpdateStrategy{Type:${goQuote(String(type ?? ''))}, RollingUpdate:${ru}}: supported values: "RollingUpdate", "OnDelete"`,
      },
    ];
  }
  const ru = asObj(strategy.rollingUpdate);
  if (!ru) return [fieldRequired('spec.updateStrategy.rollingUpdate')];
  const base = 'spec.updateStrategy.rollingUpdate';
  const out = [...validateIntOrPercent(ru.maxUnavailable, `${base}.maxUnavailable`), ...validateIntOrPercent(ru.maxSurge, `${base}.maxSurge`)];
  const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
  const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
  if (hasUnavailable && hasSurge) out.push(invalidRendered(`${base}.maxSurge`, goIntOrString(ru.maxSurge), 'may not be set when maxUnavailable is non-zero'));
  else if (!hasUnavailable && !hasSurge) out.push(fieldRequired(`${base}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  return out;
}

/** ValidateDaemonSetSpec. */
function validateSpec(spec: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  const selector = asObj(spec.selector) as LabelSelectorObject | undefined;
  if (selector) out.push(...validateLabelSelector(selector, 'spec.selector'));
  const template = asObj(spec.template) ?? {};
  let parsed: ReturnType<typeof labelSelectorFromObject> | undefined;
  try {
    parsed = labelSelectorFromObject(selector);
  } catch {
    parsed = undefined;
  }
  const labels = asObj(asObj(template.metadata)?.labels) as Record<string, string> | undefined;
  // A missing selector selects nothing, so no template matches it.
  if (parsed && !parsed.matches(labels)) {
    out.push(invalidRendered('spec.template.metadata.labels', goStringMap(labels), '`selector` does not match template `labels`'));
  }
  if (selector && Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0) {
    out.push(invalidRendered('spec.selector', goLabelSelector(selector), 'empty selector is invalid for daemonset'));
  }
  const podSpec = (asObj(template.spec) ?? {}) as Obj;
  out.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  const restart = podSpec.restartPolicy;
  if (restart !== 'Always') out.push(fieldNotSupported('spec.template.spec.restartPolicy', restart ?? '', ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    out.push(fieldForbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  if (typeof spec.minReadySeconds === 'number' && spec.minReadySeconds < 0) out.push(fieldInvalid('spec.minReadySeconds', spec.minReadySeconds, NONNEGATIVE_MSG));
  out.push(...validateUpdateStrategy(spec));
  if (typeof spec.revisionHistoryLimit === 'number' && spec.revisionHistoryLimit < 0) {
    out.push(fieldInvalid('spec.revisionHistoryLimit', spec.revisionHistoryLimit, NONNEGATIVE_MSG));
  }
  return out;
}

const STATUS_COUNTERS = [
  'currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount',
];

/** ValidateDaemonSetStatusUpdate: every counter ≥ 0, collisionCount never decremented. */
function validateStatus(obj: KubeObject, old: KubeObject): StatusCause[] {
  const status = (asObj(obj.status) ?? {}) as Obj;
  const out: StatusCause[] = [];
  for (const k of STATUS_COUNTERS) {
    const v = status[k];
    if (typeof v === 'number' && v < 0) out.push(fieldInvalid(`status.${k}`, v, NONNEGATIVE_MSG));
  }
  const before = asObj(old.status)?.collisionCount;
  if (typeof before === 'number' && num(status.collisionCount) < before) {
    out.push(fieldInvalid('status.collisionCount', num(status.collisionCount), 'cannot be decremented'));
  }
  return out;
}

/** The template generation recorded in the annotation (0 when absent or not a number). */
function templateGeneration(obj: KubeObject): number {
  const v = obj.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return v !== undefined && /^[0-9]+$/.test(v) ? Number(v) : 0;
}

function setTemplateGeneration(obj: KubeObject, generation: number): void {
  const m = (obj.metadata ??= {});
  m.annotations = { ...(m.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: String(generation) };
}

const daemonSetTable: TableSpec = {
  columns: [
    NAME_COLUMN,
    { name: 'Desired', type: 'integer', description: 'Nodes that should run the daemon pod.', priority: 0 },
    { name: 'Current', type: 'integer', description: 'Nodes running at least one daemon pod that should.', priority: 0 },
    { name: 'Ready', type: 'integer', description: 'Nodes whose daemon pod is ready.', priority: 0 },
    { name: 'Up-to-date', type: 'integer', description: 'Nodes running the updated daemon pod.', priority: 0 },
    { name: 'Available', type: 'integer', description: 'Nodes whose daemon pod has been ready for minReadySeconds.', priority: 0 },
    { name: 'Node Selector', type: 'string', description: "The template's nodeSelector.", priority: 0 },
    AGE_COLUMN,
    { name: 'Containers', type: 'string', description: 'Names of each container in the template.', priority: 1 },
    { name: 'Images', type: 'string', description: 'Images referenced by each container in the template.', priority: 1 },
    { name: 'Selector', type: 'string', description: 'Label query over the pods the daemon set controls.', priority: 1 },
  ],
  row(obj, now) {
    const spec = specOf(obj);
    const status = (asObj(obj.status) ?? {}) as Obj;
    const podSpec = asObj(asObj(spec.template)?.spec);
    const [names, images] = containerCells(podSpec?.containers);
    return [
      obj.metadata?.name ?? '',
      num(status.desiredNumberScheduled),
      num(status.currentNumberScheduled),
      num(status.numberReady),
      num(status.updatedNumberScheduled),
      num(status.numberAvailable),
      formatLabels(podSpec?.nodeSelector),
      translateTimestampSince(obj.metadata?.creationTimestamp, now),
      names,
      images,
      formatLabelSelector(spec.selector),
    ];
  },
};

/** The daemonsets resource. */
export function daemonSetResource(): ResourceType {
  return {
    group: 'apps',
    version: 'v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    listKind: 'DaemonSetList',
    singular: 'daemonset',
    shortNames: ['ds'],
    categories: ['all'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    subresources: { status: true },
    storagePrefix: '/registry/daemonsets',
    schemaName: 'io.k8s.api.apps.v1.DaemonSet',
    strategy: {
      generation: true,
      defaults(obj) {
        const spec = child(obj as Obj, 'spec');
        const strategy = child(spec, 'updateStrategy');
        setDefault(strategy, 'type', 'RollingUpdate');
        if (strategy.type === 'RollingUpdate') {
          const ru = child(strategy, 'rollingUpdate');
          setDefault(ru, 'maxUnavailable', 1);
          setDefault(ru, 'maxSurge', 0);
        }
        setDefault(spec, 'revisionHistoryLimit', 10);
        defaultPodSpec(child(child(spec, 'template'), 'spec'));
      },
      admitCreate(obj) {
        // PrepareForCreate: the template generation starts at 1.
        if (templateGeneration(obj) < 1) setTemplateGeneration(obj, 1);
      },
      admitUpdate(obj, old, req) {
        // PrepareForUpdate: the generation is the server's, bumped when the template changes.
        const before = templateGeneration(old);
        const changed = req.subresource === '' && !semanticEqual(asObj(obj.spec)?.template, asObj(old.spec)?.template);
        if (before > 0 || changed) setTemplateGeneration(obj, before + (changed ? 1 : 0));
      },
      validate(obj, old, _warnings, req) {
        if (old && req?.subresource === 'status') return validateStatus(obj, old);
        const out = validateSpec(specOf(obj));
        if (old && !semanticEqual(specOf(obj).selector, specOf(old).selector)) {
          out.push(invalidRendered('spec.selector', goLabelSelector(specOf(obj).selector), FIELD_IMMUTABLE_ERROR_MSG));
        }
        return out;
      },
      table: daemonSetTable,
    },
  };
}
