import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import {
  EndpointSlices, Endpoints, Nodes, Pods, Services, formatTime,
  type EndpointSlice, type Endpoints as EndpointsObject, type FakeClock, type Pod, type Service,
} from '@kplane/runtime';
import { eventually } from '@kplane/api/testing';
import { startControllerBed, type TestKplane } from '../namespace/testing.js';
import { createEndpointsController } from '../endpoints/index.js';
import { createEndpointSliceController } from './index.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
let kp: TestKplane;
let clock: FakeClock;
let stop: () => Promise<void>;
const ns = { namespace: 'default' };

before(async () => {
  ({ kp, clock, stop } = await startControllerBed(async (mgr) => {
    createEndpointSliceController(mgr);
    createEndpointsController(mgr);
  }, T0));
});
after(() => stop());

const slicesOf = async (svc: string) => (await kp.client.resource<EndpointSlice>(EndpointSlices).list({ ...ns, labelSelector: `kubernetes.io/service-name=${svc}` })).items;
const endpointsOf = (svc: string) => kp.client.resource<EndpointsObject>(Endpoints).get(svc, ns);

/** Creates a running pod with an IP, ready or not. */
async function runningPod(name: string, ip: string, ready: boolean, labels = { app: 'web' }): Promise<Pod> {
  const pods = kp.client.resource<Pod>(Pods);
  const made = await pods.create({ metadata: { name, labels, finalizers: ['example.com/hold'] }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x', ports: [{ name: 'http', containerPort: 8080 }] }] } }, ns);
  return setReady(made, ip, ready);
}

async function setReady(pod: Pod, ip: string, ready: boolean): Promise<Pod> {
  const t = formatTime(clock.now());
  pod.status = { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: t }] };
  return kp.client.resource<Pod>(Pods).updateStatus(pod, ns);
}

it('a Service with a selector gets slices and Endpoints that follow its pods readiness', async () => {
  await kp.client.resource(Nodes).create({ metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } });
  await kp.client.resource<Service>(Services).create({ metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } }, ns);
  // No pods yet: a placeholder slice and empty Endpoints.
  const placeholder = await eventually('placeholder', async () => (await slicesOf('web'))[0]);
  assert.match(placeholder.metadata!.name!, /^web-[a-z0-9]{5}$/);
  assert.deepEqual(placeholder.endpoints ?? [], []);
  assert.equal((await eventually('endpoints', () => endpointsOf('web'))).subsets, undefined);

  const a = await runningPod('a', '10.244.0.5', true);
  const b = await runningPod('b', '10.244.0.6', false);
  const slice = await eventually('two endpoints', async () => {
    const s = (await slicesOf('web'))[0];
    return s?.endpoints?.length === 2 ? s : undefined;
  });
  assert.equal(slice.metadata?.name, placeholder.metadata?.name, 'the placeholder is reused');
  assert.equal(slice.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
  assert.equal(slice.metadata?.ownerReferences?.[0]?.kind, 'Service');
  assert.ok(slice.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']);
  assert.deepEqual(slice.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  const byPod = new Map(slice.endpoints.map((e) => [e.targetRef?.name, e]));
  assert.deepEqual(byPod.get('a'), { addresses: ['10.244.0.5'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: a.metadata!.uid }, zone: 'zone-a' });
  assert.equal(byPod.get('b')?.conditions?.ready, false);

  const ep = await eventually('endpoints with both', async () => {
    const e = await endpointsOf('web');
    return e.subsets?.[0]?.notReadyAddresses ? e : undefined;
  });
  assert.deepEqual(ep.subsets, [
    {
      addresses: [{ ip: '10.244.0.5', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: a.metadata!.uid } }],
      notReadyAddresses: [{ ip: '10.244.0.6', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: b.metadata!.uid } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    },
  ]);

  // b turns ready: both ready.
  await clock.advanceAsync(5000);
  await setReady(b, '10.244.0.6', true);
  await eventually('both ready', async () => (await endpointsOf('web')).subsets?.[0]?.addresses?.length === 2);
  await eventually('both ready in the slice', async () => (await slicesOf('web'))[0]?.endpoints.every((e) => e.conditions?.ready));
  assert.equal((await endpointsOf('web')).metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time'], formatTime(clock.now()));

  // a is deleting (held by a finalizer): terminating in the slice, gone from Endpoints.
  await kp.client.resource<Pod>(Pods).delete('a', { ...ns, gracePeriodSeconds: 0 });
  await eventually('terminating', async () => {
    const e = (await slicesOf('web'))[0]?.endpoints.find((x) => x.targetRef?.name === 'a');
    return e && e.conditions?.terminating === true && e.conditions.ready === false && e.conditions.serving === true;
  });
  await eventually('dropped from endpoints', async () => {
    const e = await endpointsOf('web');
    return e.subsets?.length === 1 && e.subsets[0]!.addresses?.length === 1 && !e.subsets[0]!.notReadyAddresses;
  });
});

it('publishNotReadyAddresses lists unready pods as ready; a Service without selector is left alone; deleting a Service deletes its Endpoints', async () => {
  await runningPod('c', '10.244.0.7', false, { app: 'pub' } as never);
  await kp.client.resource<Service>(Services).create({ metadata: { name: 'pub' }, spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: { app: 'pub' }, ports: [{ port: 80 }] } }, ns);
  const ep = await eventually('published', async () => {
    const e = await endpointsOf('pub');
    return e.subsets?.[0]?.addresses ? e : undefined;
  });
  assert.equal(ep.metadata?.labels?.['service.kubernetes.io/headless'], '');
  assert.deepEqual(ep.subsets?.[0]?.ports, [{ port: 80, protocol: 'TCP' }]);
  await kp.client.resource<Service>(Services).create({ metadata: { name: 'manual' }, spec: { ports: [{ port: 80 }] } }, ns);
  await kp.client.resource<EndpointsObject>(Endpoints).create({ metadata: { name: 'manual' }, subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 80 }] }] }, ns);
  await kp.client.resource<Service>(Services).delete('pub', ns);
  await eventually('endpoints deleted', async () => {
    try {
      await endpointsOf('pub');
      return false;
    } catch {
      return true;
    }
  });
  assert.equal((await endpointsOf('manual')).subsets?.[0]?.addresses?.[0]?.ip, '192.0.2.1');
  assert.deepEqual(await slicesOf('manual'), []);
});
