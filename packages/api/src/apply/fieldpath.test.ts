import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet, keyElement, pathString, valueElement } from './fieldpath.js';
import { jsonEqual } from './typed.js';

const labelsApp = ['f:metadata', 'f:labels', 'f:app'];

test('FieldsV1: members with children carry ".", leaves are {}', () => {
  const s = FieldSet.of(['f:metadata', 'f:labels'], labelsApp, ['f:spec', 'f:replicas']);
  assert.equal(JSON.stringify(s.toFieldsV1()), '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{}}}');
});

test('FieldsV1 round trip keeps key, value and index elements in Kubernetes order', () => {
  const text = '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"a\\"}":{".":{},"f:image":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}},"k:{\\"name\\":\\"b\\"}":{}},"f:finalizers":{"v:\\"x\\"":{}},"f:items":{"i:2":{}}}}';
  const s = FieldSet.fromFieldsV1(JSON.parse(text));
  assert.equal(JSON.stringify(s.toFieldsV1()), text);
  assert.ok(s.has(['f:spec', 'f:containers', keyElement({ name: 'a' })]));
  assert.ok(!s.has(['f:spec', 'f:containers']));
  assert.ok(s.has(['f:spec', 'f:finalizers', valueElement('x')]));
});

test('FieldsV1: fields sort before keys; malformed elements are refused', () => {
  const s = FieldSet.of(['f:b'], ['f:a', 'k:{"name":"z"}'], ['f:a', 'f:y']);
  assert.deepEqual(Object.keys(s.toFieldsV1()['f:a'] as object), ['f:y', 'k:{"name":"z"}']);
  assert.throws(() => FieldSet.fromFieldsV1({ 'x:y': {} }), /unknown path element/);
  assert.throws(() => FieldSet.fromFieldsV1({ 'i:-1': {} }), /invalid index/);
  assert.throws(() => FieldSet.fromFieldsV1({ 'k:[1]': {} }), /key must be an object/);
  assert.throws(() => FieldSet.fromFieldsV1([]), /expected an object/);
});

test('union, intersection, difference, recursiveDifference', () => {
  const a = FieldSet.of(['f:spec', 'f:replicas'], ['f:spec', 'f:paused'], ['f:status']);
  const b = FieldSet.of(['f:spec', 'f:replicas'], ['f:status', 'f:x']);
  assert.equal(JSON.stringify(a.union(b).toFieldsV1()), '{"f:spec":{"f:paused":{},"f:replicas":{}},"f:status":{".":{},"f:x":{}}}');
  assert.equal(JSON.stringify(a.intersection(b).toFieldsV1()), '{"f:spec":{"f:replicas":{}}}');
  assert.equal(JSON.stringify(a.difference(b).toFieldsV1()), '{"f:spec":{"f:paused":{}},"f:status":{}}');
  assert.equal(JSON.stringify(b.recursiveDifference(FieldSet.of(['f:status'])).toFieldsV1()), '{"f:spec":{"f:replicas":{}}}');
  assert.ok(FieldSet.empty().empty);
  assert.ok(a.hasPrefix(['f:spec']));
  assert.ok(!a.hasPrefix(['f:metadata']));
});

test('paths print as in conflict messages', () => {
  assert.equal(pathString(['f:spec', 'f:replicas']), '.spec.replicas');
  assert.equal(pathString(['f:spec', 'f:containers', keyElement({ name: 'nginx' }), 'f:image']), '.spec.containers[name="nginx"].image');
  assert.equal(pathString(['f:spec', 'f:ports', keyElement({ protocol: 'TCP', containerPort: 80 })]), '.spec.ports[containerPort=80,protocol="TCP"]');
  assert.equal(pathString(['f:metadata', 'f:finalizers', valueElement('a')]), '.metadata.finalizers[="a"]');
  assert.equal(pathString(['f:args', 'i:1']), '.args[1]');
});

test('set operations that change nothing give the set itself; its encoding is made once, frozen', () => {
  const a = FieldSet.of(labelsApp, ['f:spec', 'f:replicas'], ['f:status', 'f:phase']);
  const other = FieldSet.of(['f:metadata', 'f:annotations'], ['f:spec', 'f:paused']);
  assert.equal(a.difference(other), a);
  assert.equal(a.recursiveDifference(FieldSet.of(['f:metadata', 'f:annotations'])), a);
  assert.equal(a.union(FieldSet.of(['f:spec', 'f:replicas'])), a);
  assert.equal(FieldSet.empty().union(a), a);
  // Below a member of the other set: removed by the recursive difference only.
  const below = FieldSet.of(['f:metadata']);
  assert.equal(a.difference(below), a);
  assert.deepEqual(a.recursiveDifference(below).paths(), [['f:spec', 'f:replicas'], ['f:status', 'f:phase']]);
  assert.deepEqual(a.difference(FieldSet.of(['f:spec', 'f:replicas'])).paths(), [labelsApp, ['f:status', 'f:phase']]);
  assert.deepEqual(a.union(other).paths().length, 5);
  const encoded = a.toFieldsV1();
  assert.equal(a.toFieldsV1(), encoded);
  assert.ok(Object.isFrozen(encoded) && Object.isFrozen(encoded['f:spec']));
  assert.deepEqual(a.under(['f:status', 'f:metadata']).paths(), [labelsApp, ['f:status', 'f:phase']]);
});

test('stored FieldsV1 read again give the same set', () => {
  const v = { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } };
  const s = FieldSet.fromStoredFieldsV1(v);
  assert.equal(FieldSet.fromStoredFieldsV1(JSON.parse(JSON.stringify(v))), s);
  assert.deepEqual(s.paths(), [['f:metadata', 'f:labels'], labelsApp]);
  assert.throws(() => FieldSet.fromStoredFieldsV1({ 'x:bad': {} }), /unknown path element kind/);
});

test('jsonEqual: JSON values by content, object keys in any order', () => {
  assert.ok(jsonEqual({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] }));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: undefined }));
  assert.ok(!jsonEqual({ a: undefined }, { b: undefined }));
  assert.ok(!jsonEqual([1, 2], { 0: 1, 1: 2 }));
  assert.ok(!jsonEqual([1, 2], [1, 2, 3]));
  assert.ok(!jsonEqual(null, {}));
  assert.ok(!jsonEqual(1, '1'));
});
