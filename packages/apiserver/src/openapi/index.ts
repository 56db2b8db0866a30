/** OpenAPI v3 documents of the served group/versions, the /openapi/v3 root, and the /openapi/v2 document. */
export { buildOpenAPIV3Document } from './document.js';
export { openAPIV3Hash, openAPIV3PathKey, openAPIV3Root } from './root.js';
export { buildSwaggerV2, openAPIETag, servedDocument, swaggerSpec, type SwaggerOptions } from './swagger.js';
export { decodeSwaggerProtobuf, encodeSwaggerProtobuf } from './gnostic.js';
export { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_DEPRECATED, serveOpenAPIV2, serveOpenAPIV3Document, serveOpenAPIV3Root, type ServedDocument, type SwaggerSpec } from './serve.js';
