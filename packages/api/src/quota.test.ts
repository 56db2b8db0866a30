import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addResources, exceededResources, formatQuantity, objectUsage, parseQuantityExact, podConstraintError, podUsage, prettyPrintResources, quotaMatches, subtractResources,
} from './quota.js';

const fmt = (s: string) => formatQuantity(parseQuantityExact(s)!);

test('quantities print in kube\'s canonical form', () => {
  assert.equal(fmt('1000m'), '1');
  assert.equal(fmt('1500m'), '1500m');
  assert.equal(fmt('0.5'), '500m');
  assert.equal(fmt('2000'), '2k');
  assert.equal(fmt('1024Mi'), '1Gi');
  assert.equal(fmt('1.5Gi'), '1536Mi');
  assert.equal(fmt('512'), '512');
  assert.equal(fmt('1e3'), '1e3');
  assert.equal(fmt('0'), '0');
  assert.equal(parseQuantityExact('12x'), undefined);
});

test('sums keep the first operand\'s format', () => {
  assert.deepEqual(addResources({ cpu: '500m', memory: '1Gi' }, { cpu: '500m', memory: '512Mi', pods: '1' }), { cpu: '1', memory: '1536Mi', pods: '1' });
  assert.deepEqual(subtractResources({ pods: '3' }, { pods: '1' }), { pods: '2' });
  assert.deepEqual(addResources({ memory: '0' }, { memory: '512Mi' }), { memory: '512Mi' });
});

const pod = (containers: object[], extra: object = {}) => ({ spec: { containers, ...extra } });

test('a pod\'s usage: pods, count/pods and its requests and limits; nothing once terminal', () => {
  const p = pod([
    { name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m' } } },
    { name: 'b', resources: { requests: { cpu: '900m' } } },
  ]);
  assert.deepEqual(podUsage(p), { pods: '1', 'count/pods': '1', cpu: '1', 'requests.cpu': '1', memory: '64Mi', 'requests.memory': '64Mi', 'limits.cpu': '200m' });
  assert.deepEqual(podUsage({ ...p, status: { phase: 'Succeeded' } }), {});
});

test('init containers count as the max, not the sum', () => {
  const p = { spec: { containers: [{ name: 'a', resources: { requests: { cpu: '100m' } } }], initContainers: [{ name: 'i', resources: { requests: { cpu: '1' } } }] } };
  assert.equal(podUsage(p)['requests.cpu'], '1');
});

test('"must specify" names each missing resource and its containers, sorted', () => {
  const p = pod([{ name: 'web', resources: { requests: { cpu: '1' } } }, { name: 'side' }]);
  assert.equal(podConstraintError(p, ['requests.cpu', 'limits.memory', 'pods']), 'must specify limits.memory for: side,web; requests.cpu for: side');
  assert.equal(podConstraintError(p, ['pods', 'count/pods']), undefined);
});

test('scopes: Terminating, BestEffort, PriorityClass; scoped quotas match pods only', () => {
  const best = pod([{ name: 'a' }]);
  const deadline = pod([{ name: 'a', resources: { requests: { cpu: '1' } } }], { activeDeadlineSeconds: 10, priorityClassName: 'high' });
  assert.ok(quotaMatches({ scopes: ['BestEffort'] }, 'pods', '', best));
  assert.ok(!quotaMatches({ scopes: ['BestEffort'] }, 'pods', '', deadline));
  assert.ok(quotaMatches({ scopes: ['Terminating', 'NotBestEffort'] }, 'pods', '', deadline));
  assert.ok(quotaMatches({ scopes: ['NotTerminating'] }, 'pods', '', best));
  const sel = (operator: string, values?: string[]) => ({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator, values }] } });
  assert.ok(quotaMatches(sel('In', ['high']), 'pods', '', deadline));
  assert.ok(!quotaMatches(sel('NotIn', ['high']), 'pods', '', deadline));
  assert.ok(quotaMatches(sel('DoesNotExist'), 'pods', '', best));
  assert.ok(!quotaMatches({ scopes: ['BestEffort'] }, 'services', '', {}));
  assert.ok(quotaMatches({}, 'services', '', {}));
});

test('services count node ports and load balancers; other kinds count under count/<resource>.<group>', () => {
  assert.deepEqual(objectUsage('services', '', { spec: { type: 'NodePort', ports: [{}, {}] } }), { 'count/services': '1', services: '1', 'services.nodeports': '2', 'services.loadbalancers': '0' });
  assert.deepEqual(objectUsage('services', '', { spec: { type: 'LoadBalancer', ports: [{}] } }), { 'count/services': '1', services: '1', 'services.nodeports': '1', 'services.loadbalancers': '1' });
  assert.deepEqual(objectUsage('jobs', 'batch', {}), { 'count/jobs.batch': '1' });
  assert.deepEqual(objectUsage('persistentvolumeclaims', '', { spec: { resources: { requests: { storage: '1Gi' } } } }), { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '1Gi' });
});

test('exceeded resources and kube\'s printing of resource lists', () => {
  assert.deepEqual(exceededResources({ pods: '3', cpu: '2' }, { pods: '3', cpu: '1' }, { pods: '1', cpu: '1' }), ['pods']);
  assert.deepEqual(exceededResources({ cpu: '2' }, { cpu: '1500m' }, { cpu: '600m' }), ['cpu']);
  assert.equal(prettyPrintResources({ pods: '1', cpu: '1' }), 'cpu=1,pods=1');
});
