import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '@kplane/api';
import { endpointSliceResource } from './endpointslice.js';

const slices = endpointSliceResource();
const now = new Date('2024-05-01T12:01:00Z');
const msgs = (obj: KubeObject, old?: KubeObject) => (slices.strategy.validate?.(obj, old) ?? []).map((c) => `${c.field}: ${c.message}`);

function slice(extra: Record<string, unknown>): KubeObject {
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abcde', creationTimestamp: '2024-05-01T12:00:00Z' }, addressType: 'IPv4', endpoints: [], ...extra } as KubeObject;
}

test('names and storage as kube-apiserver serves them', () => {
  assert.equal(slices.group, 'discovery.k8s.io');
  assert.equal(slices.storagePrefix, '/registry/endpointslices');
  assert.equal(slices.shortNames, undefined);
  assert.equal(slices.strategy.generation, true);
});

test('ports default to TCP and an empty name', () => {
  const s = slice({ ports: [{ port: 80 }] });
  slices.strategy.defaults?.(s);
  assert.deepEqual((s as any).ports, [{ port: 80, protocol: 'TCP', name: '' }]);
});

test('table: NAME, ADDRESSTYPE, PORTS, ENDPOINTS, AGE as kubectl prints them', () => {
  assert.deepEqual(slices.strategy.table?.columns.map((c) => c.name), ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
  assert.deepEqual(slices.strategy.table?.row(slice({}), now), ['web-abcde', 'IPv4', '<unset>', '<unset>', '60s']);
  const eps = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5'].map((a) => ({ addresses: [a] }));
  const full = slice({ ports: [{ port: 80 }, { name: 'x' }, {}, { port: 1 }], endpoints: eps });
  assert.deepEqual(slices.strategy.table?.row(full, now), ['web-abcde', 'IPv4', '80,x,* + 1 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...', '60s']);
});

test('validation messages', () => {
  assert.deepEqual(msgs(slice({ addressType: 'IPv5' })), ['addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"']);
  assert.deepEqual(msgs(slice({ endpoints: [{ addresses: [] }, { addresses: ['fe80::1'] }] })), [
    'endpoints[0].addresses: Required value: must contain at least 1 address',
    'endpoints[1].addresses[0]: Invalid value: "fe80::1": must be a valid IPv4 address',
  ]);
  assert.deepEqual(msgs(slice({ ports: [{ name: 'a', protocol: 'TCP', port: 0 }, { name: 'a', protocol: 'TCP' }] })), [
    'ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    'ports[1].name: Duplicate value: "a"',
  ]);
  assert.deepEqual(msgs(slice({ addressType: 'IPv6' }), slice({})), ['addressType: Invalid value: "IPv6": field is immutable']);
  assert.deepEqual(msgs(slice({ endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'Node_1' }] })).length, 1);
});
