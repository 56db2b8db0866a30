/**
 * examples/greeting-operator against a real `kplane up` with the real kubectl: the operator runs
 * as its own ServiceAccount (least-privilege RBAC, checked with `kubectl auth can-i --list`),
 * with its webhooks installed and its metrics served; a Greeting gets its Deployment, Service
 * and Ingress, a manual scale of the Deployment is undone, a scale of the Greeting is followed
 * and waited for, and deletion runs the finalizer (or hangs in Terminating while the operator
 * is stopped).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { clientFromKubeconfig } from '@kplane/client';
import { HERE, eventually, kubectl, kubectlOk, tokenKubeconfig, useKplane } from './harness.js';

const EXAMPLE = join(HERE, '..', '..', 'examples', 'greeting-operator', 'dist');
const SA = 'system:serviceaccount:greeting-system:greeting-operator';

const greeting = (name: string, spec: string) => `apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata:\n  name: ${name}\n  namespace: demo\nspec:\n${spec}`;

/** A running operator. */
interface Operator {
  output(): string;
  metricsUrl: string;
  stop(): Promise<void>;
}

describe('examples/greeting-operator', () => {
  const suite = useKplane(['--nodes', '1']);
  const running = new Set<ChildProcess>();
  let operatorKubeconfig = '';
  let operator: Operator;
  const records = () => readFile(join(suite.dir, 'greeting-records.txt'), 'utf8').catch(() => '');
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const kIn = (input: string, ...args: string[]) => kubectlOk(suite.kp.kubeconfig, args, input);

  /** Starts the operator as its ServiceAccount, in the data dir (records and certificates there). */
  async function start(): Promise<Operator> {
    const args = [join(EXAMPLE, 'main.js'), '--kubeconfig', operatorKubeconfig, '--webhook-port', '0', '--metrics-bind-address', '127.0.0.1:0', '--dns-latency', '250', '--leader-elect'];
    const child = spawn(process.execPath, args, { cwd: suite.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    const exited = new Promise<void>((resolve) => child.once('exit', () => (running.delete(child), resolve())));
    await eventually('the operator to start', () => {
      if (child.exitCode !== null) throw new Error(`the operator exited with ${child.exitCode}:\n${out}`);
      return /^leading: lease greeting-system\/greeting-operator held as \S+$/m.test(out) || undefined;
    });
    return {
      output: () => out,
      metricsUrl: /^metrics: (\S+)$/m.exec(out)![1]!,
      async stop() {
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
      },
    };
  }

  before(async () => {
    await kIn(await manifests('all'), 'apply', '-f', '-');
    await k('create', 'namespace', 'demo');
    const token = (await k('create', 'token', 'greeting-operator', '-n', 'greeting-system')).trim();
    operatorKubeconfig = await tokenKubeconfig(suite.kp, token, 'greeting-operator');
    operator = await start();
    assert.match(operator.output(), /^webhooks: https:\/\/127\.0\.0\.1:\d+ \(kubectl apply -f greeting-operator-certs\/webhooks\.json\)$/m);
    assert.equal(await k('apply', '-f', join(suite.dir, 'greeting-operator-certs', 'webhooks.json')),
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/greeting-operator created\nvalidatingwebhookconfiguration.admissionregistration.k8s.io/greeting-operator created\n');
  });
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });

  /** The output of `node dist/manifests.js what`. */
  function manifests(what: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(EXAMPLE, 'manifests.js'), what], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout!.on('data', (c) => (out += c));
      child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`manifests.js ${what} exited with ${code}`))));
    });
  }

  it('has only the rights its RBAC manifest gives', async () => {
    const list = await k('auth', 'can-i', '--list', `--as=${SA}`);
    const rows = list.split('\n').filter((l) => /^\S/.test(l) && !l.startsWith('Resources') && !/^self\w+reviews/.test(l)).map((l) => l.replace(/\s+/g, ' ').trim()).sort();
    assert.deepEqual(rows, [
      'deployments.apps [] [] [get list watch create patch]',
      'events [] [] [create patch]',
      'greetings.demo.example.com [] [] [get list watch patch]',
      'greetings.demo.example.com/finalizers [] [] [update]',
      'greetings.demo.example.com/status [] [] [patch]',
      'ingresses.networking.k8s.io [] [] [get list watch create patch]',
      'services [] [] [get list watch create patch]',
    ]);
    // Leader election: its own Lease, in its own namespace only.
    assert.equal(await k('auth', 'can-i', 'update', 'leases/greeting-operator', '-n', 'greeting-system', `--as=${SA}`), 'yes\n');
    for (const [verb, resource] of [['delete', 'deployments'], ['get', 'secrets'], ['update', 'greetings.demo.example.com'], ['update', 'leases/kube-controller-manager']]) {
      const r = await kubectl(suite.kp.kubeconfig, ['auth', 'can-i', verb!, resource!, '-n', resource!.startsWith('leases') ? 'kube-system' : 'demo', `--as=${SA}`]);
      assert.deepEqual([r.code, r.stdout], [1, 'no\n'], `${verb} ${resource}`);
    }
  });

  it('makes the Deployment, Service and Ingress of a Greeting and reports it Ready', async () => {
    // The generated CRD, served: the chapter's rules and the description kubectl explain shows.
    const bad = await kubectl(suite.kp.kubeconfig, ['apply', '-f', '-'], greeting('hello', '  version: "1.0"\n  replicas: 1\n  host: hello.example.org\n'));
    assert.equal(bad.stderr, 'The Greeting "hello" is invalid: \n* spec.host: Invalid value: host must be in the apps.example.com zone\n* spec: Forbidden: a public application needs at least 2 replicas, got 1\n');
    assert.match(await k('explain', 'greeting.spec.version'), /^FIELD: +version <string>\n\n+DESCRIPTION:\n +Tag of the ghcr\.io\/example\/hello image$/m);
    // The mutating webhook strips the "v" the pattern would refuse.
    await kIn(greeting('hello', '  version: "v1.0"\n  message: hi\n  host: hello.apps.example.com\n'), 'apply', '-f', '-');
    assert.equal(await k('-n', 'demo', 'wait', 'greeting/hello', '--for=condition=Ready', '--timeout=20s'), 'greeting.demo.example.com/hello condition met\n');
    assert.match(await k('-n', 'demo', 'get', 'gr', '-o', 'wide'), /^NAME +VERSION +REPLICAS +READY +URL +AGE\nhello +1\.0 +2 +2 +https:\/\/hello\.apps\.example\.com +\d+s\n$/);
    assert.equal(await k('-n', 'demo', 'get', 'gr', 'hello', '-o', 'jsonpath={.status.conditions[0].message}'), '2/2 replicas ready');
    const children = await k('-n', 'demo', 'get', 'deploy,svc,ingress', '-l', 'app.kubernetes.io/instance=hello', '-o', 'name');
    assert.equal(children, 'deployment.apps/hello\nservice/hello\ningress.networking.k8s.io/hello\n');
    for (const kind of ['deploy', 'svc', 'ingress']) {
      const owner = await k('-n', 'demo', 'get', kind, 'hello', '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} controller={.metadata.ownerReferences[0].controller}');
      assert.equal(owner, 'Greeting/hello controller=true', kind);
    }
    assert.match(await k('-n', 'demo', 'get', 'ingress', 'hello'), /^hello +<none> +hello\.apps\.example\.com +80 +\d+s$/m);
    const managers = await k('-n', 'demo', 'get', 'deploy', 'hello', '--show-managed-fields', '-o', 'jsonpath={range .metadata.managedFields[*]}{.manager}:{.operation}{"\\n"}{end}');
    assert.match(managers, /^greeting-operator:Apply$/m);
    assert.equal(await records(), 'hello.apps.example.com demo/hello\n');
  });

  it('refuses a second Greeting on the same host, and warns about one without a host', async () => {
    const dup = await kubectl(suite.kp.kubeconfig, ['apply', '-f', '-'], greeting('copycat', '  version: "1.0"\n  host: hello.apps.example.com\n'));
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /^Error from server \(Forbidden\): error when creating "STDIN": greetings\.demo\.example\.com "copycat" is forbidden: admission webhook "vgreeting-v1\.demo\.example\.com" denied the request: spec\.host: Duplicate value: "hello\.apps\.example\.com": already used by Greeting demo\/hello\n$/);
    const inside = await kubectl(suite.kp.kubeconfig, ['apply', '-f', '-'], greeting('inside', '  version: "1.0"\n'));
    assert.equal(inside.stdout, 'greeting.demo.example.com/inside created\n');
    assert.equal(inside.stderr, 'Warning: spec.host is not set: the Greeting gets no DNS record and is reachable inside the cluster only\n');
    await k('-n', 'demo', 'delete', 'greeting', 'inside');
  });

  it('undoes a manual scale of the Deployment within a second', async () => {
    const client = clientFromKubeconfig(suite.kp.kubeconfig);
    const deployments = client.resource({ group: 'apps', version: 'v1', resource: 'deployments', namespaced: true });
    try {
      assert.equal(await k('-n', 'demo', 'scale', 'deploy', 'hello', '--replicas=5'), 'deployment.apps/hello scaled\n');
      const scaledAt = Date.now();
      await eventually('the operator to restore 2 replicas', async () => ((await deployments.get('hello', { namespace: 'demo' })) as { spec?: { replicas?: number } }).spec?.replicas === 2, { intervalMs: 50 });
      assert.ok(Date.now() - scaledAt < 1_000, `restored after ${Date.now() - scaledAt} ms`);
    } finally {
      client.transport.close();
    }
  });

  it('follows kubectl scale on the Greeting, through its scale subresource', async () => {
    assert.equal(await k('-n', 'demo', 'scale', 'greeting', 'hello', '--replicas=3'), 'greeting.demo.example.com/hello scaled\n');
    // Ready was True at 2/2 already: wait for the status of generation 2, 3 replicas ready.
    assert.equal(await k('-n', 'demo', 'wait', 'greeting/hello', '--for=jsonpath={.status.readyReplicas}=3', '--timeout=20s'), 'greeting.demo.example.com/hello condition met\n');
    assert.equal(await k('-n', 'demo', 'get', 'greeting', 'hello', '-o', 'jsonpath={.metadata.generation} {.status.observedGeneration} {.status.conditions[0].status} {.status.conditions[0].message}'), '2 2 True 3/3 replicas ready');
    const scale = JSON.parse(await k('get', '--raw', '/apis/demo.example.com/v1/namespaces/demo/greetings/hello/scale')) as { kind: string; apiVersion: string; spec: unknown; status: unknown };
    assert.deepEqual([scale.kind, scale.apiVersion, scale.spec, scale.status], ['Scale', 'autoscaling/v1', { replicas: 3 }, { replicas: 3, selector: 'app.kubernetes.io/instance=hello' }]);
    assert.equal(await k('-n', 'demo', 'get', 'deploy', 'hello', '-o', 'jsonpath={.spec.replicas}'), '3');
  });

  it('serves its metrics: reconciles and webhook calls', async () => {
    const text = await (await fetch(operator.metricsUrl)).text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
    assert.ok(value(/^controller_runtime_reconcile_total\{controller="greeting",result="success"\} (\d+)$/m) > 0, text);
    assert.equal(value(/^controller_runtime_reconcile_total\{controller="greeting",result="error"\} (\d+)$/m), 0);
    assert.ok(value(/^controller_runtime_webhook_requests_total\{webhook="\/mutate-demo-example-com-v1-greeting",code="200"\} (\d+)$/m) >= 3, text);
    // A denial is an AdmissionReview answered with HTTP 200, as controller-runtime counts it.
    assert.ok(value(/^controller_runtime_webhook_requests_total\{webhook="\/validate-demo-example-com-v1-greeting",code="200"\} (\d+)$/m) >= 3, text);
    assert.match(text, /^workqueue_adds_total\{name="greeting"\} \d+$/m);
  });

  it('deletes through its finalizer: Terminating while the DNS record is removed, then gone with its children', async () => {
    // A watch opened first sees every state the Greeting goes through, however fast the operator is.
    const watch = spawn('kubectl', ['--kubeconfig', suite.kp.kubeconfig, '-n', 'demo', 'get', 'greeting', 'hello', '--watch', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.deletionTimestamp} {.object.metadata.finalizers}{"\\n"}'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let seen = '';
    watch.stdout!.on('data', (c) => (seen += c));
    try {
      await eventually('the watch to list hello', () => seen.startsWith('ADDED '));
      assert.equal(await k('-n', 'demo', 'delete', 'greeting', 'hello', '--wait=false'), 'greeting.demo.example.com "hello" deleted\n');
      await eventually('the Greeting to go', () => /^DELETED /m.test(seen));
    } finally {
      watch.kill();
    }
    const events = seen.trim().split('\n').map((l) => l.split(' '));
    const terminating = events.find(([type, deletion]) => type === 'MODIFIED' && deletion);
    assert.ok(terminating, seen);
    assert.match(terminating[1]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(terminating[2], '["demo.example.com/cleanup"]', 'Terminating with its finalizer while the DNS record is removed');
    assert.equal(await records(), '');
    await eventually('the collector to remove the children', async () => (await k('-n', 'demo', 'get', 'deploy,svc,ingress', '-l', 'app.kubernetes.io/instance=hello', '-o', 'name')) === '');
    assert.match(operator.output(), /^demo\/hello: deleting: removing DNS record hello\.apps\.example\.com\ndemo\/hello: DNS record removed, removing finalizer demo\.example\.com\/cleanup$/m);
  });

  it('with the operator stopped, a deleted Greeting stays Terminating with its finalizer; started again, it finishes', async () => {
    await kIn(greeting('bye', '  version: "1.1"\n  host: bye.apps.example.com\n'), 'apply', '-f', '-');
    await k('-n', 'demo', 'wait', 'greeting/bye', '--for=condition=Ready', '--timeout=20s');
    await eventually('the record of bye', async () => (await records()) === 'bye.apps.example.com demo/bye\n');
    await operator.stop();
    await k('-n', 'demo', 'delete', 'greeting', 'bye', '--wait=false');
    // Whatever else runs (the garbage collector, kubectl wait), nothing removes the finalizer.
    const waited = await kubectl(suite.kp.kubeconfig, ['-n', 'demo', 'wait', 'greeting/bye', '--for=delete', '--timeout=2s']);
    assert.equal(waited.code, 1);
    assert.equal(await k('-n', 'demo', 'get', 'greeting', 'bye', '-o', 'jsonpath={.metadata.finalizers}'), '["demo.example.com/cleanup"]');
    assert.equal(await k('-n', 'demo', 'get', 'deploy', 'bye', '-o', 'name'), 'deployment.apps/bye\n', 'its children stay');
    assert.equal(await records(), 'bye.apps.example.com demo/bye\n');

    operator = await start();
    // Its webhooks listen on a new port: their configurations must follow, or the finalizer's
    // removal (an update) is refused, as the chapter warns of a webhook whose server is gone.
    await k('apply', '-f', join(suite.dir, 'greeting-operator-certs', 'webhooks.json'));
    // kubectl prints "condition met" when it saw the object go, and nothing when it was gone already.
    assert.match(await k('-n', 'demo', 'wait', 'greeting/bye', '--for=delete', '--timeout=20s'), /^(greeting\.demo\.example\.com\/bye condition met\n)?$/);
    assert.equal((await kubectl(suite.kp.kubeconfig, ['-n', 'demo', 'get', 'greeting', 'bye'])).code, 1, 'the Greeting is gone');
    assert.equal(await records(), '');
  });
});
