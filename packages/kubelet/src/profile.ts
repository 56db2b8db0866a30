/**
 * How simulated pods behave: delays and injected failures, from a configuration (defaults plus
 * rules selected by namespace and labels, in the spirit of kwok's Stages) and per-pod
 * annotations, which win.
 */
import { parseLabelSelector, type LabelSelector } from '@kplane/api';
import type { kinds } from '@kplane/runtime';

/** Failures a pod can be told to simulate. */
export type FailureMode = 'CrashLoopBackOff' | 'Error' | 'ImagePullBackOff' | 'ErrImagePull' | 'NotReady';

const FAILURES: readonly FailureMode[] = ['CrashLoopBackOff', 'Error', 'ImagePullBackOff', 'ErrImagePull', 'NotReady'];

/** Behaviour settings; every field optional. Delays are in milliseconds from the moment the kubelet sees the pod. */
export interface PodBehavior {
  /** When containers are running (default 100). */
  startAfterMs?: number;
  /** When the pod is Ready (default: startAfterMs, plus the largest readinessProbe.initialDelaySeconds). */
  readyAfterMs?: number;
  /** Random extra delay in [0, jitterMs) added to both (default 0). */
  jitterMs?: number;
  /** A failure to simulate. */
  fail?: FailureMode;
  /** How long containers run before they fail (CrashLoopBackOff / Error; default 1000). */
  failAfterMs?: number;
  /**
   * How long containers run before they exit. In `defaults` (and by default, 1000) it applies to
   * pods with restartPolicy Never or OnFailure only; from a rule or an annotation, to any pod
   * (a restartPolicy Always container then exits and is restarted).
   */
  runMs?: number;
  /** Old name of `runMs` (an alias). */
  completeAfterMs?: number;
  /** Exit code of containers that exit (default 0: Completed; otherwise Error). */
  exitCode?: number;
  /** First crash-loop backoff wait, doubled after each restart (default 10 000, as the kubelet). */
  backoffMs?: number;
  /** Cap of the crash-loop backoff (default 300 000, as the kubelet). */
  maxBackoffMs?: number;
  /** How long containers take to exit after SIGTERM, once preStop hooks are done (default 0). */
  stopAfterMs?: number;
}

/** One rule of the configuration: its behaviour applies to the pods it selects. */
export interface BehaviorRule extends PodBehavior {
  /** Only pods in this namespace. */
  namespace?: string;
  /** Only pods whose labels match this selector ("app=web,tier in (a,b)"). */
  selector?: string;
}

/** The kubelet's behaviour configuration (the `--config` file of `kplane kubelet`). */
export interface KubeletConfig {
  apiVersion?: string;
  kind?: string;
  /** Applies to every pod. */
  defaults?: PodBehavior;
  /** The first rule that selects a pod overrides the defaults for it. */
  rules?: BehaviorRule[];
}

