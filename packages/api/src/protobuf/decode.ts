/**
 * Decoding of Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), as sent
 * by kubectl's typed clients, into the JSON objects Kubernetes would produce.
 *
 * Wire layout: the 4 magic bytes `k8s\0`, then a `runtime.Unknown` message whose `typeMeta`
 * names the apiVersion/kind and whose `raw` bytes are that kind's message.
 */
import { protobufjs } from './lib.js';
import { ApiError, badRequest } from '../errors.js';
import type { KubeObject } from '../types.js';
import { MODEL_PACKAGES, type ApiPackageModel } from '../model/index.js';
import type { ProtoModel } from '../model/proto.js';
import { protoModel } from './registry.js';
import { messageToJson } from './to-json.js';

/** The media type of Kubernetes protobuf bodies. */
export const KUBERNETES_PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** Defaults for an envelope whose typeMeta leaves apiVersion or kind empty (the request's GVK). */
export interface ProtobufDecodeDefaults {
  apiVersion?: string;
  kind?: string;
}

/**
 * Decodes a Kubernetes protobuf body into a JSON object with apiVersion and kind set.
 * Throws ApiError 400 BadRequest for malformed input (Kubernetes' wording where it has one:
 * `empty data`, `empty body`, `provided data does not appear to be a protobuf message, expected
 * prefix [107 56 115 0]`, `unexpected EOF`, `proto: maximum nesting depth exceeded` past 100
 * nested messages) and 415 UnsupportedMediaType for a kind the model lacks (the client can send
 * it as JSON instead). Never throws anything but ApiError for any input.
 * `packages` replaces the built-in model (tests pass a small one).
 */
export function decodeKubernetesProtobuf(
  bytes: Uint8Array,
  defaults?: ProtobufDecodeDefaults,
  packages: readonly ApiPackageModel[] = MODEL_PACKAGES,
): KubeObject {
  const pm = protoModel(packages); // built outside the try: a broken model is not the client's fault
  try {
    return decode(bytes, defaults ?? {}, pm);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw badRequest(wireErrorMessage(err));
  }
}

function decode(bytes: Uint8Array, defaults: ProtobufDecodeDefaults, pm: ProtoModel): KubeObject {
  if (bytes.length === 0) throw badRequest('empty data');
  if (bytes.length < MAGIC.length || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw badRequest(`provided data does not appear to be a protobuf message, expected prefix [${MAGIC.join(' ')}]`);
  }
  if (bytes.length === MAGIC.length) throw badRequest('empty body');

  const envelope = pm.unknown.decode(bytes.subarray(MAGIC.length)) as unknown as Envelope;
  const apiVersion = envelope.typeMeta?.apiVersion || defaults.apiVersion || '';
  const kind = envelope.typeMeta?.kind || defaults.kind || '';
  const typeMeta = `runtime.TypeMeta{APIVersion:"${apiVersion}", Kind:"${kind}"}`;
  if (!kind) throw badRequest(`Object 'Kind' is missing in '${typeMeta}'`);
  if (!apiVersion) throw badRequest(`Object 'apiVersion' is missing in '${typeMeta}'`);
  if (envelope.contentEncoding) {
    throw new ApiError(415, 'UnsupportedMediaType', `unsupported content encoding "${envelope.contentEncoding}" in protobuf body`);
  }
  const type = pm.kind(apiVersion, kind);
  if (!type) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the protobuf body holds ${apiVersion}, Kind=${kind}, which this server cannot decode from ${KUBERNETES_PROTOBUF_MEDIA_TYPE}; send it as application/json`,
      { kind },
    );
  }
  const message = type.decode(envelope.raw ?? new Uint8Array()) as unknown as Record<string, unknown>;
  return { apiVersion, kind, ...messageToJson(pm, type, message) };
}

interface Envelope {
  typeMeta?: { apiVersion?: string; kind?: string };
  raw?: Uint8Array;
  contentEncoding?: string;
  contentType?: string;
}

/** Maps protobufjs reader errors to the texts Go's protobuf decoder uses. */
function wireErrorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RangeError || /index out of range/.test(message)) return 'unexpected EOF';
  if (err instanceof protobufjs().util.ProtocolError) return `proto: ${message}`;
  const wire = /invalid wire type (\d+)/.exec(message);
  if (wire) return `proto: illegal wireType ${wire[1]}`;
  if (/invalid varint/.test(message)) return 'proto: integer overflow';
  return `proto: ${message}`;
}
