/**
 * Services with the real kubectl against a `kplane up` process: ClusterIP and NodePort
 * allocation and their conflicts, the `kubernetes` Service, and the endpoints and endpointslice
 * controllers following a Deployment's pods as the simulated kubelet makes them ready.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations:
        kplane.io/ready-after-ms: "3000"
    spec:
      containers:
      - name: web
        image: nginx
        ports:
        - {name: http, containerPort: 8080}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: http}
`;

interface EndpointsJson {
  subsets?: { addresses?: { ip: string }[]; notReadyAddresses?: { ip: string }[]; ports?: { name?: string; port: number; protocol: string }[] }[];
}

describe('services', () => {
  const suite = useKplane(['--nodes', '2']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);

  it('the kubernetes Service holds the first address and lists the API server', async () => {
    const row = (await k('get', 'service', 'kubernetes', '--no-headers')).trim().split(/\s+/);
    assert.deepEqual(row.slice(0, 5), ['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP']);
    const port = new URL(suite.kp.url).port;
    const ep = (await k('get', 'endpoints', 'kubernetes', '--no-headers')).trim().split(/\s+/);
    assert.deepEqual(ep.slice(0, 2), ['kubernetes', `127.0.0.1:${port}`]);
    const slice = (await k('get', 'endpointslice', 'kubernetes', '--no-headers')).trim().split(/\s+/);
    assert.deepEqual(slice.slice(0, 4), ['kubernetes', 'IPv4', port, '127.0.0.1']);
  });

  it('a Deployment behind a Service: endpoints and slices follow its pods readiness', async () => {
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], deployment);
    // Running but not ready yet (ready after 3 s): listed as not ready.
    await eventually('not-ready addresses', async () => {
      const ep = JSON.parse(await k('get', 'endpoints', 'web', '-o', 'json')) as EndpointsJson;
      return (ep.subsets?.[0]?.notReadyAddresses?.length ?? 0) > 0;
    });
    const ready = await eventually('three ready addresses', async () => {
      const ep = JSON.parse(await k('get', 'endpoints', 'web', '-o', 'json')) as EndpointsJson;
      return ep.subsets?.length === 1 && ep.subsets[0]!.addresses?.length === 3 && !ep.subsets[0]!.notReadyAddresses ? ep : undefined;
    }, 30_000);
    assert.deepEqual(ready.subsets?.[0]?.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const ips = ready.subsets![0]!.addresses!.map((a) => a.ip);
    const epRow = (await k('get', 'endpoints', 'web', '--no-headers')).trim().split(/\s+/);
    assert.deepEqual(epRow.slice(0, 2), ['web', ips.map((ip) => `${ip}:8080`).join(',')]);

    const headers = (await k('get', 'endpointslices')).split('\n')[0]!.trim().split(/\s+/);
    assert.deepEqual(headers, ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE']);
    const slices = (await k('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '--no-headers')).trim().split('\n');
    assert.equal(slices.length, 1);
    const cells = slices[0]!.trim().split(/\s+/);
    assert.match(cells[0]!, /^web-[a-z0-9]{5}$/);
    assert.deepEqual(cells.slice(1, 3), ['IPv4', '8080']);
    assert.deepEqual(cells[3]!.split(',').sort(), [...ips].sort());
    const slice = JSON.parse(await k('get', 'endpointslice', cells[0]!, '-o', 'json')) as {
      metadata: { labels: Record<string, string>; ownerReferences: { kind: string; name: string; controller: boolean }[] };
      endpoints: { conditions: Record<string, boolean>; nodeName?: string; targetRef: { kind: string } }[];
    };
    assert.equal(slice.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
    assert.deepEqual(slice.metadata.ownerReferences.map((o) => `${o.kind}/${o.name}/${o.controller}`), ['Service/web/true']);
    for (const e of slice.endpoints) {
      assert.deepEqual(e.conditions, { ready: true, serving: true, terminating: false });
      assert.ok(e.nodeName);
      assert.equal(e.targetRef.kind, 'Pod');
    }

    // Scaled down to one: the others leave the endpoints.
    await k('scale', 'deployment', 'web', '--replicas=1');
    await eventually('one address left', async () => {
      const ep = JSON.parse(await k('get', 'endpoints', 'web', '-o', 'json')) as EndpointsJson;
      return ep.subsets?.[0]?.addresses?.length === 1 && !ep.subsets[0]!.notReadyAddresses;
    }, 30_000);
    await eventually('one endpoint in the slice', async () => (await k('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={.items[*].endpoints[*].addresses[0]}')).trim().split(/\s+/).length === 1, 30_000);
  });

  it('kubectl expose makes a ClusterIP Service with endpoints', async () => {
    await k('expose', 'deployment', 'web', '--name=exposed', '--port=8000', '--target-port=8080');
    const row = (await k('get', 'service', 'exposed', '--no-headers', '-o', 'wide')).trim().split(/\s+/);
    assert.equal(row[1], 'ClusterIP');
    assert.match(row[2]!, /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
    assert.equal(row[4], '8000/TCP');
    assert.equal(row[6], 'app=web');
    await eventually('endpoints of the exposed Service', async () => /:8080$/.test((await k('get', 'endpoints', 'exposed', '--no-headers')).trim().split(/\s+/)[1] ?? ''), 30_000);
  });

  it('ClusterIP and NodePort conflicts are refused with Kubernetes messages; deleting frees them', async () => {
    await k('create', 'service', 'clusterip', 'first', '--tcp=80', '--clusterip=10.96.0.10');
    const dup = await kubectl(suite.kp.kubeconfig, ['create', 'service', 'clusterip', 'second', '--tcp=80', '--clusterip=10.96.0.10']);
    assert.notEqual(dup.code, 0);
    assert.equal(dup.stderr.trim(), 'error: failed to create ClusterIP service: Service "second" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated');
    const out = await kubectl(suite.kp.kubeconfig, ['create', 'service', 'clusterip', 'second', '--tcp=80', '--clusterip=192.168.0.1']);
    assert.match(out.stderr, /failed to allocate IP 192\.168\.0\.1: the provided IP \(192\.168\.0\.1\) is not in the valid range\. The range of valid IPs is 10\.96\.0\.0\/12/);

    await k('create', 'service', 'nodeport', 'np1', '--tcp=80', '--node-port=30080');
    assert.match(await k('get', 'service', 'np1', '--no-headers'), /80:30080\/TCP/);
    const taken = await kubectl(suite.kp.kubeconfig, ['create', 'service', 'nodeport', 'np2', '--tcp=80', '--node-port=30080']);
    assert.equal(taken.stderr.trim(), 'error: failed to create NodePort service: Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');

    await k('delete', 'service', 'first', 'np1');
    await k('create', 'service', 'clusterip', 'second', '--tcp=80', '--clusterip=10.96.0.10');
    await k('create', 'service', 'nodeport', 'np2', '--tcp=80', '--node-port=30080');
    // A type change to ClusterIP gives the NodePort back.
    await k('patch', 'service', 'np2', '-p', '{"spec":{"type":"ClusterIP"}}');
    assert.match(await k('get', 'service', 'np2', '--no-headers'), /\s80\/TCP/);
    await k('create', 'service', 'nodeport', 'np3', '--tcp=80', '--node-port=30080');
  });

  it('headless and ExternalName Services get no ClusterIP', async () => {
    await k('create', 'service', 'clusterip', 'headless', '--clusterip=None');
    assert.equal(await k('get', 'service', 'headless', '-o', 'jsonpath={.spec.clusterIP}'), 'None');
    await k('create', 'service', 'externalname', 'ext', '--external-name=example.com');
    const row = (await k('get', 'service', 'ext', '--no-headers')).trim().split(/\s+/);
    assert.deepEqual(row.slice(0, 4), ['ext', 'ExternalName', '<none>', 'example.com']);
  });
});
