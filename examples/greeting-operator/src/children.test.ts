import { test } from 'node:test';
import assert from 'node:assert/strict';
import { covers, desiredDeployment, desiredIngress, desiredStatus, statusCovered } from './children.js';
import type { Greeting } from './kind.js';

const g = (spec: Greeting['spec'], status?: Greeting['status']): Greeting => ({
  metadata: { name: 'hello', namespace: 'demo', uid: 'u-1', generation: 3 },
  spec,
  ...(status ? { status } : {}),
});

test('covers: every stated field equal, extra live fields ignored, arrays element by element', () => {
  assert.equal(covers({ a: 1, b: { c: 'x', d: true } }, { b: { c: 'x' } }), true);
  assert.equal(covers({ a: 1 }, { a: 2 }), false);
  assert.equal(covers({ ports: [{ port: 80, protocol: 'TCP', nodePort: 0 }] }, { ports: [{ port: 80, protocol: 'TCP' }] }), true);
  assert.equal(covers({ ports: [{ port: 80 }, { port: 81 }] }, { ports: [{ port: 80 }] }), false, 'a list of another length');
  assert.equal(covers(undefined, { a: 1 }), false);
  assert.equal(covers({ a: [] }, { a: {} }), false);
});

test('the Deployment follows the spec, with the defaults the schema would give', () => {
  const dep = desiredDeployment(g({ version: '1.2', replicas: 4, message: 'salut' }));
  assert.equal(dep.spec?.replicas, 4);
  assert.equal(dep.spec?.template?.spec?.containers?.[0]?.image, 'ghcr.io/example/hello:1.2');
  assert.deepEqual(dep.spec?.template?.spec?.containers?.[0]?.env, [{ name: 'GREETING', value: 'salut' }]);
  assert.equal(desiredDeployment(g({ version: '1.2' })).spec?.replicas, 2);
});

test('the Ingress has a rule for the host, or one for every host', () => {
  assert.equal(desiredIngress(g({ version: '1.0', host: 'hello.apps.example.com' })).spec?.rules?.[0]?.host, 'hello.apps.example.com');
  assert.equal(desiredIngress(g({ version: '1.0' })).spec?.rules?.[0]?.host, undefined);
});

test('the status: Ready when every replica is, its transition time kept while it holds', () => {
  const first = desiredStatus(g({ version: '1.0', replicas: 2 }), 1, Date.parse('2026-01-01T00:00:00Z'));
  assert.deepEqual(first.conditions, [
    { type: 'Ready', status: 'False', reason: 'DeploymentStatus', message: '1/2 replicas ready', observedGeneration: 3, lastTransitionTime: '2026-01-01T00:00:00Z' },
  ]);
  assert.equal(first.observedGeneration, 3);
  assert.equal(first.url, undefined, 'no host, no URL');
  const ready = desiredStatus(g({ version: '1.0', replicas: 2, host: 'a.apps.example.com' }, first), 2, Date.parse('2026-01-01T00:01:00Z'));
  assert.equal(ready.conditions?.[0]?.status, 'True');
  assert.equal(ready.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:01:00Z');
  assert.equal(ready.url, 'https://a.apps.example.com');
  const again = desiredStatus(g({ version: '1.0', replicas: 2, host: 'a.apps.example.com' }, ready), 2, Date.parse('2026-01-01T00:05:00Z'));
  assert.equal(again.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:01:00Z');
  assert.equal(statusCovered(g({ version: '1.0', replicas: 2, host: 'a.apps.example.com' }, ready), again), true);
  assert.equal(statusCovered(g({ version: '1.0', replicas: 2 }, ready), desiredStatus(g({ version: '1.0', replicas: 2 }, ready), 2, 0)), false, 'the URL goes with the host');
});

test('the status keeps to its own condition: others are left to their writers', () => {
  const other = { type: 'Audited', status: 'True' as const, reason: 'Seen', message: 'by someone else' };
  const s = desiredStatus(g({ version: '1.0' }, { conditions: [other] }), 2, 0);
  assert.deepEqual(s.conditions?.map((c) => c.type), ['Ready']);
});
