import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

// StatefulSets driven with the real kubectl against `kplane up` (one simulated node, whose
// kubelet makes pods Running and Ready at once): ordered scale-up, a rolling update, rollout
// history, undo and restart, scale-down from the highest ordinal.

const WEB = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`;

/** `kubectl get pods --watch` in the background: the pod names in the order they first appear. */
function watchPodNames(kubeconfig: string): { output(): string; stop(): Promise<string[]> } {
  const child = spawn('kubectl', ['get', 'pods', '--watch', '-o', 'name'], {
    env: { ...process.env, KUBECONFIG: kubeconfig },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => out,
    async stop() {
      child.kill();
      await exited;
      return [...new Set(out.split('\n').filter(Boolean))];
    },
  };
}

describe('StatefulSets with kubectl', () => {
  const suite = useKplane(['--nodes', '1']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);

  it('scales up in ordinal order, with a claim per pod, and prints its columns', async () => {
    // A pod that exists before the watch starts: once it is listed, the watch is running.
    await k('run', 'sentinel', '--image=nginx:1.27');
    const watch = watchPodNames(suite.kp.kubeconfig);
    await eventually('the watch to list the sentinel pod', async () => watch.output().includes('pod/sentinel'));
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], WEB);
    const status = await k('rollout', 'status', 'statefulset/web', '--timeout=60s');
    assert.match(status, /partitioned roll out complete: 3 new pods have been updated/);
    assert.deepEqual(await watch.stop(), ['pod/sentinel', 'pod/web-0', 'pod/web-1', 'pod/web-2']);
    assert.equal(await k('get', 'pvc', '-o', 'jsonpath={.items[*].metadata.name}'), 'www-web-0 www-web-1 www-web-2');
    assert.equal(await k('get', 'pod', 'web-1', '-o', 'jsonpath={.spec.hostname}.{.spec.subdomain} {.metadata.labels.apps\\.kubernetes\\.io/pod-index}'), 'web-1.web 1');
    const table = await k('get', 'statefulset', 'web', '-o', 'wide');
    assert.match(table, /^NAME\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\nweb\s+3\/3\s+\S+\s+nginx\s+nginx:1\.27\n$/);
    const events = await k('get', 'events', '--field-selector', 'involvedObject.kind=StatefulSet', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}');
    assert.match(events, /create Pod web-0 in StatefulSet web successful/);
    assert.match(events, /create Claim www-web-2 Pod web-2 in StatefulSet web success/);
  });

  it('rolls out a new image, shows its history and rolls back with rollout undo', async () => {
    await k('set', 'image', 'statefulset/web', 'nginx=nginx:1.28');
    await k('rollout', 'status', 'statefulset/web', '--timeout=60s');
    const images = () => k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].spec.containers[0].image}');
    assert.equal(await images(), 'nginx:1.28 nginx:1.28 nginx:1.28');
    const updateRevision = await k('get', 'statefulset', 'web', '-o', 'jsonpath={.status.updateRevision}');
    assert.equal(await k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.labels.controller-revision-hash}'), `${updateRevision} ${updateRevision} ${updateRevision}`);
    assert.match(await k('rollout', 'history', 'statefulset/web'), /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/);
    assert.match(await k('rollout', 'history', 'statefulset/web', '--revision=1'), /Image:\s+nginx:1\.27/);

    assert.match(await k('rollout', 'undo', 'statefulset/web'), /statefulset.apps\/web rolled back/);
    await k('rollout', 'status', 'statefulset/web', '--timeout=60s');
    assert.equal(await k('get', 'statefulset', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'), 'nginx:1.27');
    assert.equal(await images(), 'nginx:1.27 nginx:1.27 nginx:1.27');
    // The old revision is renumbered on top: revisions 2 and 3 remain.
    assert.match(await k('rollout', 'history', 'statefulset/web'), /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>\n/);
    // kubectl compares the revision's data with the live template byte for byte.
    assert.match(await k('rollout', 'undo', 'statefulset/web', '--to-revision=3'), /skipped rollback \(current template already matches revision 3\)/);
    const missing = await kubectl(suite.kp.kubeconfig, ['rollout', 'undo', 'statefulset/web', '--to-revision=1000000']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /unable to find specified revision 1000000 in history/);
  });

  it('restarts with rollout restart and scales down from the highest ordinal', async () => {
    await k('rollout', 'restart', 'statefulset/web');
    await k('rollout', 'status', 'statefulset/web', '--timeout=60s');
    assert.match(await k('get', 'statefulset', 'web', '-o', 'jsonpath={.spec.template.metadata.annotations}'), /kubectl.kubernetes.io\/restartedAt/);
    assert.match(await k('rollout', 'history', 'statefulset/web'), /\n4\s+<none>\n/);
    await k('scale', 'statefulset/web', '--replicas=1');
    await eventually('scale-down to web-0', async () => (await k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}')) === 'web-0');
    // Claims are retained on scale-down (whenScaled Retain).
    assert.equal(await k('get', 'pvc', '-o', 'jsonpath={.items[*].metadata.name}'), 'www-web-0 www-web-1 www-web-2');
  });
});
