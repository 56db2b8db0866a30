import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluate } from '../cel.js';
import { compileMutationExpression, rewriteObjectConstruction } from './cel.js';
import { celToJson } from './patch.js';
import { loadCel } from '../../../crd/cel/load.js';

// Entry points load the CEL library before the synchronous code these tests call.
await loadCel();

test('object constructions become map literals that keep their type name; strings, maps and calls are kept', () => {
  assert.equal(rewriteObjectConstruction('Object{spec: Object.spec{replicas: 3}}'), '{"@type": "Object", "spec": {"@type": "Object.spec", "replicas": 3}}');
  assert.equal(rewriteObjectConstruction('[JSONPatch{op: "add", path: "/a", value: {"k": x}}]'), '[{"@type": "JSONPatch", "op": "add", "path": "/a", "value": {"k": x}}]');
  assert.equal(rewriteObjectConstruction('"Object{spec: 1}" + object.spec.x'), '"Object{spec: 1}" + object.spec.x');
  assert.equal(rewriteObjectConstruction("r'Object{' + b\"x\""), "r'Object{' + b\"x\"");
  assert.equal(rewriteObjectConstruction('Object{metadata: Object.metadata{labels: {"a": b ? c : d}}}'), '{"@type": "Object", "metadata": {"@type": "Object.metadata", "labels": {"a": b ? c : d}}}');
  assert.equal(rewriteObjectConstruction('Object.spec{}'), '{"@type": "Object.spec"}');
  assert.equal(rewriteObjectConstruction('jsonpatch.escapeKey("a/b")'), 'jsonpatch_escapeKey("a/b")');
  assert.equal(rewriteObjectConstruction('f(a, Object.spec{x: g(1, 2)})'), 'f(a, {"@type": "Object.spec", "x": g(1, 2)})');
});

test('rewritten expressions evaluate to the configuration and patch they declare', () => {
  const apply = compileMutationExpression('Object{metadata: Object.metadata{labels: {"team": object.metadata.name}}}');
  assert.equal(apply.error, undefined);
  const applied = evaluate(apply, { object: { metadata: { name: 'x' } } });
  assert.ok(applied.ok);
  assert.deepEqual(celToJson(applied.value), { metadata: { labels: { team: 'x' } } });
  const patch = compileMutationExpression('[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/env"), value: 1}]');
  const patched = evaluate(patch, {});
  assert.ok(patched.ok);
  assert.deepEqual(celToJson(patched.value), [{ op: 'add', path: '/metadata/labels/example.com~1env', value: 1 }]);
  const bad = compileMutationExpression('Object{spec: ');
  assert.match(bad.error ?? '', /^compilation failed: ERROR: <input>:1:/);
  assert.equal(bad.source, 'Object{spec: ');
});
