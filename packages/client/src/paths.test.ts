import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupVersionPath, resourcePath } from './paths.js';

test('core group uses /api/v1, others /apis/<group>/<version>', () => {
  assert.equal(groupVersionPath('', 'v1'), '/api/v1');
  assert.equal(groupVersionPath('apps', 'v1'), '/apis/apps/v1');
});

test('resourcePath builds namespaced, cluster-scoped and subresource paths', () => {
  assert.equal(resourcePath({ group: '', version: 'v1', resource: 'configmaps', namespace: 'default' }), '/api/v1/namespaces/default/configmaps');
  assert.equal(resourcePath({ group: '', version: 'v1', resource: 'configmaps', namespace: 'ns', name: 'x' }), '/api/v1/namespaces/ns/configmaps/x');
  assert.equal(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns', name: 'd', subresource: 'scale' }), '/apis/apps/v1/namespaces/ns/deployments/d/scale');
  assert.equal(resourcePath({ group: '', version: 'v1', resource: 'nodes', name: 'n1' }), '/api/v1/nodes/n1');
  assert.equal(resourcePath({ group: '', version: 'v1', resource: 'pods', namespace: '' }), '/api/v1/pods');
});

test('resourcePath percent-encodes segments', () => {
  assert.equal(resourcePath({ group: '', version: 'v1', resource: 'secrets', namespace: 'a b', name: 'x/y?z' }), '/api/v1/namespaces/a%20b/secrets/x%2Fy%3Fz');
  assert.equal(resourcePath({ group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', name: 'system:admin' }), '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aadmin');
});

test('a subresource without a name is refused', () => {
  assert.throws(() => resourcePath({ group: '', version: 'v1', resource: 'pods', subresource: 'status' }), /needs a resource name/);
});
