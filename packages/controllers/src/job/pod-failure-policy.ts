/**
 * Matching a failed pod against a Job's podFailurePolicy (kube's pod_failure_policy.go): the
 * first rule whose exit codes or pod conditions match decides.
 */
import type { Job, Pod, PodFailurePolicyOnExitCodesRequirement } from '@kplane/runtime';

/** What a podFailurePolicy says about one failed pod. */
export interface PolicyVerdict {
  /** The action of the matching rule (undefined: no rule matched, the failure counts). */
  action?: 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';
  /** Does the failure count towards backoffLimit (false only for Ignore)? */
  countFailed: boolean;
  /** The FailureTarget message of a FailJob rule. */
  message?: string;
}

interface TerminatedStatus {
  name: string;
  state?: { terminated?: { exitCode?: number } };
}

function matchingContainer(statuses: readonly TerminatedStatus[] | undefined, req: PodFailurePolicyOnExitCodesRequirement): TerminatedStatus | undefined {
  for (const cs of statuses ?? []) {
    const code = cs.state?.terminated?.exitCode;
    if (code === undefined || code === 0) continue;
    if (req.containerName !== undefined && req.containerName !== cs.name) continue;
    const listed = req.values.includes(code);
    if (req.operator === 'In' ? listed : !listed) return cs;
  }
  return undefined;
}

/** The verdict of `job`'s podFailurePolicy on a failed pod (countFailed true without a policy). */
export function matchPodFailurePolicy(job: Job, pod: Pod): PolicyVerdict {
  const rules = job.spec?.podFailurePolicy?.rules;
  if (!rules) return { countFailed: true };
  const ns = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  for (const [index, rule] of rules.entries()) {
    let what: string | undefined;
    if (rule.onExitCodes) {
      const cs =
        matchingContainer(pod.status?.containerStatuses as TerminatedStatus[] | undefined, rule.onExitCodes) ??
        matchingContainer(pod.status?.initContainerStatuses as TerminatedStatus[] | undefined, rule.onExitCodes);
      if (cs) what = `Container ${cs.name} for pod ${ns}/${name} failed with exit code ${cs.state!.terminated!.exitCode} matching ${rule.action} rule at index ${index}`;
    } else if (rule.onPodConditions) {
      const cond = (pod.status?.conditions ?? []).find((c) => rule.onPodConditions!.some((p) => p.type === c.type && (p.status ?? 'True') === c.status));
      if (cond) what = `Pod ${ns}/${name} has condition ${cond.type} matching ${rule.action} rule at index ${index}`;
    }
    if (what === undefined) continue;
    switch (rule.action) {
      case 'Ignore':
        return { action: 'Ignore', countFailed: false };
      case 'FailJob':
        return { action: 'FailJob', countFailed: true, message: what };
      case 'FailIndex':
        return { action: 'FailIndex', countFailed: true };
      default:
        return { action: 'Count', countFailed: true };
    }
  }
  return { countFailed: true };
}
