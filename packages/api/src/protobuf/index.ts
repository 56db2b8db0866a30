/** Kubernetes protobuf request-body decoding (decode only; the server answers in JSON). */
export { decodeKubernetesProtobuf, KUBERNETES_PROTOBUF_MEDIA_TYPE } from './decode.js';
export type { ProtobufDecodeDefaults } from './decode.js';
export { hasProtobufSchema, protobufKinds } from './registry.js';
export { lookupKind, unknownType } from './registry.js';
