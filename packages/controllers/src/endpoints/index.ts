/** The endpoints controller (kube-controller-manager's endpoints-controller). */
export { MAX_ENDPOINTS_ADDRESSES, OVER_CAPACITY_ANNOTATION, createEndpointsController, endpointSubsets, truncateSubsets, type EndpointsControllerOptions } from './controller.js';
