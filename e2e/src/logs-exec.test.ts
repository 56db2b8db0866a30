import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, get, type Server } from 'node:http';
import { eventually, KPLANE_MAIN, kubectl, kubectlOk, removeDir, startKplane, tempDir, type KplaneProcess } from './harness.js';

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

  it('kubectl exec answers with a clear error for a simulated container (websocket and SPDY)', async () => {
    const r = await kubectl(kp.kubeconfig, ['exec', 'web', '--', 'echo', 'hi']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /cannot exec a command in container "app" in pod "web": its containers are simulated by kplane and run no process \(start kplane with --exec-local/);
    const spdy = await kubectl(kp.kubeconfig, ['exec', 'web', '--', 'echo', 'hi'], undefined, { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' });
    assert.notEqual(spdy.code, 0);
    assert.match(spdy.stderr, /error: Internal error occurred: cannot exec a command in container "app" in pod "web": its containers are simulated by kplane/);
  });
});

describe('kubectl exec and port-forward mapped to local commands and ports (--exec-local, --port-forward)', () => {
  let kp: KplaneProcess;
  let dir: string;
  let web: Server;
  const SPDY = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };

  before(async () => {
    dir = await tempDir();
    web = createServer((req, res) => res.end(`hello from ${req.url}`));
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    const port = (web.address() as { port: number }).port;
    kp = await startKplane(dir, ['--nodes', '1', '--storage', 'memory', '--exec-local', '--port-forward', `80=127.0.0.1:${port}`]);
    await kubectlOk(kp.kubeconfig, ['run', 'shell', '--image', 'busybox']);
    await ready(kp, 'shell');
  });
  after(async () => {
    await kp?.stop();
    web?.close();
    await removeDir(dir);
  });

  it('runs the command locally: output, stdin and exit code reach kubectl', async () => {
    const r = await kubectl(kp.kubeconfig, ['exec', 'shell', '--', 'sh', '-c', 'echo "out $KPLANE_POD"; echo err >&2; exit 3']);
    assert.equal(r.stdout, 'out shell\n');
    assert.match(r.stderr, /^err\n/);
    assert.equal(r.code, 3);
    assert.equal(await kubectlOk(kp.kubeconfig, ['exec', '-i', 'shell', '--', 'cat'], 'piped\n'), 'piped\n');
  });

  it('kubectl exec works over SPDY too (websockets turned off)', async () => {
    const r = await kubectl(kp.kubeconfig, ['exec', 'shell', '--', 'sh', '-c', 'echo "spdy $KPLANE_CONTAINER"; echo err >&2; exit 4'], undefined, SPDY);
    assert.equal(r.stdout, 'spdy shell\n');
    assert.match(r.stderr, /^err\n/);
    assert.equal(r.code, 4);
    const big = 'x'.repeat(300_000) + '\n';
    const echoed = await kubectl(kp.kubeconfig, ['exec', '-i', 'shell', '--', 'cat'], big, SPDY);
    assert.equal(echoed.code, 0);
    assert.equal(echoed.stdout, big);
  });

  for (const [how, env] of [['in its websocket tunnel', {}], ['over plain SPDY', { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }]] as const) {
    it(`kubectl port-forward carries a mapped port both ways, and an unmapped one gets the error (${how})`, async () => {
      const child = spawn('kubectl', ['port-forward', 'pod/shell', ':80', ':81'], { env: { ...process.env, ...env, KUBECONFIG: kp.kubeconfig } });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      const exited = new Promise((r) => child.once('exit', r));
      try {
        const ports = await eventually('both ports forwarded', async () => {
          const m = [...out.matchAll(/Forwarding from 127\.0\.0\.1:(\d+) -> (80|81)/g)];
          return m.length === 2 ? Object.fromEntries(m.map((x) => [x[2]!, Number(x[1])])) : undefined;
        });
        const fetch = (port: number, path: string) =>
          new Promise<string>((resolve, reject) => {
            get({ host: '127.0.0.1', port, path }, (res) => {
              let body = '';
              res.on('data', (c) => (body += c));
              res.on('end', () => resolve(body));
            }).on('error', reject);
          });
        assert.equal(await fetch(ports['80']!, '/through'), 'hello from /through');
        assert.equal(await fetch(ports['80']!, '/again'), 'hello from /again');
        await fetch(ports['81']!, '/').catch(() => '');
        await eventually('the error of port 81', async () => /error forwarding port 81 to pod default\/shell, uid [0-9a-f-]+: port 81 is not forwarded: the pod's containers are simulated by kplane/.test(err));
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    });
  }
});

describe('logs, exec and port-forward through a kubelet in another process (kplane up --nodes 0 + kplane kubelet)', () => {
  let kp: KplaneProcess;
  let dir: string;
  let web: Server;
  let kubelet: ReturnType<typeof spawn>;
  let kubeletOut = '';
  let kubeletExited: Promise<number | null>;

  before(async () => {
    dir = await tempDir();
    web = createServer((req, res) => res.end(`remote ${req.url}`));
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    const port = (web.address() as { port: number }).port;
    kp = await startKplane(dir, ['--nodes', '0', '--storage', 'memory']);
    kubelet = spawn(process.execPath, [KPLANE_MAIN, 'kubelet', '--kubeconfig', kp.kubeconfig, '--data-dir', dir, '--port', '0', '--nodes', '1', '--exec-local', '--port-forward', `80=127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    kubelet.stderr!.on('data', (c) => (kubeletOut += c));
    kubeletExited = new Promise((r) => kubelet.once('exit', (code) => r(code)));
    await eventually('the kubelet process', async () => /1 node\(s\) ready/.test(kubeletOut));
    await kubectlOk(kp.kubeconfig, ['apply', '-f', '-'], PODS.split('---')[0]);
    await ready(kp, 'web');
  });
  after(async () => {
    kubelet?.kill('SIGTERM');
    await kubeletExited;
    await kp?.stop();
    web?.close();
    await removeDir(dir);
  });

  it('the Node reports the address and port the kubelet serves on', async () => {
    const served = Number(/serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(kubeletOut)?.[1]);
    const node = JSON.parse(await kubectlOk(kp.kubeconfig, ['get', 'node', 'kplane-node-0', '-o', 'json']));
    assert.equal(node.status.daemonEndpoints.kubeletEndpoint.Port, served);
    assert.deepEqual(node.status.addresses[0], { type: 'InternalIP', address: '127.0.0.1' });
  });

  it('kubectl logs and logs -f read the log from the kubelet process', async () => {
    assert.equal(await kubectlOk(kp.kubeconfig, ['logs', 'web']), `${STARTED}\nhello from web\nlistening on :8080\nkplane: container app is ready\n`);
    const child = spawn('kubectl', ['logs', '-f', 'web', '--tail', '1'], { env: { ...process.env, KUBECONFIG: kp.kubeconfig } });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const exited = new Promise((r) => child.once('exit', r));
    await eventually('the followed log', async () => out === 'kplane: container app is ready\n');
    assert.equal(child.exitCode, null, 'kubectl logs -f keeps running');
    child.kill('SIGTERM');
    await exited;
    const r = await kubectl(kp.kubeconfig, ['logs', 'web', '--previous']);
    assert.match(r.stderr, /previous terminated container "app" in pod "web" not found/);
  });

  it('kubectl exec (websocket and SPDY) and port-forward reach the kubelet process', async () => {
    assert.equal(await kubectlOk(kp.kubeconfig, ['exec', 'web', '--', 'sh', '-c', 'echo "remote $KPLANE_POD"']), 'remote web\n');
    const spdy = await kubectl(kp.kubeconfig, ['exec', '-i', 'web', '--', 'sh', '-c', 'cat; exit 6'], 'in\n', { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' });
    assert.equal(spdy.stdout, 'in\n');
    assert.equal(spdy.code, 6);
    const child = spawn('kubectl', ['port-forward', 'pod/web', ':80'], { env: { ...process.env, KUBECONFIG: kp.kubeconfig } });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const port = await eventually('the forward', async () => Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1]) || undefined);
      const body = await new Promise<string>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: '/via-kubelet' }, (res) => {
          let b = '';
          res.on('data', (c) => (b += c));
          res.on('end', () => resolve(b));
        }).on('error', reject);
      });
      assert.equal(body, 'remote /via-kubelet');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
