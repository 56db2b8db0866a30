import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { eventually, HERE, kubectl, kubectlOk, removeDir, startKplane, tempDir, useKplane, type KplaneProcess } from './harness.js';

const SCRIPT = join(HERE, '..', 'python', 'watch_configmaps.py');
const STREAM_SCRIPT = join(HERE, '..', 'python', 'stream_pod.py');

/** Runs a Python interpreter; resolves with its stdout, rejects with its stderr. */
function run(interpreter: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(interpreter, args, { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
}

/**
 * The first Python that imports the client: $PYTHON, python3 on the PATH, or the system's
 * (where Debian's python3-kubernetes installs it). Fails, naming the package, when none does.
 */
async function pythonWithClient(): Promise<string> {
  for (const candidate of [process.env.PYTHON, 'python3', '/usr/bin/python3']) {
    if (!candidate) continue;
    try {
      await run(candidate, ['-c', 'import kubernetes']);
      return candidate;
    } catch {
      /* try the next one */
    }
  }
  throw new Error('no python3 with the kubernetes client: install python3-kubernetes (.ci/run does)');
}

describe('the Kubernetes Python client against kplane up', () => {
  const suite = useKplane(['--storage', 'memory']);

  it('lists, then watches with Watch().stream (watch=True) and sees ADDED, MODIFIED and DELETED', async () => {
    const lines = (await run(await pythonWithClient(), [SCRIPT, suite.kp.kubeconfig, 'py-watch'])).trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(!lines[0].list.includes('py'));
    assert.match(lines[0].resourceVersion, /^\d+$/);
    assert.deepEqual(
      lines.slice(1).filter((e) => e.name === 'py'),
      [
        { type: 'ADDED', name: 'py', data: { k: '1' } },
        { type: 'MODIFIED', name: 'py', data: { k: '2' } },
        { type: 'DELETED', name: 'py', data: { k: '2' } },
      ],
    );
  });
});

describe('the Python client\'s stream module: exec and portforward (--exec-local, --port-forward)', () => {
  let kp: KplaneProcess;
  let dir: string;
  let web: Server;

  before(async () => {
    dir = await tempDir();
    web = createServer((req, res) => {
      const body = `hello ${req.url}`;
      res.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    const port = (web.address() as { port: number }).port;
    kp = await startKplane(dir, ['--storage', 'memory', '--nodes', '1', '--exec-local', '--port-forward', `80=127.0.0.1:${port}`]);
    await kubectlOk(kp.kubeconfig, ['run', 'py', '--image', 'busybox']);
    await eventually('py Ready', async () => (await kubectl(kp.kubeconfig, ['get', 'pod', 'py', '-o', 'jsonpath={.status.containerStatuses[0].ready}'])).stdout === 'true');
  });

  after(async () => {
    await kp?.stop();
    web?.close();
    await removeDir(dir);
  });

  it('stream() runs exec (output, stdin, exit code); portforward() carries a request and reports an unmapped port', async () => {
    const r = JSON.parse(await run(await pythonWithClient(), [STREAM_SCRIPT, kp.kubeconfig, 'default', 'py', '80']));
    assert.equal(r.exec, 'pod py\n');
    assert.equal(r.echoed, 'from stdin\n');
    assert.equal(r.code, 4);
    assert.equal(r.reply, 'hello /hello');
    assert.match(r.error, /^error forwarding port 81 to pod default\/py, uid [0-9a-f-]+: port 81 is not forwarded: the pod's containers are simulated by kplane/);
  });
});
