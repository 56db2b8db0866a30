/** CustomResourceDefinitions: validation, the controller that serves them, and the custom resource machinery. */
export { createCrdController, type CrdController, type CrdControllerOptions } from './controller.js';
export { validateCustomResourceDefinition, isProtectedGroup } from './crd-validation.js';
export { customResourceType, definitionName, type CustomResourceTypeResult } from './resource-type.js';
export { CONVERSION_WEBHOOK_TIMEOUT_MS, createConverter, convertingBackend, type Converter, type ConverterOptions } from './conversion.js';
export { applyDefaults } from './defaults.js';
export { validateValue } from './schema-values.js';
export { validateCRDSchema, validateStructural } from './structural.js';
export { CLEANUP_FINALIZER, type CustomResourceDefinition, type CRDSpec, type CRDVersion } from './crd-types.js';
// The CEL library, loaded on first need: await loadCel() before validating a CRD with rules or building a type for one.
export { celLoaded, holdsCelRules, loadCel } from './cel/load.js';
