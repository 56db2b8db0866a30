import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { eventually, kubectl, kubectlOk, removeDir, startKplane, tempDir, type KplaneProcess } from './harness.js';

const PODS = `apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    kplane.io/log: |
      hello from web
      listening on :8080
spec:
  containers:
  - name: app
    image: nginx
---
apiVersion: v1
kind: Pod
metadata:
  name: duo
spec:
  containers:
  - name: a
    image: nginx
  - name: b
    image: nginx
---
apiVersion: v1
kind: Pod
metadata:
  name: crash
  annotations:
    kplane.io/fail: CrashLoopBackOff
    kplane.io/fail-after-ms: "300"
    kplane.io/log: about to fail
spec:
  containers:
  - name: app
    image: busybox
`;

const STARTED = 'kplane: started container app (image nginx); simulated, no process runs';

async function ready(kp: KplaneProcess, pod: string): Promise<void> {
  await eventually(`${pod} Ready`, async () => (await kubectl(kp.kubeconfig, ['get', 'pod', pod, '-o', 'jsonpath={.status.containerStatuses[0].ready}'])).stdout === 'true');
}

describe('kubectl logs and exec against simulated containers', () => {
  let kp: KplaneProcess;
  let dir: string;
  const k = (...args: string[]) => kubectlOk(kp.kubeconfig, args);

  before(async () => {
    dir = await tempDir();
    kp = await startKplane(dir, ['--nodes', '1', '--storage', 'memory']);
    await kubectlOk(kp.kubeconfig, ['apply', '-f', '-'], PODS);
    await ready(kp, 'web');
  });
  after(async () => {
    await kp?.stop();
    await removeDir(dir);
  });

  it('kubectl logs shows the start line and the annotation lines; --tail, --limit-bytes, --since, --timestamps', async () => {
    assert.equal(await k('logs', 'web'), `${STARTED}\nhello from web\nlistening on :8080\nkplane: container app is ready\n`);
    assert.equal(await k('logs', 'web', '--tail', '1'), 'kplane: container app is ready\n');
    assert.equal(await k('logs', 'web', '--limit-bytes', '5'), 'kplan');
    assert.equal(await k('logs', 'web', '--since', '1h', '--tail', '1'), 'kplane: container app is ready\n');
    assert.match(await k('logs', 'web', '--timestamps', '--tail', '1'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z kplane: container app is ready\n$/);
  });

  it('pods/log asks for a container in a multi-container pod, with kube\'s message; kubectl picks the first', async () => {
    const r = await kubectl(kp.kubeconfig, ['get', '--raw', '/api/v1/namespaces/default/pods/duo/log']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /a container name must be specified for pod duo, choose one of: \[a b\]/);
    await ready(kp, 'duo');
    const a = await kubectl(kp.kubeconfig, ['logs', 'duo']);
    assert.match(a.stderr, /Defaulted container "a" out of: a, b/);
    assert.match(a.stdout, /started container a/);
    assert.match(await k('logs', 'duo', '-c', 'b'), /started container b/);
  });

  it('kubectl logs -f streams until the test stops it', async () => {
    const child = spawn('kubectl', ['logs', '-f', 'web'], { env: { ...process.env, KUBECONFIG: kp.kubeconfig } });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const exited = new Promise((r) => child.once('exit', r));
    await eventually('the followed log', async () => out.includes('kplane: container app is ready\n'));
    assert.equal(child.exitCode, null, 'kubectl logs -f keeps running');
    child.kill('SIGTERM');
    await exited;
  });

  it('kubectl logs -f ends by itself when the container stops', async () => {
    await kubectlOk(kp.kubeconfig, ['run', 'brief', '--image', 'nginx']);
    await ready(kp, 'brief');
    const child = spawn('kubectl', ['logs', '-f', 'brief'], { env: { ...process.env, KUBECONFIG: kp.kubeconfig } });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    await eventually('the followed log', async () => out.includes('is ready\n'));
    await k('delete', 'pod', 'brief', '--wait=false');
    assert.equal(await exited, 0);
    assert.match(out, /kplane: container brief received SIGTERM \(grace period 30s\)\nkplane: container brief exited with code 0 \(Completed\)\n$/);
  });

  it('kubectl logs --previous shows the instance before the restart', async () => {
    await eventually('a restart of crash', async () => Number((await kubectl(kp.kubeconfig, ['get', 'pod', 'crash', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'])).stdout) >= 1);
    const prev = await k('logs', 'crash', '--previous');
    assert.match(prev, /^kplane: started container app \(image busybox\); simulated, no process runs\nabout to fail\n(kplane: container app is ready\n)?kplane: container app exited with code 1 \(Error\)\n$/);
  });

  it('kubectl exec answers with a clear error for a simulated container', async () => {
    const r = await kubectl(kp.kubeconfig, ['exec', 'web', '--', 'echo', 'hi']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /cannot exec a command in container "app" in pod "web": its containers are simulated by kplane and run no process \(start kplane with --exec-local/);
  });
});

describe('kubectl exec mapped to local commands (--exec-local)', () => {
  let kp: KplaneProcess;
  let dir: string;

  before(async () => {
    dir = await tempDir();
    kp = await startKplane(dir, ['--nodes', '1', '--storage', 'memory', '--exec-local']);
    await kubectlOk(kp.kubeconfig, ['run', 'shell', '--image', 'busybox']);
    await ready(kp, 'shell');
  });
  after(async () => {
    await kp?.stop();
    await removeDir(dir);
  });

  it('runs the command locally: output, stdin and exit code reach kubectl', async () => {
    const r = await kubectl(kp.kubeconfig, ['exec', 'shell', '--', 'sh', '-c', 'echo "out $KPLANE_POD"; echo err >&2; exit 3']);
    assert.equal(r.stdout, 'out shell\n');
    assert.match(r.stderr, /^err\n/);
    assert.equal(r.code, 3);
    assert.equal(await kubectlOk(kp.kubeconfig, ['exec', '-i', 'shell', '--', 'cat'], 'piped\n'), 'piped\n');
  });
});
