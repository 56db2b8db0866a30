import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toOpenApiV3 } from '@kplane/api/model';
import { builtinDefinitions, copyDefinitions } from './index.js';

const POD = 'io.k8s.api.core.v1.Pod';

test('the built-in definitions build each schema on first read, the same frozen value in every map', () => {
  const a = builtinDefinitions();
  const b = copyDefinitions(builtinDefinitions(), { 'x.Extra': { type: 'object' } });
  // Unread, a name is an accessor (nothing built); read, a plain value.
  assert.equal(typeof Object.getOwnPropertyDescriptor(a, POD)?.get, 'function');
  const pod = a[POD]!;
  assert.equal(Object.getOwnPropertyDescriptor(a, POD)?.value, pod);
  assert.ok(Object.isFrozen(pod) && Object.isFrozen(pod.properties));
  assert.equal(b[POD], pod);
  assert.deepEqual(pod, toOpenApiV3()[POD]);
  assert.deepEqual(Object.keys(a).sort(), Object.keys(toOpenApiV3()).sort());
  assert.deepEqual(b['x.Extra'], { type: 'object' });
});

test('a map of the built-in definitions takes writes and deletes as a plain object does', () => {
  const defs = builtinDefinitions();
  defs[POD] = { type: 'string' };
  assert.deepEqual(defs[POD], { type: 'string' });
  delete defs['io.k8s.api.core.v1.Service'];
  assert.equal('io.k8s.api.core.v1.Service' in defs, false);
  // Other maps keep theirs.
  assert.equal(builtinDefinitions()[POD]!.type, 'object');
  assert.ok(builtinDefinitions()['io.k8s.api.core.v1.Service']);
});
