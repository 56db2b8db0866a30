/** The node lifecycle and taint-eviction controllers (kube-controller-manager's node-lifecycle-controller and taint-eviction-controller). */
export { createNodeLifecycleController, NODE_LEASE_NAMESPACE, type NodeLifecycleOptions } from './controller.js';
export { createTaintEvictionController, type TaintEvictionOptions } from './taint-eviction.js';
export * from './taints.js';
