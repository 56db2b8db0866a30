/**
 * Scheduling with the real kubectl against a `kplane up` process and its three simulated nodes:
 * a high-priority pod preempts a low-priority one on a full node, required anti-affinity spreads
 * a Deployment's replicas one per node, and a topology spread constraint balances zones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, kubectlOk, useKplane } from './harness.js';

const pinned = (name: string, priorityClassName: string, cpu: string, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  priorityClassName: ${priorityClassName}
  nodeSelector:
    kubernetes.io/hostname: kplane-node-0
  terminationGracePeriodSeconds: 30
  containers:
  - name: app
    image: nginx
    resources:
      requests:
        cpu: "${cpu}"
${extra}`;

const PRESTOP = `    lifecycle:
      preStop:
        sleep:
          seconds: 2
`;

const deployment = (name: string, replicas: number, podSpec: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
${podSpec}      containers:
      - name: app
        image: nginx
`;

interface PodView {
  metadata: { name: string };
  spec: { nodeName?: string };
}

describe('scheduling', () => {
  const suite = useKplane(['--nodes', '3']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const apply = (yaml: string) => kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], yaml);
  const placed = async (app: string): Promise<PodView[]> => (JSON.parse(await k('get', 'pods', '-l', `app=${app}`, '-o', 'json')) as { items: PodView[] }).items;

  it('a high-priority pod preempts a low-priority one on a full node', async () => {
    assert.match(await k('create', 'priorityclass', 'low', '--value=100'), /priorityclass.scheduling.k8s.io\/low created/);
    await k('create', 'priorityclass', 'high', '--value=1000000');
    await apply(pinned('low', 'low', '30', PRESTOP));
    await k('wait', '--for=condition=Ready', 'pod/low', '--timeout=20s');
    await apply(pinned('high', 'high', '10'));
    // The victim terminates (its preStop sleeps 2 s) marked as preempted; the preemptor is nominated meanwhile.
    const reason = await eventually('DisruptionTarget on the victim', async () => (await k('get', 'pod', 'low', '-o', 'jsonpath={.status.conditions[?(@.type=="DisruptionTarget")].reason}')) || undefined, 10_000);
    assert.equal(reason, 'PreemptionByScheduler');
    assert.equal(await k('get', 'pod', 'high', '-o', 'jsonpath={.status.nominatedNodeName}'), 'kplane-node-0');
    assert.match(await k('get', 'pod', 'high', '-o', 'wide'), /^high\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+kplane-node-0\s+<none>$/m);
    await k('wait', '--for=condition=Ready', 'pod/high', '--timeout=30s');
    assert.equal(await k('get', 'pod', 'high', '-o', 'jsonpath={.spec.nodeName}'), 'kplane-node-0');
    assert.match(await k('get', 'pods', 'low', '--ignore-not-found'), /^$/);
    const uid = await k('get', 'pod', 'high', '-o', 'jsonpath={.metadata.uid}');
    const events = await k('get', 'events', '--field-selector', 'reason=Preempted', '-o', 'jsonpath={range .items[*]}{.involvedObject.name}: {.message}{"\\n"}{end}');
    assert.match(events, new RegExp(`^low: Preempted by pod ${uid} on node kplane-node-0$`, 'm'));
    const described = await k('describe', 'pod', 'high');
    assert.match(described, /Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/3 nodes are available: 1 Insufficient cpu, 2 node\(s\) didn't match Pod's node affinity\/selector\./);
    assert.match(described, /Normal\s+Scheduled\s+.*Successfully assigned default\/high to kplane-node-0/);
  });

  it("required anti-affinity spreads a Deployment's replicas one per node; a fourth stays Pending", async () => {
    const anti = `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels:
                app: solo
            topologyKey: kubernetes.io/hostname
`;
    await apply(deployment('solo', 3, anti));
    await k('rollout', 'status', 'deployment/solo', '--timeout=30s');
    const nodes = (await placed('solo')).map((p) => p.spec.nodeName).sort();
    assert.deepEqual(nodes, ['kplane-node-0', 'kplane-node-1', 'kplane-node-2']);
    await k('scale', 'deployment/solo', '--replicas=4');
    const pending = await eventually('a pending replica', async () => (await placed('solo')).find((p) => !p.spec.nodeName), 10_000);
    const message = await eventually(
      'FailedScheduling',
      async () => (await k('get', 'pod', pending.metadata.name, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}')) || undefined,
      10_000,
    );
    assert.equal(message, "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..");
  });

  it('a topology spread constraint balances replicas across zones', async () => {
    await k('label', 'node', 'kplane-node-0', 'kplane-node-1', 'topology.kubernetes.io/zone=zone-a');
    await k('label', 'node', 'kplane-node-2', 'topology.kubernetes.io/zone=zone-b');
    const spread = `      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector:
          matchLabels:
            app: spread
`;
    await apply(deployment('spread', 6, spread));
    await k('rollout', 'status', 'deployment/spread', '--timeout=30s');
    const nodes = (await placed('spread')).map((p) => p.spec.nodeName);
    assert.equal(nodes.filter((n) => n === 'kplane-node-2').length, 3, nodes.join(' '));
  });
});
