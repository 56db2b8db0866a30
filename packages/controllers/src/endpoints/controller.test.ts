import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EndpointSubset, Pod, Service } from '@kplane/runtime';
import { endpointSubsets, truncateSubsets } from './controller.js';

const addrs = (n: number, base: number) => Array.from({ length: n }, (_, i) => ({ ip: `10.0.${base}.${i}` }));

test('past 1000 addresses, not-ready ones are cut first, each subset keeping its share', () => {
  const subsets: EndpointSubset[] = [
    { addresses: addrs(600, 1), notReadyAddresses: addrs(300, 2), ports: [{ port: 80 }] },
    { addresses: addrs(200, 3), notReadyAddresses: addrs(100, 4), ports: [{ port: 81 }] },
  ];
  assert.equal(truncateSubsets(subsets), true);
  assert.deepEqual(subsets.map((s) => [s.addresses?.length, s.notReadyAddresses?.length]), [[600, 150], [200, 50]]);
  const ready: EndpointSubset[] = [{ addresses: addrs(1500, 5), notReadyAddresses: addrs(10, 6) }];
  assert.equal(truncateSubsets(ready), true);
  assert.deepEqual([ready[0]!.addresses?.length, ready[0]!.notReadyAddresses], [1000, undefined]);
  assert.equal(truncateSubsets([{ addresses: addrs(1000, 7) }]), false);
});

test('subsets group pods by resolved ports; hostnames for pods of the subdomain; finished pods left out', () => {
  const svc: Service = { metadata: { name: 'db', namespace: 'ns' }, spec: { selector: { app: 'db' }, ports: [{ name: 'sql', port: 5432, targetPort: 'sql' }] } };
  const pod = (name: string, ip: string, port: number, extra: Partial<Pod['spec']> = {}, phase: 'Running' | 'Succeeded' = 'Running'): Pod => ({
    metadata: { name, namespace: 'ns', uid: name },
    spec: { containers: [{ name: 'c', image: 'x', ports: [{ name: 'sql', containerPort: port }] }], ...extra },
    status: { phase, podIP: ip, conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const subsets = endpointSubsets(svc, [
    pod('a', '10.1.0.2', 5432, { hostname: 'a', subdomain: 'db' }),
    pod('b', '10.1.0.1', 5432),
    pod('c', '10.1.0.3', 6000),
    pod('d', '10.1.0.4', 5432, { restartPolicy: 'Never' }, 'Succeeded'),
  ]);
  assert.deepEqual(subsets.map((s) => [s.ports?.[0]?.port, s.addresses?.map((a) => `${a.ip}${a.hostname ? `/${a.hostname}` : ''}`)]), [
    [5432, ['10.1.0.1', '10.1.0.2/a']],
    [6000, ['10.1.0.3']],
  ]);
});
