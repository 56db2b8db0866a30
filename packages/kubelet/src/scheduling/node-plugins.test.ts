import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { kinds } from '@kplane/runtime';
import { tolerates } from '@kplane/runtime/internal';
import { clusterOf, decide, node, pod } from './fixtures.js';

const fails = (r: ReturnType<typeof decide>) => ('failures' in r ? [...r.failures].map(([n, f]) => `${n}: ${f.reasons.join(', ')}`) : r.node);

describe('node plugins (NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts)', () => {
  it('matches tolerations as v1helper does', () => {
    const taint = { key: 'k', value: 'v', effect: 'NoExecute' as const };
    assert.ok(tolerates({ key: 'k', operator: 'Equal', value: 'v' }, taint));
    assert.ok(tolerates({ operator: 'Exists' }, taint));
    assert.ok(!tolerates({ key: 'k', value: 'w' }, taint));
    assert.ok(!tolerates({ key: 'k', operator: 'Exists', effect: 'NoSchedule' }, taint));
  });

  it('filters cordoned, tainted and not-ready nodes unless tolerated', () => {
    const notReady = node('nr');
    notReady.status!.conditions = [{ type: 'Ready', status: 'False' }];
    const c = clusterOf([node('cordoned', {}, {}, { unschedulable: true }), node('tainted', {}, {}, { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }), notReady]);
    assert.deepEqual(fails(decide(c, pod('p'))), [
      'cordoned: node(s) were unschedulable',
      'tainted: node(s) had untolerated taint {dedicated: gpu}',
      'nr: node(s) had untolerated taint {node.kubernetes.io/not-ready: }',
    ]);
    assert.equal(fails(decide(c, pod('t', { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }))), 'tainted');
  });

  it('prefers a node without an untolerated PreferNoSchedule taint', () => {
    const c = clusterOf([node('a', {}, {}, { taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] }), node('b')]);
    assert.equal(fails(decide(c, pod('p'))), 'b');
    // Tolerating it makes both equal again; the name decides.
    assert.equal(fails(decide(c, pod('q', { tolerations: [{ key: 'spot', operator: 'Exists', effect: 'PreferNoSchedule' }] }))), 'a');
  });

  it('requires nodeSelector and required node affinity, and weighs preferred terms (the docs example)', () => {
    const c = clusterOf([node('n1', { 'topology.kubernetes.io/zone': 'antarctica-east1', 'label-1': 'key-1' }), node('n2', { 'topology.kubernetes.io/zone': 'antarctica-east1', 'label-2': 'key-2' }), node('n3', { 'topology.kubernetes.io/zone': 'elsewhere' })]);
    const affinity: kinds.Affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['antarctica-east1'] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 1, preference: { matchExpressions: [{ key: 'label-1', operator: 'In', values: ['key-1'] }] } },
          { weight: 50, preference: { matchExpressions: [{ key: 'label-2', operator: 'In', values: ['key-2'] }] } },
        ],
      },
    };
    assert.equal(fails(decide(c, pod('p', { affinity }))), 'n2');
    assert.deepEqual(fails(decide(c, pod('s', { nodeSelector: { disk: 'ssd' } }))).length, 3);
    assert.match(String(fails(decide(c, pod('s', { nodeSelector: { disk: 'ssd' } })))), /n1: node\(s\) didn't match Pod's node affinity\/selector/);
  });

  it('rejects a node whose host port is taken', () => {
    const web = (name: string) => pod(name, { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] }] });
    const c = clusterOf([node('a'), node('b')], [[web('w1'), 'a']]);
    assert.equal(fails(decide(c, web('w2'))), 'b');
    const full = clusterOf([node('a')], [[web('w1'), 'a']]);
    assert.deepEqual(fails(decide(full, web('w2'))), ["a: node(s) didn't have free ports for the requested pod ports"]);
  });
});
