/** OpenAPI v3 documents of the served group/versions and the /openapi/v3 root. */
export { buildOpenAPIV3Document } from './document.js';
export { openAPIV3Hash, openAPIV3PathKey, openAPIV3Root } from './root.js';
