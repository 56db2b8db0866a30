/** Stage 2 input: the messages of Kubernetes' generated.proto files, parsed with protobufjs. */
import protobuf from 'protobufjs';
import { Problems } from './draft.js';

/** One field of a protobuf message, with its type resolved to a scalar or a full message name. */
export interface ProtoField {
  readonly name: string;
  readonly id: number;
  /** A protobuf scalar (`int32`, `bytes`, …) or a full message name without the leading dot. */
  readonly type: string;
  readonly repeated: boolean;
  /** Set for `map<K, V>` fields: the key type (`type` is then the value type). */
  readonly mapKey?: string;
}

/** One protobuf message. */
export interface ProtoMessage {
  /** Full name without the leading dot, e.g. `k8s.io.api.apps.v1.Deployment`. */
  readonly name: string;
  readonly fields: readonly ProtoField[];
}

const SCALARS = new Set([
  'double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64',
  'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes',
]);

/** Parses the text of one .proto file into its messages (nested messages are not expected). */
export function parseProto(text: string, source: string, problems: Problems): ProtoMessage[] {
  let parsed: protobuf.IParserResult;
  try {
    parsed = protobuf.parse(text, { keepCase: true });
  } catch (err) {
    problems.add(`${source}: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  }
  const pkg = parsed.package;
  if (!pkg) {
    problems.add(`${source}: no package`);
    return [];
  }
  const ns = parsed.root.lookup(pkg);
  if (!(ns instanceof protobuf.Namespace)) return [];
  const messages: ProtoMessage[] = [];
  for (const nested of ns.nestedArray) {
    if (!(nested instanceof protobuf.Type)) continue;
    if (nested.nestedArray.length > 0) problems.add(`${source}: ${nested.name} has nested declarations`);
    const ids = new Set<number>();
    const fields: ProtoField[] = [];
    for (const f of nested.fieldsArray) {
      if (ids.has(f.id)) problems.add(`${source}: ${nested.name} uses number ${f.id} twice`);
      ids.add(f.id);
      const type = resolve(f.type, pkg);
      if (f instanceof protobuf.MapField) {
        fields.push({ name: f.name, id: f.id, type, repeated: false, mapKey: f.keyType });
      } else {
        fields.push({ name: f.name, id: f.id, type, repeated: f.repeated });
      }
    }
    messages.push({ name: `${pkg}.${nested.name}`, fields });
  }
  return messages;
}

function resolve(type: string, pkg: string): string {
  if (SCALARS.has(type)) return type;
  if (type.startsWith('.')) return type.slice(1);
  return `${pkg}.${type}`;
}

/** The spelling of a protobuf field's type in the model: `[]` before repeated types, `map[K]` before map values. */
export function protoTypeSpelling(field: ProtoField): string {
  if (field.mapKey !== undefined) return `map[${field.mapKey}]${field.type}`;
  return (field.repeated ? '[]' : '') + field.type;
}
