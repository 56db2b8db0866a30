import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nameIsDNSLabel, type KubeObject } from '@kplane/api';
import { configMapResource, secretResource } from './config.js';
import { namespaceResource } from './namespace.js';
import { nodeResource, serviceAccountResource } from './node.js';
import { endpointsResource, serviceResource } from './service.js';
import { createServiceAllocator } from '../server/ip-allocator.js';

const now = new Date('2024-05-01T12:00:00Z');
const created = '2024-05-01T11:59:00Z';
const msgs = (r: { strategy: { validate?: (o: KubeObject, old?: KubeObject) => { field?: string; message?: string }[] } }, o: KubeObject, old?: KubeObject) =>
  (r.strategy.validate?.(o, old) ?? []).map((c) => `${c.field}: ${c.message}`);

test('namespaces: label, finalizer, phase, name rule, table, selector', async () => {
  const ns = namespaceResource();
  assert.deepEqual(ns.verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
  assert.equal(ns.namespaced, false);
  const o: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev', creationTimestamp: created } };
  ns.strategy.defaults?.(o);
  await ns.strategy.prepareForCreate?.(o, {});
  assert.deepEqual(o.metadata?.labels, { 'kubernetes.io/metadata.name': 'dev' });
  assert.deepEqual(o.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(o.status, { phase: 'Active' });
  assert.deepEqual(ns.strategy.table?.row(o, now), ['dev', 'Active', '60s']);
  assert.equal(ns.strategy.fieldSelectors?.['status.phase']?.(o), 'Active');
  assert.equal(ns.strategy.deletionHeld?.(o), true);
  ns.strategy.prepareForDelete?.(o);
  assert.equal((o.status as any).phase, 'Terminating');
  assert.equal(ns.strategy.deletionHeld?.({ ...o, spec: { finalizers: [] } }), false);
  // Names are checked as DNS labels by the generic metadata validation (the kind's nameValidator).
  assert.equal(ns.strategy.nameValidator, nameIsDNSLabel);
  assert.throws(() => ns.strategy.beforeDelete?.({ metadata: { name: 'kube-system' } }), /namespaces "kube-system" is forbidden: this namespace may not be deleted/);
  assert.doesNotThrow(() => ns.strategy.beforeDelete?.({ metadata: { name: 'dev' } }));
});

test('configmaps: key validation, binaryData overlap, immutability, table', () => {
  const cm = configMapResource();
  assert.deepEqual(cm.shortNames, ['cm']);
  assert.equal(cm.strategy.generation, false);
  const bad: KubeObject = { metadata: { name: 'c' }, data: { 'a b': 'x', ok: '1' }, binaryData: { ok: 'AA==' } };
  assert.deepEqual(msgs(cm, bad), [
    `data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    'data[ok]: Invalid value: "ok": duplicate of key present in binaryData',
  ]);
  const old: KubeObject = { metadata: { name: 'c' }, data: { a: '1' }, immutable: true };
  assert.deepEqual(msgs(cm, { ...old, data: { a: '2' } }, old), ['data: Forbidden: field is immutable when `immutable` is set']);
  assert.deepEqual(cm.strategy.table?.row({ metadata: { name: 'c', creationTimestamp: created }, data: { a: '1' }, binaryData: { b: '' } }, now), ['c', 2, '60s']);
});

test('secrets: type default, stringData, typed keys, table and selector', () => {
  const sec = secretResource();
  const o: KubeObject = { metadata: { name: 's', creationTimestamp: created }, data: { a: 'eA==' }, stringData: { b: 'hello' } };
  sec.strategy.defaults?.(o);
  assert.equal(o.type, 'Opaque');
  assert.deepEqual(o.data, { a: 'eA==', b: 'aGVsbG8=' });
  assert.equal(o.stringData, undefined);
  assert.deepEqual(sec.strategy.table?.row(o, now), ['s', 'Opaque', 2, '60s']);
  assert.equal(sec.strategy.fieldSelectors?.type?.(o), 'Opaque');
  assert.deepEqual(msgs(sec, { metadata: { name: 't' }, type: 'kubernetes.io/tls', data: {} }), ['data[tls.crt]: Required value', 'data[tls.key]: Required value']);
  assert.deepEqual(msgs(sec, { ...o, type: 'Other' }, o), ['type: Invalid value: "Other": field is immutable']);
});

test('services: defaults, ClusterIP allocation and release, validation, table', async () => {
  const svc = serviceResource();
  assert.equal(svc.storagePrefix, '/registry/services/specs');
  assert.deepEqual(svc.shortNames, ['svc']);
  const o: KubeObject = { metadata: { name: 'web', creationTimestamp: created }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
  svc.strategy.defaults?.(o);
  const spec = o.spec as Record<string, any>;
  assert.equal(spec.type, 'ClusterIP');
  assert.equal(spec.sessionAffinity, 'None');
  assert.deepEqual(spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
  assert.deepEqual(spec.ipFamilies, ['IPv4']);
  assert.equal(spec.ipFamilyPolicy, 'SingleStack');
  assert.equal(spec.internalTrafficPolicy, 'Cluster');
  const ctx = { serviceAllocator: createServiceAllocator({ random: () => 0 }) };
  o.metadata!.uid = 'u1';
  (o.spec as any).clusterIP = '10.96.0.10';
  await svc.strategy.prepareForCreate?.(o, ctx);
  assert.equal(spec.clusterIP, '10.96.0.10');
  assert.deepEqual(spec.clusterIPs, ['10.96.0.10']);
  assert.deepEqual(msgs(svc, o), []);
  assert.deepEqual(svc.strategy.table?.row(o, now), ['web', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP', '60s', 'app=web']);
  // An update without clusterIP keeps the allocated one.
  const next: KubeObject = { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
  svc.strategy.defaults?.(next);
  assert.deepEqual(msgs(svc, next, o), []);
  await svc.strategy.prepareForUpdate?.(next, o, ctx);
  assert.equal((next.spec as any).clusterIP, '10.96.0.10');
  const moved = structuredClone(o);
  (moved.spec as any).clusterIPs = ['10.96.0.11'];
  assert.deepEqual(msgs(svc, moved, o), ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']);
  assert.deepEqual(ctx.serviceAllocator.usage(), { ips: 1, ports: 0 });
  await svc.strategy.afterDelete?.(o, ctx);
  assert.deepEqual(ctx.serviceAllocator.usage(), { ips: 0, ports: 0 });

  const headless: KubeObject = { metadata: { name: 'h' }, spec: { clusterIP: 'None', selector: { app: 'x' } } };
  svc.strategy.defaults?.(headless);
  await svc.strategy.prepareForCreate?.(headless, ctx);
  assert.deepEqual(ctx.serviceAllocator.usage(), { ips: 0, ports: 0 }, 'headless: no IP');
  assert.deepEqual(msgs(svc, headless), []);
  assert.deepEqual(msgs(svc, { metadata: { name: 'n' }, spec: { type: 'ClusterIP' } }), ['spec.ports: Required value']);
  const two: KubeObject = { metadata: { name: 'n' }, spec: { ports: [{ port: 80 }, { port: 0, name: 'b' }] } };
  svc.strategy.defaults?.(two);
  assert.deepEqual(msgs(svc, two), [
    'spec.ports[0].name: Required value',
    'spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    'spec.ports[1].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
  ]);

  const np: KubeObject = { metadata: { name: 'np', uid: 'u2', creationTimestamp: created }, spec: { type: 'NodePort', ports: [{ port: 80 }] } };
  svc.strategy.defaults?.(np);
  await svc.strategy.prepareForCreate?.(np, ctx);
  const nodePort = (np.spec as any).ports[0].nodePort;
  assert.ok(nodePort >= 30000 && nodePort <= 32767);
  assert.equal((np.spec as any).externalTrafficPolicy, 'Cluster');
  assert.equal(svc.strategy.table?.row(np, now)[4], `80:${nodePort}/TCP`);
  const lb: KubeObject = { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', clusterIPs: ['10.0.0.1'], ports: [{ port: 443, protocol: 'TCP' }] } };
  assert.equal(svc.strategy.table?.row(lb, now)[3], '<pending>');
});

test('endpoints table and validation', () => {
  const ep = endpointsResource();
  assert.equal(ep.storagePrefix, '/registry/services/endpoints');
  const o: KubeObject = {
    metadata: { name: 'web', creationTimestamp: created },
    subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }, { ip: '10.0.0.4' }], ports: [{ port: 80 }] }],
  };
  assert.deepEqual(ep.strategy.table?.row(o, now), ['web', '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...', '60s']);
  assert.deepEqual(ep.strategy.table?.row({ metadata: { name: 'e' } }, now), ['e', '<none>', '<unknown>']);
  assert.deepEqual(msgs(ep, { metadata: { name: 'e' }, subsets: [{ addresses: [{ ip: 'nope' }] }] }), [
    'subsets[0].addresses[0].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
  ]);
});

test('nodes: storage, status kept on create, table, selector', () => {
  const node = nodeResource();
  assert.equal(node.storagePrefix, '/registry/minions');
  assert.equal(node.strategy.resetStatusOnCreate, false);
  assert.deepEqual(node.shortNames, ['no']);
  const o: KubeObject = {
    metadata: { name: 'n1', creationTimestamp: created, labels: { 'node-role.kubernetes.io/control-plane': '' } },
    spec: { unschedulable: true },
    status: {
      capacity: { cpu: '4' },
      conditions: [{ type: 'Ready', status: 'True' }],
      addresses: [{ type: 'InternalIP', address: '172.18.0.2' }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'kplane', kernelVersion: '6.1', containerRuntimeVersion: 'sim://1' },
    },
  };
  node.strategy.defaults?.(o);
  assert.deepEqual((o.status as any).allocatable, { cpu: '4' });
  assert.deepEqual(node.strategy.table?.row(o, now), ['n1', 'Ready,SchedulingDisabled', 'control-plane', '60s', 'v1.32.0', '172.18.0.2', '<none>', 'kplane', '6.1', 'sim://1']);
  assert.equal(node.strategy.fieldSelectors?.['spec.unschedulable']?.(o), 'true');
  assert.equal(node.strategy.table?.row({ metadata: { name: 'x' } }, now)[1], 'Unknown');
});

test('serviceaccounts table', () => {
  const sa = serviceAccountResource();
  assert.deepEqual(sa.shortNames, ['sa']);
  assert.deepEqual(sa.strategy.table?.row({ metadata: { name: 'default', creationTimestamp: created } }, now), ['default', 0, '60s']);
});
