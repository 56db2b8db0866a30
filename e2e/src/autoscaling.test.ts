import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

// Resource metrics, the HorizontalPodAutoscaler and the ReplicationController with the real
// kubectl. The HPA syncs every second (--horizontal-pod-autoscaler-sync-period) so the test
// stays short on real time; a pod's cpu samples count once it has been Ready for one metrics
// window (10 s), as in Kubernetes.

const IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.61';

const RC = `apiVersion: v1
kind: ReplicationController
metadata:
  name: legacy
spec:
  replicas: 1
  template:
    metadata:
      labels: {app: legacy}
    spec:
      containers:
      - name: c
        image: ${IMAGE}
`;

describe('autoscaling and resource metrics with kubectl', () => {
  const s = useKplane(['--nodes', '2', '--horizontal-pod-autoscaler-sync-period', '1s']);
  const k = (...args: string[]) => kubectlOk(s.kp.kubeconfig, args);

  it('kubectl top pods (with --containers) and top nodes read metrics.k8s.io', async () => {
    await k('create', 'deployment', 'web', `--image=${IMAGE}`, '--replicas=1');
    await k('set', 'resources', 'deployment', 'web', '--requests=cpu=100m,memory=32Mi');
    const top = await eventually('a web pod in kubectl top', async () => {
      const r = await kubectl(s.kp.kubeconfig, ['top', 'pods', '-l', 'app=web']);
      return r.code === 0 && /^web-\S+\s+100m\s+32Mi\s*$/m.test(r.stdout) && r.stdout.trim().split('\n').length === 2 && r.stdout;
    });
    assert.match(top, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/);
    const containers = await k('top', 'pods', '--containers', '-l', 'app=web');
    assert.match(containers, /^POD\s+NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/);
    assert.match(containers, /^web-\S+\s+agnhost\s+100m\s+32Mi/m);
    const nodes = await k('top', 'nodes');
    assert.match(nodes, /^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)/);
    assert.match(nodes, /^kplane-node-0\s+\d+m\s+\d+%/m);
    assert.match(await k('get', 'apiservice', 'v1beta1.metrics.k8s.io'), /^v1beta1\.metrics\.k8s\.io\s+Local\s+True/m);
  });

  it('an HPA made by kubectl autoscale scales the Deployment when its pods use more cpu', async () => {
    assert.match(await k('autoscale', 'deployment', 'web', '--min=1', '--max=4', '--cpu-percent=100'), /horizontalpodautoscaler.autoscaling\/web autoscaled/);
    const v1 = JSON.parse(await k('get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web'));
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 100);
    // Usage equals the requests: 100 % of a 100 % target, nothing to do.
    await eventually('the HPA to read cpu: 100%/100%', async () => /^web\s+Deployment\/web\s+cpu: 100%\/100%\s+1\s+4\s+1\s+\S+$/m.test(await k('get', 'hpa')), 40_000);
    assert.match(await k('get', 'hpa'), /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/m);
    // The pods of the next rollout use 250m: 250 % of the target, 3 replicas.
    await k('patch', 'deployment', 'web', '-p', '{"spec":{"template":{"metadata":{"annotations":{"kplane.io/cpu-usage":"250m"}}}}}');
    await eventually('3 replicas', async () => (await k('get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}')) === '3', 45_000);
    // The controller records its Event after the scale write, as kube's event recorder does: asynchronously.
    await eventually('the SuccessfulRescale Event', async () =>
      /New size: 3; reason: cpu resource utilization \(percentage of request\) above target/.test(await k('get', 'events', '--field-selector', 'reason=SuccessfulRescale', '-o', 'jsonpath={.items[*].message}')),
    );
    const described = await k('describe', 'hpa', 'web');
    assert.match(described, /ScalingActive\s+True\s+ValidMetricFound\s+the HPA was able to successfully calculate a replica count from cpu resource utilization \(percentage of request\)/);
  });

  it('kubectl scale rc drives the ReplicationController controller', async () => {
    await kubectlOk(s.kp.kubeconfig, ['create', '-f', '-'], RC);
    assert.match(await k('scale', 'rc', 'legacy', '--replicas=3'), /replicationcontroller\/legacy scaled/);
    const row = await eventually('3 ready replicas', async () => {
      const out = await k('get', 'rc', 'legacy', '-o', 'wide');
      return /^legacy\s+3\s+3\s+3\s+\S+\s+c\s+\S+agnhost:2\.61\s+app=legacy$/m.test(out) && out;
    });
    assert.match(row, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m);
    const owners = await k('get', 'pods', '-l', 'app=legacy', '-o', 'jsonpath={.items[*].metadata.ownerReferences[0].kind}');
    assert.deepEqual(owners.split(' '), ['ReplicationController', 'ReplicationController', 'ReplicationController']);
  });
});
