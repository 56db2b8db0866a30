import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goJsonValue } from './go-json.js';
import { revisionData } from './history.js';

test('renders a pod template as a Go client re-encodes it', () => {
  const template = {
    metadata: { labels: { app: 'bind' }, annotations: {} },
    spec: {
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchExpressions: [{ key: 'service', operator: 'In', values: ['bind'] }] }, topologyKey: 'kubernetes.io/hostname', namespaces: [] }] } },
      containers: [{ name: 'c', image: 'i', resources: {}, ports: [], unknownField: 1 }],
      securityContext: {},
      hostNetwork: false,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 30,
    },
  };
  assert.deepEqual(goJsonValue(template, 'io.k8s.api.core.v1.PodTemplateSpec'), {
    metadata: { creationTimestamp: null, labels: { app: 'bind' } },
    spec: {
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchExpressions: [{ key: 'service', operator: 'In', values: ['bind'] }] }, topologyKey: 'kubernetes.io/hostname' }] } },
      containers: [{ name: 'c', image: 'i', resources: {} }],
      securityContext: {},
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 30,
    },
  });
  // A missing container list is written as null (no omitempty), a missing name as "".
  assert.deepEqual(goJsonValue({ spec: { containers: [{}] } }, 'io.k8s.api.core.v1.PodTemplateSpec'), {
    metadata: { creationTimestamp: null },
    spec: { containers: [{ name: '', resources: {} }] },
  });
});

test('revision data: the template with $patch replace, keys in Go order', () => {
  const data = revisionData({ spec: { selector: {}, template: { metadata: { labels: { b: '1', a: '2' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } });
  assert.equal(
    JSON.stringify(data),
    '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"a":"2","b":"1"}},"spec":{"containers":[{"image":"i","name":"c","resources":{}}]}}}}',
  );
});
