import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EndpointSlice, Pod, Service } from '@kplane/runtime';
import { reconcileSlices } from './reconciler.js';

const svc: Service = {
  metadata: { name: 'web', namespace: 'default', uid: 'svc-uid', labels: { app: 'web' }, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }], ipFamilies: ['IPv4'] },
};

function pod(i: number, extra: { ready?: boolean; deleting?: boolean; port?: number } = {}): Pod {
  return {
    metadata: { name: `p${i}`, namespace: 'default', uid: `uid-${i}`, labels: { app: 'web' }, ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}) },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'x', ports: [{ name: 'http', containerPort: extra.port ?? 8080, protocol: 'TCP' }] }] },
    status: { phase: 'Running', podIP: `10.244.${Math.floor(i / 250)}.${(i % 250) + 1}`, conditions: [{ type: 'Ready', status: extra.ready === false ? 'False' : 'True' }] },
  };
}

/** Applies changes as the API would (names for created slices). */
function apply(existing: EndpointSlice[], ch: ReturnType<typeof reconcileSlices>): EndpointSlice[] {
  const gone = new Set(ch.delete.map((s) => s.metadata!.name));
  const updated = new Map(ch.update.map((s) => [s.metadata!.name, s]));
  let n = existing.length;
  return [
    ...existing.filter((s) => !gone.has(s.metadata!.name)).map((s) => updated.get(s.metadata!.name) ?? s),
    ...ch.create.map((s) => ({ ...s, metadata: { ...s.metadata, name: `web-${n++}` } })),
  ];
}

test('one slice per port set, at most 100 endpoints each, with labels, owner and conditions', () => {
  const pods = Array.from({ length: 250 }, (_, i) => pod(i));
  const ch = reconcileSlices({ service: svc, pods, existing: [], node: () => ({ metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'z1' } } }) });
  assert.deepEqual(ch.create.map((s) => s.endpoints.length), [100, 100, 50]);
  const s = ch.create[0]!;
  assert.equal(s.metadata?.generateName, 'web-');
  assert.deepEqual(s.metadata?.labels, { app: 'web', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
  assert.deepEqual(s.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-uid', controller: true, blockOwnerDeletion: true }]);
  assert.deepEqual(s.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  assert.deepEqual(s.endpoints[0], {
    addresses: ['10.244.0.1'],
    conditions: { ready: true, serving: true, terminating: false },
    nodeName: 'node-1',
    targetRef: { kind: 'Pod', namespace: 'default', name: 'p0', uid: 'uid-0' },
    zone: 'z1',
  });
});

test('endpoints stay in their slices; changes update in place; new ones fill free room', () => {
  const pods = Array.from({ length: 150 }, (_, i) => pod(i));
  let slices = apply([], reconcileSlices({ service: svc, pods, existing: [] }));
  assert.equal(slices.length, 2);
  // Nothing changed: nothing to write.
  const same = reconcileSlices({ service: svc, pods, existing: slices });
  assert.deepEqual([same.create.length, same.update.length, same.delete.length], [0, 0, 0]);
  // One pod turns unready, one is deleting, one is gone, two are new.
  const next = [...pods.slice(1, 148), pod(148, { ready: false }), pod(149, { deleting: true }), pod(150), pod(151)];
  const ch = reconcileSlices({ service: svc, pods: next, existing: slices });
  assert.equal(ch.create.length, 0, 'new endpoints fill the room left');
  assert.equal(ch.delete.length, 0);
  slices = apply(slices, ch);
  const all = slices.flatMap((s) => s.endpoints);
  assert.equal(all.length, 151);
  const byName = new Map(all.map((e) => [e.targetRef!.name, e]));
  assert.equal(byName.has('p0'), false);
  assert.deepEqual(byName.get('p148')!.conditions, { ready: false, serving: false, terminating: false });
  assert.deepEqual(byName.get('p149')!.conditions, { ready: false, serving: true, terminating: true });
  // publishNotReadyAddresses: ready whatever the pod says.
  const published = reconcileSlices({ service: { ...svc, spec: { ...svc.spec, publishNotReadyAddresses: true } }, pods: [pod(1, { ready: false })], existing: [] });
  assert.deepEqual(published.create[0]!.endpoints[0]!.conditions, { ready: true, serving: true, terminating: false });
});

test('named ports resolve per pod: different container ports make different slices', () => {
  const ch = reconcileSlices({ service: svc, pods: [pod(1), pod(2, { port: 9090 })], existing: [] });
  assert.deepEqual(ch.create.map((s) => s.ports?.[0]?.port).sort(), [8080, 9090]);
});

test('a Service without endpoints keeps one placeholder slice, reused once endpoints come', () => {
  const first = reconcileSlices({ service: svc, pods: [], existing: [] });
  assert.equal(first.create.length, 1);
  assert.deepEqual(first.create[0]!.endpoints, []);
  assert.equal(first.create[0]!.ports, undefined);
  const slices = apply([], first);
  const again = reconcileSlices({ service: svc, pods: [], existing: slices });
  assert.deepEqual([again.create.length, again.update.length, again.delete.length], [0, 0, 0]);
  const filled = reconcileSlices({ service: svc, pods: [pod(1)], existing: slices });
  assert.deepEqual([filled.create.length, filled.update.length, filled.delete.length], [0, 1, 0]);
  assert.equal(filled.update[0]!.metadata?.name, 'web-0');
  assert.equal(filled.update[0]!.endpoints.length, 1);
  // And back: the last endpoint gone leaves the placeholder again.
  const emptied = reconcileSlices({ service: svc, pods: [], existing: apply(slices, filled) });
  assert.equal(emptied.delete.length + emptied.create.length, 2, 'the slice with ports goes, a placeholder comes');
});
