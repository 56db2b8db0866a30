/** The endpoints controller (kube-controller-manager's endpoints-controller). */
export { createEndpointsController, endpointSubsets, type EndpointsControllerOptions } from './controller.js';
