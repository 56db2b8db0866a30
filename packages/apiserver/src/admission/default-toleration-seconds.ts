import type { MutatingStep } from './types.js';

/** The taint the node lifecycle controller puts on a node whose Ready condition is False. */
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
/** The taint the node lifecycle controller puts on a node whose Ready condition is Unknown. */
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';

/** The seconds of the DefaultTolerationSeconds step (kube-apiserver's flags; 300 each by default). */
export interface DefaultTolerationSecondsOptions {
  /** --default-not-ready-toleration-seconds */
  notReadySeconds?: number;
  /** --default-unreachable-toleration-seconds */
  unreachableSeconds?: number;
}

interface Toleration {
  key?: string;
  operator?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/**
 * The DefaultTolerationSeconds admission plugin: a pod that tolerates neither the not-ready nor
 * the unreachable NoExecute taint (a toleration of that key, or of every key, with effect
 * NoExecute or any effect) gets one for each, `Exists` for `tolerationSeconds` seconds.
 */
export function defaultTolerationSeconds(options: DefaultTolerationSecondsOptions = {}): MutatingStep {
  const notReady = options.notReadySeconds ?? 300;
  const unreachable = options.unreachableSeconds ?? 300;
  return {
    name: 'DefaultTolerationSeconds',
    operations: ['CREATE', 'UPDATE'],
    admit(attrs) {
      if (attrs.resource.group !== '' || attrs.resource.resource !== 'pods' || attrs.subresource !== '') return;
      const pod = attrs.object;
      if (!pod || typeof pod.spec !== 'object' || pod.spec === null || Array.isArray(pod.spec)) return;
      const spec = pod.spec as { tolerations?: Toleration[] };
      const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
      const tolerates = (key: string) =>
        tolerations.some((t) => t && (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
      const added: Toleration[] = [];
      if (!tolerates(TAINT_NODE_NOT_READY)) added.push({ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: notReady });
      if (!tolerates(TAINT_NODE_UNREACHABLE)) added.push({ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: unreachable });
      if (added.length) spec.tolerations = [...tolerations, ...added];
    },
  };
}