/** The behaviour a pod gets, every field resolved. */
export interface PodPlan {
  startAfterMs: number;
  readyAfterMs: number;
  fail?: FailureMode;
  failAfterMs: number;
  stopAfterMs: number;
  /** Run time of the regular containers (undefined: until stopped). */
  runMs?: number;
  /** Exit code of the regular containers (undefined: 0). */
  exitCode?: number;
  /** Per-container run time and exit code (from `kplane.io/run-ms.<name>`, `kplane.io/exit-code.<name>`), init containers included. */
  containers?: Record<string, ContainerBehavior>;
  /** Crash-loop backoff (undefined: 10 000 and 300 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** One container's own run time and exit code. */
export interface ContainerBehavior {
  runMs?: number;
  exitCode?: number;
}

/** Annotation prefix of per-pod settings, e.g. `kplane.io/ready-after-ms`. */
export const ANNOTATION_PREFIX = 'kplane.io/';
/** Annotations read from pods, by the PodBehavior field they set. */
export const BEHAVIOR_ANNOTATIONS = {
  startAfterMs: 'kplane.io/start-after-ms',
  readyAfterMs: 'kplane.io/ready-after-ms',
  jitterMs: 'kplane.io/jitter-ms',
  fail: 'kplane.io/fail',
  failAfterMs: 'kplane.io/fail-after-ms',
  runMs: 'kplane.io/run-ms',
  completeAfterMs: 'kplane.io/complete-after-ms',
  exitCode: 'kplane.io/exit-code',
  stopAfterMs: 'kplane.io/stop-after-ms',
  backoffMs: 'kplane.io/backoff-ms',
  maxBackoffMs: 'kplane.io/max-backoff-ms',
} as const;

/** `kplane.io/run-ms.<container>`: how long that container runs (init containers too). */
export const RUN_MS_ANNOTATION_PREFIX = 'kplane.io/run-ms.';
/** `kplane.io/exit-code.<container>`: the exit code of that container (init containers too). */
export const EXIT_CODE_ANNOTATION_PREFIX = 'kplane.io/exit-code.';
/** Default run time of the containers of pods with restartPolicy Never or OnFailure. */
export const DEFAULT_RUN_MS = 1000;

/** Default delay before a pod's containers run. */
export const DEFAULT_START_AFTER_MS = 100;

type NumericField = Exclude<keyof PodBehavior, 'fail'>;
const NUMERIC: readonly NumericField[] = ['startAfterMs', 'readyAfterMs', 'jitterMs', 'failAfterMs', 'runMs', 'completeAfterMs', 'exitCode', 'stopAfterMs', 'backoffMs', 'maxBackoffMs'];
/** Fields that must be whole numbers in a range (others: any number >= 0). */
const RANGES: Partial<Record<NumericField, [number, number]>> = { exitCode: [0, 255] };

function valid(f: NumericField, v: number): boolean {
  if (!Number.isFinite(v) || v < 0) return false;
  const r = RANGES[f];
  return !r || (Number.isInteger(v) && v >= r[0] && v <= r[1]);
}

function checkBehavior(b: unknown, path: string): PodBehavior {
  if (b === undefined) return {};
  if (typeof b !== 'object' || b === null || Array.isArray(b)) throw new Error(`${path}: must be an object`);
  const src = b as Record<string, unknown>;
  const out: PodBehavior = {};
  for (const f of NUMERIC) {
    const v = src[f];
    if (v === undefined) continue;
    const r = RANGES[f];
    if (typeof v !== 'number' || !valid(f, v)) throw new Error(`${path}.${f}: ${r ? `must be a whole number from ${r[0]} to ${r[1]}` : 'must be a number >= 0'}`);
    out[f] = v;
  }
  if (src.fail !== undefined) {
    if (!FAILURES.includes(src.fail as FailureMode)) throw new Error(`${path}.fail: must be one of ${FAILURES.join(', ')}`);
    out.fail = src.fail as FailureMode;
  }
  return out;
}

/** A checked configuration with its selectors parsed. */
export interface CompiledConfig {
  defaults: PodBehavior;
  rules: { rule: BehaviorRule; selector?: LabelSelector }[];
}

/** Checks a configuration (parsed from YAML or JSON) and compiles its selectors; throws with the offending path. */
export function compileKubeletConfig(config: unknown = {}): CompiledConfig {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw new Error('kubelet config: must be an object');
  const c = config as KubeletConfig;
  const known = new Set(['apiVersion', 'kind', 'defaults', 'rules']);
  for (const k of Object.keys(c)) if (!known.has(k)) throw new Error(`kubelet config: unknown field "${k}"`);
  const defaults = checkBehavior(c.defaults, 'defaults');
  if (c.rules !== undefined && !Array.isArray(c.rules)) throw new Error('rules: must be a list');
  const rules = (c.rules ?? []).map((r, i) => {
    const rule: BehaviorRule = { ...checkBehavior(r, `rules[${i}]`) };
    if (r.namespace !== undefined) {
      if (typeof r.namespace !== 'string') throw new Error(`rules[${i}].namespace: must be a string`);
      rule.namespace = r.namespace;
    }
    let selector: LabelSelector | undefined;
    if (r.selector !== undefined) {
      if (typeof r.selector !== 'string') throw new Error(`rules[${i}].selector: must be a label selector string`);
      rule.selector = r.selector;
      try {
        selector = parseLabelSelector(r.selector);
      } catch (err) {
        throw new Error(`rules[${i}].selector: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return { rule, selector };
  });
  return { defaults, rules };
}

function fromAnnotations(annotations: Record<string, string> | undefined): PodBehavior {
  const out: PodBehavior = {};
  if (!annotations) return out;
  for (const f of NUMERIC) {
    const raw = annotations[BEHAVIOR_ANNOTATIONS[f]];
    if (raw === undefined) continue;
    const v = Number(raw);
    if (raw.trim() !== '' && valid(f, v)) out[f] = v;
  }
  const fail = annotations[BEHAVIOR_ANNOTATIONS.fail];
  if (fail !== undefined && FAILURES.includes(fail as FailureMode)) out.fail = fail as FailureMode;
  return out;
}

/** The largest readinessProbe.initialDelaySeconds of a pod's containers, in ms. */
function readinessDelayMs(pod: kinds.Pod): number {
  let max = 0;
  for (const c of pod.spec?.containers ?? []) max = Math.max(max, (c.readinessProbe?.initialDelaySeconds ?? 0) * 1000);
  return max;
}

/**
 * Resolves the behaviour of one pod: defaults, then the first matching rule, then the pod's
 * annotations. `random` (in [0, 1)) draws the jitter.
 */
export function planFor(pod: kinds.Pod, config: CompiledConfig, random: () => number = Math.random): PodPlan {
  const ns = pod.metadata?.namespace;
  const labels = pod.metadata?.labels;
  const rule = config.rules.find(({ rule: r, selector }) => (r.namespace === undefined || r.namespace === ns) && (!selector || selector.matches(labels)));
  const ruled = stripSelection(rule?.rule);
  const annotated = fromAnnotations(pod.metadata?.annotations);
  const b: PodBehavior = { ...config.defaults, ...ruled, ...annotated };
  const jitter = b.jitterMs ? Math.floor(random() * b.jitterMs) : 0;
  const startAfterMs = (b.startAfterMs ?? DEFAULT_START_AFTER_MS) + jitter;
  const readyAfterMs = Math.max(startAfterMs, b.readyAfterMs !== undefined ? b.readyAfterMs + jitter : startAfterMs + readinessDelayMs(pod));
  const plan: PodPlan = { startAfterMs, readyAfterMs, failAfterMs: b.failAfterMs ?? 1000, stopAfterMs: b.stopAfterMs ?? 0 };
  if (b.fail) plan.fail = b.fail;
  const completes = pod.spec?.restartPolicy === 'Never' || pod.spec?.restartPolicy === 'OnFailure';
  const runMs =
    annotated.runMs ?? annotated.completeAfterMs ?? ruled.runMs ?? ruled.completeAfterMs ?? (completes ? (config.defaults.runMs ?? config.defaults.completeAfterMs ?? DEFAULT_RUN_MS) : undefined);
  if (runMs !== undefined) plan.runMs = runMs;
  if (b.exitCode !== undefined) plan.exitCode = b.exitCode;
  if (b.backoffMs !== undefined) plan.backoffMs = b.backoffMs;
  if (b.maxBackoffMs !== undefined) plan.maxBackoffMs = b.maxBackoffMs;
  const containers = containerAnnotations(pod);
  if (containers) plan.containers = containers;
  return plan;
}

/** The per-container `kplane.io/run-ms.<name>` and `kplane.io/exit-code.<name>` annotations of a pod. */
function containerAnnotations(pod: kinds.Pod): Record<string, ContainerBehavior> | undefined {
  let out: Record<string, ContainerBehavior> | undefined;
  for (const [k, raw] of Object.entries(pod.metadata?.annotations ?? {})) {
    const field: NumericField | undefined = k.startsWith(RUN_MS_ANNOTATION_PREFIX) ? 'runMs' : k.startsWith(EXIT_CODE_ANNOTATION_PREFIX) ? 'exitCode' : undefined;
    if (!field) continue;
    const name = k.slice((field === 'runMs' ? RUN_MS_ANNOTATION_PREFIX : EXIT_CODE_ANNOTATION_PREFIX).length);
    const v = Number(raw);
    if (!name || raw.trim() === '' || !valid(field, v)) continue;
    out ??= {};
    (out[name] ??= {})[field] = v;
  }
  return out;
}

function stripSelection(rule: BehaviorRule | undefined): PodBehavior {
  if (!rule) return {};
  const { namespace: _n, selector: _s, ...rest } = rule;
  return rest;
}
