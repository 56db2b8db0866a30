/** The DaemonSet controller and its building blocks. */
export {
  DAEMONSET_BATCH_WINDOW_MS,
  DAEMONSET_BURST_REPLICAS,
  createDaemonSetController,
  type DaemonSetController,
  type DaemonSetControllerOptions,
} from './daemonset-controller.js';
export { DAEMONSET_HASH_LABEL, TEMPLATE_GENERATION_LABEL, daemonTolerations, nodeShouldRunDaemonPod, daemonPodForPredicates } from './util.js';
