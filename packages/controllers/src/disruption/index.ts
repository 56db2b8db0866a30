export { createDisruptionController, type DisruptionControllerOptions } from './controller.js';
export { DELETION_TIMEOUT_MS, buildDisruptedPods, countHealthyPods, expectedPodCount, failSafeStatus, nextStatus, scaledValue } from './status.js';
