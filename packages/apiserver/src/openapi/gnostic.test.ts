import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import { builtinKinds } from '../kinds/index.js';
import { buildOpenAPIV3Document } from './document.js';
import { decodeSwaggerProtobuf, encodeSwaggerProtobuf, gnosticRoot, swaggerToGnostic } from './gnostic.js';
import { buildSwaggerV2 } from './swagger.js';

const require = createRequire(import.meta.url);
const descriptor = require('protobufjs/ext/descriptor') as { FileDescriptorProto: protobuf.Type; FileDescriptorSet: protobuf.Type };

const { resources, definitions } = builtinKinds();
const gvs = [...new Set(resources.map((r) => `${r.group}|${r.version}`))].map((gv) => gv.split('|') as [string, string]);
const doc = buildSwaggerV2(gvs.map(([g, v]) => buildOpenAPIV3Document(g, v, resources, definitions)), resources, { version: 'v1.32.0' });

/** The path of the kubectl binary on PATH, if any. */
function kubectlPath(): string | undefined {
  try {
    return realpathSync(execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim());
  } catch {
    return undefined;
  }
}

/**
 * The raw FileDescriptorProto of gnostic's openapiv2/OpenAPIv2.proto that Go binaries linking
 * gnostic carry: found by its name field, ended where the bytes stop being FileDescriptorProto
 * fields.
 */
function gnosticDescriptorFrom(binary: Buffer): protobuf.Root | undefined {
  const at = binary.indexOf(Buffer.from('\x0a\x19openapiv2/OpenAPIv2.proto', 'latin1'));
  if (at < 0) return undefined;
  const wire: Record<number, number> = { 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 10: 0, 11: 0, 12: 2, 14: 0 };
  const reader = protobuf.Reader.create(binary.subarray(at, at + 1_000_000));
  let end = 0;
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (wire[tag >>> 3] !== (tag & 7)) break;
    reader.skipType(tag & 7);
    end = reader.pos;
  }
  const file = descriptor.FileDescriptorProto.decode(binary.subarray(at, at + end));
  const any = descriptor.FileDescriptorProto.fromObject({
    name: 'google/protobuf/any.proto', package: 'google.protobuf',
    messageType: [{ name: 'Any', field: [{ name: 'type_url', number: 1, label: 1, type: 9 }, { name: 'value', number: 2, label: 1, type: 12 }] }],
  });
  return (protobuf.Root as unknown as { fromDescriptor(d: unknown): protobuf.Root }).fromDescriptor(descriptor.FileDescriptorSet.fromObject({ file: [any, file] }));
}

function messages(root: protobuf.Root): Map<string, protobuf.Type> {
  const ns = root.lookup('openapi.v2') as protobuf.Namespace;
  return new Map(ns.nestedArray.filter((n): n is protobuf.Type => n instanceof protobuf.Type).map((t) => [t.name, t]));
}

function shape(t: protobuf.Type): object {
  const fields = t.fieldsArray.map((f) => `${f.name}=${f.id}:${f.repeated ? 'repeated ' : ''}${f.resolve().resolvedType?.fullName ?? f.type}`).sort();
  const oneofs = t.oneofsArray.map((o) => `${o.name}(${[...o.oneof].sort().join(',')})`).sort();
  return { fields, oneofs };
}

test('the openapi.v2 messages match the gnostic descriptor kubectl carries', (t) => {
  const kubectl = kubectlPath();
  if (!kubectl) {
    t.skip('kubectl is not on PATH: cannot read its gnostic descriptor');
    return;
  }
  const theirs = gnosticDescriptorFrom(readFileSync(kubectl));
  assert.ok(theirs, `no openapiv2/OpenAPIv2.proto descriptor in ${kubectl}`);
  const want = messages(theirs);
  const have = messages(gnosticRoot());
  assert.deepEqual([...have.keys()].sort(), [...want.keys()].sort());
  for (const [name, type] of have) {
    const ref = want.get(name)!;
    assert.deepEqual(shape(type), shape(ref), name);
  }
});

test('protobuf round trip: the document decodes back to the same JSON', () => {
  const bytes = encodeSwaggerProtobuf(doc);
  assert.ok(bytes.byteLength > 10_000);
  assert.deepEqual(decodeSwaggerProtobuf(bytes), JSON.parse(JSON.stringify(doc)));
});

test('gnostic shapes: typed lists, oneofs, references, and extensions as YAML', () => {
  const g = swaggerToGnostic({
    swagger: '2.0',
    paths: {
      '/x': {
        parameters: [{ $ref: '#/parameters/pretty-abc' }, { name: 'name', in: 'path', required: true, type: 'string' }],
        get: { operationId: 'readX', responses: { 200: { description: 'OK', schema: { $ref: '#/definitions/X' } } }, 'x-kubernetes-action': 'get' },
      },
    },
    definitions: {
      X: { type: 'object', properties: { a: { type: 'array', items: { type: 'string' } }, m: { type: 'object', additionalProperties: { type: 'string' } } }, 'x-kubernetes-group-version-kind': [{ group: '', kind: 'X', version: 'v1' }] },
    },
  }) as any;
  const item = g.paths.path[0];
  assert.equal(item.name, '/x');
  assert.deepEqual(item.value.parameters[0], { json_reference: { _ref: '#/parameters/pretty-abc' } });
  assert.deepEqual(item.value.parameters[1].parameter.non_body_parameter.path_parameter_sub_schema, { required: true, in: 'path', name: 'name', type: 'string', vendor_extension: [] });
  assert.equal(item.value.get.responses.response_code[0].value.response.schema.schema._ref, '#/definitions/X');
  assert.deepEqual(item.value.get.vendor_extension, [{ name: 'x-kubernetes-action', value: { yaml: 'get\n' } }]);
  const x = g.definitions.additional_properties[0].value;
  assert.deepEqual(x.type, { value: ['object'] });
  assert.deepEqual(x.properties.additional_properties[0].value.items.schema[0].type, { value: ['string'] });
  assert.deepEqual(x.properties.additional_properties[1].value.additional_properties.schema.type, { value: ['string'] });
  assert.match(x.vendor_extension[0].value.yaml, /^- group: ""\n {2}kind: X\n {2}version: v1\n$/);
});
