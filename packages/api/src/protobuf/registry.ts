/**
 * The protobuf schema the decoder uses: the model's protobufjs Root (model/proto.ts), built once
 * per set of model packages, and the table of top-level kinds it accepts (every type of the
 * model with a group/version/kind).
 */
import type protobuf from 'protobufjs';
import { MODEL_PACKAGES, type ApiPackageModel } from '../model/index.js';
import { buildProtoModel, type ProtoModel } from '../model/proto.js';

const built = new WeakMap<readonly ApiPackageModel[], ProtoModel>();

/** The protobuf form of the given model packages (the built-in model by default), built on first use. */
export function protoModel(packages: readonly ApiPackageModel[] = MODEL_PACKAGES): ProtoModel {
  let pm = built.get(packages);
  if (!pm) {
    pm = buildProtoModel(packages);
    built.set(packages, pm);
  }
  return pm;
}

/** The message type for a top-level apiVersion/kind, or undefined when the model has no such kind. */
export function lookupKind(
  apiVersion: string,
  kind: string,
  packages: readonly ApiPackageModel[] = MODEL_PACKAGES,
): protobuf.Type | undefined {
  return protoModel(packages).kind(apiVersion, kind);
}

/** Whether decodeKubernetesProtobuf can decode objects of this apiVersion and kind. */
export function hasProtobufSchema(apiVersion: string, kind: string, packages: readonly ApiPackageModel[] = MODEL_PACKAGES): boolean {
  return lookupKind(apiVersion, kind, packages) !== undefined;
}

/** Every apiVersion/kind pair decodeKubernetesProtobuf can decode. */
export function protobufKinds(packages: readonly ApiPackageModel[] = MODEL_PACKAGES): readonly { readonly apiVersion: string; readonly kind: string }[] {
  return protoModel(packages).kinds();
}

/** The runtime.Unknown envelope type. */
export function unknownType(packages: readonly ApiPackageModel[] = MODEL_PACKAGES): protobuf.Type {
  return protoModel(packages).unknown;
}
