/**
 * Per-version facts of pods and ReplicaSets, memoised on the cached (frozen) objects: whether a
 * pod is active and ready, whether a ReplicaSet's selector matches it and whether it carries the
 * template's labels. A sync or a tally then pays for a selector match once per pod version.
 */
import { labelSelectorFromObject, type LabelSelector } from '@kplane/api';
import type { Pod, ReplicaSet } from '@kplane/runtime';
import { isPodActive, isPodReady } from './pods.js';

/** What a ReplicaSet needs to know of one version of a pod, kept per cached object (those are frozen). */
export interface PodFacts {
  active: boolean;
  ready: boolean;
  /** The last selector (by its JSON) tested against the pod's labels, and the answer. */
  selectorKey?: string;
  selectorMatch?: boolean;
  /** The last template labels (by their JSON) compared with the pod's labels, and the answer. */
  templateKey?: string;
  fullyLabeled?: boolean;
}
const podFactsCache = new WeakMap<Pod, PodFacts>();

/** The facts of a pod version (memoised when the pod is frozen, as cached objects are). */
export function factsOf(pod: Pod): PodFacts {
  let f = podFactsCache.get(pod);
  if (!f) {
    f = { active: isPodActive(pod), ready: isPodReady(pod) };
    if (Object.isFrozen(pod)) podFactsCache.set(pod, f);
  }
  return f;
}

/** Per ReplicaSet version: its parsed selector (or the parse error) and the keys of selector and template labels. */
export interface RsFacts {
  selector: LabelSelector | Error;
  selectorKey: string;
  templateLabels: Array<[string, string]>;
  templateKey: string;
}
const rsFactsCache = new WeakMap<ReplicaSet, RsFacts>();

/** The facts of a ReplicaSet version (memoised when the object is frozen). */
export function rsFactsOf(rs: ReplicaSet): RsFacts {
  let f = rsFactsCache.get(rs);
  if (!f) {
    let selector: LabelSelector | Error;
    try {
      selector = labelSelectorFromObject(rs.spec?.selector);
    } catch (err) {
      selector = err instanceof Error ? err : new Error(String(err));
    }
    const labels = rs.spec?.template?.metadata?.labels ?? {};
    f = { selector, selectorKey: JSON.stringify(rs.spec?.selector ?? null), templateLabels: Object.entries(labels), templateKey: JSON.stringify(labels) };
    if (Object.isFrozen(rs)) rsFactsCache.set(rs, f);
  }
  return f;
}

/** Whether a pod's labels carry every label of the ReplicaSet's template (memoised per pod version). */
export function fullyLabeled(pod: Pod, rs: RsFacts): boolean {
  const f = factsOf(pod);
  if (f.templateKey !== rs.templateKey) {
    const labels = pod.metadata?.labels ?? {};
    f.fullyLabeled = rs.templateLabels.every(([k, v]) => labels[k] === v);
    f.templateKey = rs.templateKey;
  }
  return f.fullyLabeled!;
}

/** Whether the ReplicaSet's (valid, non-empty) selector matches the pod (memoised per pod version). */
export function selects(rs: RsFacts, pod: Pod): boolean {
  const sel = rs.selector;
  if (sel instanceof Error || sel.empty) return false;
  const f = factsOf(pod);
  if (f.selectorKey !== rs.selectorKey) {
    f.selectorMatch = sel.matches(pod.metadata?.labels);
    f.selectorKey = rs.selectorKey;
  }
  return f.selectorMatch!;
}

/** The parsed selector of a ReplicaSet (cached per version); throws as labelSelectorFromObject does. */
export function selectorOf(rs: ReplicaSet): LabelSelector {
  const sel = rsFactsOf(rs).selector;
  if (sel instanceof Error) throw sel;
  return sel;
}
