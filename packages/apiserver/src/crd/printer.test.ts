import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findJSONPath, parseJSONPath, printerTable } from './printer.js';

test('the JSONPath subset of printer columns', () => {
  const obj = { spec: { a: 1, 'b.c': 2 }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }] } };
  const find = (p: string) => findJSONPath(obj, parseJSONPath(p)!);
  assert.deepEqual(find('.spec.a'), [1]);
  assert.deepEqual(find(".spec['b.c']"), [2]);
  assert.deepEqual(find('.status.conditions[1].type'), ['Synced']);
  assert.deepEqual(find('.status.conditions[*].type'), ['Ready', 'Synced']);
  assert.deepEqual(find('.status.conditions[?(@.type=="Ready")].status'), ['True']);
  assert.deepEqual(find('.spec.missing'), []);
  assert.equal(parseJSONPath('.spec..a'), undefined);
});

test('cells follow the column types; dates become ages; no columns means Age', () => {
  const t = printerTable([
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
    { name: 'On', type: 'boolean', jsonPath: '.spec.on' },
    { name: 'Obj', type: 'string', jsonPath: '.spec.obj', priority: 1 },
    { name: 'Since', type: 'date', jsonPath: '.status.since' },
  ]);
  assert.deepEqual(t.columns.map((c) => [c.name, c.type, c.priority]), [['Name', 'string', 0], ['Replicas', 'integer', 0], ['Ratio', 'number', 0], ['On', 'boolean', 0], ['Obj', 'string', 1], ['Since', 'date', 0]]);
  const now = new Date('2026-01-01T12:00:00Z');
  const obj = { metadata: { name: 'x' }, spec: { replicas: 2.7, ratio: 0.5, on: 'yes', obj: { a: 1 } }, status: { since: '2026-01-01T11:00:00Z' } };
  assert.deepEqual(t.row(obj, now), ['x', 2, 0.5, null, '{"a":1}', '60m']);
  assert.deepEqual(t.row({ metadata: { name: 'y' }, status: { since: 'soon' } }, now), ['y', null, null, null, null, '<invalid>']);
  const def = printerTable(undefined);
  assert.deepEqual(def.columns.map((c) => c.name), ['Name', 'Age']);
  assert.deepEqual(def.row({ metadata: { name: 'z', creationTimestamp: '2026-01-01T11:59:30Z' } }, now), ['z', '30s']);
});
