import type { KubeObject } from '@kplane/api';
import { badRequest, parseFieldSelector, parseLabelSelector } from '@kplane/api';
import type { ResourceType } from './resource.js';

/** A compiled list filter. */
export interface ListFilter {
  /** True when the filter keeps everything. */
  readonly everything: boolean;
  /** Does this object pass the label and field selectors? */
  matches(obj: KubeObject): boolean;
}

/**
 * Compiles a labelSelector and a fieldSelector into one predicate. Field selectors may only
 * name the fields the kind supports; others answer 400 as kube-apiserver does.
 */
export function compileListFilter(
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
  fields: Record<string, (o: KubeObject) => string | undefined>,
  type: ResourceType,
): ListFilter {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : undefined;
  const fieldSel = fieldSelector ? parseFieldSelector(fieldSelector) : undefined;
  if (fieldSel) {
    for (const r of fieldSel.requirements) {
      if (!fields[r.field]) {
        throw badRequest(`field label not supported: ${r.field}`);
      }
    }
  }
  const labelsAll = !labels || labels.empty;
  const fieldsAll = !fieldSel || fieldSel.requirements.length === 0;
  void type;
  return {
    everything: labelsAll && fieldsAll,
    matches(obj) {
      if (!labelsAll && !labels!.matches(obj.metadata?.labels ?? {})) return false;
      if (!fieldsAll && !fieldSel!.matches((f) => fields[f]?.(obj) ?? '')) return false;
      return true;
    },
  };
}
