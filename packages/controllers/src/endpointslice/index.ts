/** The endpointslice controller (kube-controller-manager's endpointslice-controller). */
export { createEndpointSliceController, servicesSelecting, type EndpointSliceControllerOptions } from './controller.js';
export { DEFAULT_MAX_ENDPOINTS_PER_SLICE, addressTypeOf, podToEndpoint, reconcileSlices, type SliceChanges, type SliceInputs } from './reconciler.js';
export { HEADLESS_LABEL, MANAGED_BY, MANAGED_BY_LABEL, SERVICE_NAME_LABEL, TRIGGER_TIME_ANNOTATION } from './pods.js';
