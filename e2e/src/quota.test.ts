/**
 * ResourceQuota, LimitRange and PriorityClass with the real kubectl against a `kplane up`
 * process: `kubectl create quota`, the fourth pod refused with Kubernetes' message, `kubectl
 * describe quota`, a LimitRange defaulting a container's requests and refusing a limit above
 * its max, and a pod's priority taken from its priorityClassName.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

describe('quota, limits and priority', () => {
  const suite = useKplane(['--nodes', '0']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);

  it('a quota of 3 pods refuses the fourth, and describe shows used/hard', async () => {
    await k('create', 'namespace', 'q1');
    await k('create', 'quota', 'pods', '--hard=pods=3', '-n', 'q1');
    await eventually('the quota controller fills status.hard', async () => (await k('get', 'quota', 'pods', '-n', 'q1', '-o', 'jsonpath={.status.hard.pods}')) === '3');
    for (const n of [1, 2, 3]) await k('run', `p${n}`, '--image=busybox', '-n', 'q1');
    const fourth = await kubectl(suite.kp.kubeconfig, ['run', 'p4', '--image=busybox', '-n', 'q1']);
    assert.notEqual(fourth.code, 0);
    assert.match(fourth.stderr, /Error from server \(Forbidden\): pods "p4" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=3, limited: pods=3/);
    const described = await k('describe', 'quota', 'pods', '-n', 'q1');
    assert.match(described, /Name:\s+pods\nNamespace:\s+q1\nResource\s+Used\s+Hard\n-+\s+-+\s+-+\npods\s+3\s+3/);
    const table = await k('get', 'quota', '-n', 'q1');
    assert.match(table, /^NAME\s+AGE\s+REQUEST\s+LIMIT\npods\s+\S+\s+pods: 3\/3\s*$/m);
    // Deleting a pod gives its share back once the controller recounts.
    await k('delete', 'pod', 'p1', '-n', 'q1', '--grace-period=0', '--force');
    await eventually('used drops to 2', async () => (await k('get', 'quota', 'pods', '-n', 'q1', '-o', 'jsonpath={.status.used.pods}')) === '2');
    await k('run', 'p4', '--image=busybox', '-n', 'q1');
  });

  it('a compute quota requires requests', async () => {
    await k('create', 'namespace', 'q2');
    await k('create', 'quota', 'compute', '--hard=requests.cpu=1,limits.memory=1Gi', '-n', 'q2');
    await eventually('the quota controller fills status.used', async () => (await k('get', 'quota', 'compute', '-n', 'q2', '-o', 'jsonpath={.status.used.requests\\.cpu}')) === '0');
    const bare = await kubectl(suite.kp.kubeconfig, ['run', 'bare', '--image=busybox', '-n', 'q2']);
    assert.match(bare.stderr, /pods "bare" is forbidden: failed quota: compute: must specify limits\.memory for: bare; requests\.cpu for: bare/);
  });

  it('a LimitRange defaults requests and limits and refuses a limit above max', async () => {
    await k('create', 'namespace', 'lr');
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-n', 'lr', '-f', '-'], `apiVersion: v1
kind: LimitRange
metadata:
  name: limits
spec:
  limits:
  - type: Container
    max:
      cpu: "1"
    defaultRequest:
      cpu: 100m
      memory: 64Mi
    default:
      memory: 128Mi
`);
    await k('run', 'defaulted', '--image=busybox', '-n', 'lr');
    const resources = JSON.parse(await k('get', 'pod', 'defaulted', '-n', 'lr', '-o', 'jsonpath={.spec.containers[0].resources}'));
    assert.deepEqual(resources, { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } });
    const annotation = await k('get', 'pod', 'defaulted', '-n', 'lr', '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/limit-ranger}');
    assert.equal(annotation, 'LimitRanger plugin set: cpu, memory request for container defaulted; cpu, memory limit for container defaulted');
    const big = await kubectl(suite.kp.kubeconfig, ['run', 'big', '--image=busybox', '-n', 'lr', '--overrides={"spec":{"containers":[{"name":"big","image":"busybox","resources":{"limits":{"cpu":"2"}}}]}}']);
    assert.match(big.stderr, /pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2/);
  });

  it('a pod with priorityClassName gets its priority; an unknown class is refused', async () => {
    const pcs = await k('get', 'priorityclasses');
    assert.match(pcs, /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY$/m);
    assert.match(pcs, /^system-cluster-critical\s+2000000000\s+false\s+\S+\s+PreemptLowerPriority$/m);
    assert.match(pcs, /^system-node-critical\s+2000001000\s+false\s+\S+\s+PreemptLowerPriority$/m);
    await k('create', 'priorityclass', 'high', '--value=1000', '--description=high');
    await k('run', 'important', '--image=busybox', '--overrides={"spec":{"priorityClassName":"high"}}');
    assert.equal(await k('get', 'pod', 'important', '-o', 'jsonpath={.spec.priority}'), '1000');
    const unknown = await kubectl(suite.kp.kubeconfig, ['run', 'lost', '--image=busybox', '--overrides={"spec":{"priorityClassName":"nope"}}']);
    assert.match(unknown.stderr, /pods "lost" is forbidden: no PriorityClass with name nope was found/);
  });
});
