import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { ApiError } from '../errors.js';
import { decodeKubernetesProtobuf } from './decode.js';
import { KUBECTL_BODIES } from './kubectl-fixtures.js';
import { lookupKind, unknownType } from './registry.js';

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

function envelopeOf(typeMeta: Record<string, string> | undefined, raw: Uint8Array, extra: Record<string, string> = {}): Uint8Array {
  const unknown = unknownType();
  const body = unknown.encode(unknown.fromObject({ ...(typeMeta ? { typeMeta } : {}), raw, ...extra })).finish();
  return Uint8Array.from([...MAGIC, ...body]);
}

function rejects(input: Uint8Array, code: number, message: RegExp | string) {
  assert.throws(
    () => decodeKubernetesProtobuf(input),
    (e: unknown) => {
      assert.ok(e instanceof ApiError, `not an ApiError: ${String(e)}`);
      assert.equal(e.code, code);
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    },
  );
}

test('empty input, a wrong prefix and a bare prefix use the Kubernetes messages', () => {
  rejects(new Uint8Array(), 400, 'empty data');
  rejects(Uint8Array.from([0x7b, 0x7d]), 400, 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  rejects(new TextEncoder().encode('{"kind":"Namespace"}'), 400, /expected prefix \[107 56 115 0\]$/);
  rejects(Uint8Array.from(MAGIC), 400, 'empty body');
  const err = (() => {
    try {
      decodeKubernetesProtobuf(Uint8Array.from(MAGIC));
    } catch (e) {
      return e as ApiError;
    }
  })();
  assert.equal(err?.reason, 'BadRequest');
});

test('truncated bodies and truncated varints are 400 unexpected EOF', () => {
  const full = bytes(KUBECTL_BODIES.deployment!);
  rejects(full.subarray(0, full.length - 7), 400, 'unexpected EOF');
  rejects(Uint8Array.from([...MAGIC, 0x0a]), 400, 'unexpected EOF'); // field 1 with no length
  rejects(Uint8Array.from([...MAGIC, 0x0a, 0x05, 0x0a]), 400, 'unexpected EOF'); // length past the end
  rejects(Uint8Array.from([...MAGIC, 0x08, 0xff, 0xff]), 400, 'unexpected EOF'); // varint cut short
  const ns = envelopeOf({ apiVersion: 'v1', kind: 'Namespace' }, Uint8Array.from([0x0a, 0x09, 0x0a]));
  rejects(ns, 400, 'unexpected EOF'); // the inner message is truncated
});

test('invalid wire types are 400 and never a crash', () => {
  rejects(Uint8Array.from([...MAGIC, 0x7f, 0x00]), 400, /^proto: illegal wireType 7/); // field 15, wire type 7
  rejects(envelopeOf({ apiVersion: 'v1', kind: 'Namespace' }, Uint8Array.from([0x7e, 0x01])), 400, /^proto: illegal wireType 6/);
});

test('unknown kinds are 415; a missing kind or apiVersion is 400', () => {
  rejects(envelopeOf({ apiVersion: 'apps/v1beta1', kind: 'StatefulSet' }, new Uint8Array()), 415, /apps\/v1beta1, Kind=StatefulSet/);
  rejects(envelopeOf({ apiVersion: 'example.com/v1', kind: 'Widget' }, new Uint8Array()), 415, /example\.com\/v1, Kind=Widget/);
  rejects(envelopeOf({ apiVersion: 'v1', kind: 'PodSpec' }, new Uint8Array()), 415, /Kind=PodSpec/);
  rejects(envelopeOf({ apiVersion: 'v1', kind: '' }, new Uint8Array()), 400, `Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"v1", Kind:""}'`);
  rejects(envelopeOf({ apiVersion: '', kind: 'Namespace' }, new Uint8Array()), 400, /Object 'apiVersion' is missing/);
  rejects(envelopeOf({ apiVersion: 'v1', kind: 'Namespace' }, new Uint8Array(), { contentEncoding: 'gzip' }), 415, /content encoding "gzip"/);
});

test('recursive messages nested past 100 levels are 400, not a stack overflow', () => {
  const crd = lookupKind('apiextensions.k8s.io/v1', 'CustomResourceDefinition')!;
  const field = (type: protobuf.Type, name: string) => type.fields[name]!;
  const wrap = (id: number, inner: Uint8Array) => protobuf.Writer.create().uint32((id << 3) | 2).bytes(inner).finish();
  const spec = field(crd, 'spec');
  const version = field(spec.resolvedType as protobuf.Type, 'versions');
  const schema = field(version.resolvedType as protobuf.Type, 'schema');
  const openAPIV3Schema = field(schema.resolvedType as protobuf.Type, 'openAPIV3Schema');
  const props = openAPIV3Schema.resolvedType as protobuf.Type;
  const nested = (depth: number) => {
    let inner: Uint8Array = new Uint8Array();
    for (let i = 0; i < depth; i++) inner = wrap(field(props, 'not').id, inner);
    return wrap(spec.id, wrap(version.id, wrap(schema.id, wrap(openAPIV3Schema.id, inner))));
  };
  const ok = decodeKubernetesProtobuf(envelopeOf({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }, nested(3))) as any;
  assert.deepEqual(ok.spec.versions[0].schema.openAPIV3Schema, { not: { not: { not: {} } } });
  rejects(envelopeOf({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }, nested(5000)), 400, 'proto: maximum nesting depth exceeded');
});

test('defaults fill an envelope without typeMeta (the request path names the kind)', () => {
  const raw = lookupKind('v1', 'Namespace')!;
  const body = raw.encode(raw.fromObject({ metadata: { name: 'n' } })).finish();
  const input = envelopeOf(undefined, body);
  assert.deepEqual(decodeKubernetesProtobuf(input, { apiVersion: 'v1', kind: 'Namespace' }), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'n', creationTimestamp: null },
    spec: {},
    status: {},
  });
  rejects(input, 400, /Object 'Kind' is missing/);
});

test('random corruption of real bodies only ever yields an object or an ApiError 400', () => {
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const bodies = Object.values(KUBECTL_BODIES).map(bytes);
  let rejected = 0;
  for (let i = 0; i < 3000; i++) {
    const input = Uint8Array.from(bodies[rand(bodies.length)]!);
    const flips = 1 + rand(4);
    for (let f = 0; f < flips; f++) input[MAGIC.length + rand(input.length - MAGIC.length)] = rand(256);
    const cut = rand(3) === 0 ? input.subarray(0, MAGIC.length + rand(input.length - MAGIC.length)) : input;
    try {
      const out = decodeKubernetesProtobuf(cut);
      assert.equal(typeof out, 'object');
    } catch (e) {
      assert.ok(e instanceof ApiError, `not an ApiError: ${String(e)}`);
      assert.ok(e.code === 400 || e.code === 415, `unexpected code ${e.code}: ${e.message}`);
      rejected++;
    }
  }
  assert.ok(rejected > 100, `only ${rejected} corrupted bodies were rejected`);
});
