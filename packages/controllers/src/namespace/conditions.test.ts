import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { NamespaceStatus } from '@kplane/runtime';
import { applyNamespaceConditions, DiscoveryError, namespaceConditions, type DeletionOutcome } from './conditions.js';

const empty = (): DeletionOutcome => ({ contentErrors: [], remaining: [], finalizers: new Map() });

it('words remaining content and finalizers as kube-controller-manager does (the seed messages)', () => {
  const failing = namespaceConditions({
    ...empty(),
    remaining: [{ group: '', resource: 'configmaps', count: 1 }],
    finalizers: new Map([['cours.exemple/archivage', 1]]),
  });
  assert.deepEqual([...failing.keys()], ['NamespaceContentRemaining', 'NamespaceFinalizersRemaining']);
  assert.deepEqual(failing.get('NamespaceContentRemaining'), {
    reason: 'SomeResourcesRemain',
    message: 'Some resources are remaining: configmaps. has 1 resource instances',
  });
  assert.deepEqual(failing.get('NamespaceFinalizersRemaining'), {
    reason: 'SomeFinalizersRemain',
    message: 'Some content in the namespace has finalizers remaining: cours.exemple/archivage in 1 resource instances',
  });
});

it('sorts several resources and finalizers, and skips zero counts', () => {
  const failing = namespaceConditions({
    ...empty(),
    remaining: [
      { group: 'apps', resource: 'deployments', count: 5 },
      { group: 'apps', resource: 'daemonsets', count: 5 },
      { group: '', resource: 'secrets', count: 0 },
    ],
    finalizers: new Map([['service-catalog', 6], ['kubedb', 5], ['none', 0]]),
  });
  assert.equal(failing.get('NamespaceContentRemaining')!.message, 'Some resources are remaining: daemonsets.apps has 5 resource instances, deployments.apps has 5 resource instances');
  assert.equal(failing.get('NamespaceFinalizersRemaining')!.message, 'Some content in the namespace has finalizers remaining: kubedb in 5 resource instances, service-catalog in 6 resource instances');
});

it('reports discovery, group/version and content failures', () => {
  const failing = namespaceConditions({
    ...empty(),
    discoveryError: new DiscoveryError(new Map([['metrics.k8s.io/v1beta1', 'the server is currently unable to handle the request']])),
    groupVersionError: new Error('unexpected GroupVersion string: a/b/c'),
    contentErrors: ['zeta failed', 'alpha failed'],
  });
  assert.deepEqual(failing.get('NamespaceDeletionDiscoveryFailure'), {
    reason: 'DiscoveryFailed',
    message: 'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request',
  });
  assert.deepEqual(failing.get('NamespaceDeletionGroupVersionParsingFailure'), { reason: 'GroupVersionParsingFailed', message: 'unexpected GroupVersion string: a/b/c' });
  assert.deepEqual(failing.get('NamespaceDeletionContentFailure'), {
    reason: 'ContentDeletionFailed',
    message: 'Failed to delete all resource types, 2 remaining: alpha failed, zeta failed',
  });
  const plain = namespaceConditions({ ...empty(), discoveryError: new Error('connection refused') });
  assert.equal(plain.get('NamespaceDeletionDiscoveryFailure')!.message, 'connection refused');
});

it('writes all five conditions, ok ones False, and moves lastTransitionTime only when the status flips', () => {
  const status: NamespaceStatus = { phase: 'Terminating' };
  const t1 = '2026-01-01T00:00:00Z';
  const stuck = namespaceConditions({ ...empty(), remaining: [{ group: '', resource: 'configmaps', count: 2 }], finalizers: new Map([['x/y', 2]]) });
  assert.equal(applyNamespaceConditions(status, stuck, t1), true);
  assert.deepEqual(
    status.conditions!.map((c) => [c.type, c.status, c.reason]),
    [
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
      ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain'],
      ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain'],
    ],
  );
  assert.equal(status.conditions![0]!.message, 'All resources successfully discovered');
  assert.equal(status.conditions![1]!.message, 'All legacy kube types successfully parsed');
  assert.equal(status.conditions![2]!.message, 'All content successfully deleted, may be waiting on finalization');

  // Same outcome later: nothing to write.
  assert.equal(applyNamespaceConditions(status, stuck, '2026-01-01T00:01:00Z'), false);

  // One fewer object: message changes, status does not, so the time stays.
  const fewer = namespaceConditions({ ...empty(), remaining: [{ group: '', resource: 'configmaps', count: 1 }], finalizers: new Map([['x/y', 1]]) });
  assert.equal(applyNamespaceConditions(status, fewer, '2026-01-01T00:02:00Z'), true);
  const remaining = status.conditions!.find((c) => c.type === 'NamespaceContentRemaining')!;
  assert.equal(remaining.message, 'Some resources are remaining: configmaps. has 1 resource instances');
  assert.equal(remaining.lastTransitionTime, t1);

  // All gone: True → False flips the time.
  const t3 = '2026-01-01T00:03:00Z';
  assert.equal(applyNamespaceConditions(status, namespaceConditions(empty()), t3), true);
  for (const type of ['NamespaceContentRemaining', 'NamespaceFinalizersRemaining']) {
    const c = status.conditions!.find((x) => x.type === type)!;
    assert.deepEqual([c.status, c.reason, c.message, c.lastTransitionTime], ['False', 'ContentRemoved', 'All content successfully removed', t3]);
  }
  assert.equal(status.conditions!.length, 5);
});
