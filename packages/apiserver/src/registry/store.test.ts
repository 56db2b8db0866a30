import { it } from 'node:test';
import assert from 'node:assert/strict';
import { withResourceVersion } from './json-writer.js';

it('splices the resourceVersion into stored JSON, and declines other layouts', () => {
  assert.equal(
    withResourceVersion('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"metadata":{}}}', 7),
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"7","name":"a"},"data":{"metadata":{}}}',
  );
  assert.equal(withResourceVersion('{"apiVersion":"v1","kind":"X","metadata":{}}', 3), '{"apiVersion":"v1","kind":"X","metadata":{"resourceVersion":"3"}}');
  // Any other head (an older layout, or a nested "metadata" first) is re-encoded by the caller.
  assert.equal(withResourceVersion('{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}', 3), undefined);
  assert.equal(withResourceVersion('{"apiVersion":"apps/v1","kind":"Deployment","spec":{"template":{"metadata":{}}},"metadata":{}}', 3), undefined);
  const parsed = JSON.parse(withResourceVersion('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"y"}}}', 12)!);
  assert.deepEqual(parsed.metadata, { resourceVersion: '12', name: 'a', labels: { x: 'y' } });
});
