/**
 * Jobs with the real kubectl against a `kplane up` process: the Job and TTL-after-finished
 * controllers with pods run to completion by the simulated kubelet.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

/** A Job manifest; pods run `runMs` and exit with `exitCode` (the simulated kubelet's annotations). */
function jobYaml(name: string, spec: string, opts: { runMs?: number; exitCode?: number } = {}): string {
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${spec}
  template:
    metadata:
      annotations:
        kplane.io/run-ms: "${opts.runMs ?? 200}"
        kplane.io/exit-code: "${opts.exitCode ?? 0}"
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
`;
}

describe('jobs', () => {
  const suite = useKplane(['--nodes', '2']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);

  it('a Job of 10 completions with parallelism 3 completes, is listed as kubectl prints it, and its TTL removes it', async () => {
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], jobYaml('batch', '  completions: 10\n  parallelism: 3\n  ttlSecondsAfterFinished: 5'));
    // Never more than 3 pods running at once; read everything at once when it completes (its TTL is short).
    let maxActive = 0;
    const done = await eventually('complete', async () => {
      const job = JSON.parse(await k('get', 'job', 'batch', '-o', 'json')) as { status?: { active?: number; succeeded?: number; conditions?: Array<{ type: string; status: string; reason: string }> } };
      maxActive = Math.max(maxActive, job.status?.active ?? 0);
      return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? job : undefined;
    }, 60_000);
    const row = (await k('get', 'job', 'batch', '--no-headers')).trim().split(/\s+/);
    assert.ok(maxActive <= 3, `at most 3 active, saw ${maxActive}`);
    assert.equal(done.status?.succeeded, 10);
    assert.deepEqual(row.slice(0, 3), ['batch', 'Complete', '10/10']);
    assert.deepEqual(done.status?.conditions?.map((c) => `${c.type}=${c.reason}`), ['SuccessCriteriaMet=CompletionsReached', 'Complete=CompletionsReached']);
    await eventually('the Completed event', async () =>
      /^Completed 1$/m.test(await k('get', 'events', '--field-selector', 'involvedObject.name=batch', '-o', 'jsonpath={range .items[*]}{.reason} {.count}{"\\n"}{end}')));
    // ttlSecondsAfterFinished: 5 — gone a few seconds later, its pods with it.
    await k('wait', '--for=delete', 'job/batch', '--timeout=30s');
    await eventually('pods gone', async () => (await k('get', 'pods', '-l', 'batch.kubernetes.io/job-name=batch', '-o', 'name')).trim() === '', 30_000);
  });

  it('an Indexed Job runs one pod per index with its index annotation, hostname and env', async () => {
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], jobYaml('indexed', '  completions: 4\n  parallelism: 2\n  completionMode: Indexed'));
    await k('wait', '--for=condition=complete', 'job/indexed', '--timeout=60s');
    assert.equal(await k('get', 'job', 'indexed', '-o', 'jsonpath={.status.completedIndexes}'), '0-3');
    const headers = (await k('get', 'jobs', '-o', 'wide')).split('\n')[0].trim().split(/\s+/);
    assert.deepEqual(headers, ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    const pods = await k('get', 'pods', '-l', 'batch.kubernetes.io/job-name=indexed', '-o',
      `jsonpath={range .items[*]}{.metadata.annotations.batch\\.kubernetes\\.io/job-completion-index} {.spec.hostname} {.spec.containers[0].env[0].name}{"\\n"}{end}`);
    assert.deepEqual(pods.trim().split('\n').sort(), ['0 indexed-0 JOB_COMPLETION_INDEX', '1 indexed-1 JOB_COMPLETION_INDEX', '2 indexed-2 JOB_COMPLETION_INDEX', '3 indexed-3 JOB_COMPLETION_INDEX']);
  });

  it('a Job whose pods exit 3 fails past its backoffLimit', async () => {
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], jobYaml('failing', '  completions: 2\n  parallelism: 2\n  backoffLimit: 1', { exitCode: 3 }));
    await k('wait', '--for=condition=failed', 'job/failing', '--timeout=60s');
    const row = (await k('get', 'job', 'failing', '--no-headers')).trim().split(/\s+/);
    assert.deepEqual(row.slice(0, 3), ['failing', 'Failed', '0/2']);
    assert.equal(await k('get', 'job', 'failing', '-o', 'jsonpath={.status.failed}'), '2');
    assert.equal(
      await k('get', 'job', 'failing', '-o', 'jsonpath={.status.conditions[?(@.type=="Failed")].message}'),
      'Job has reached the specified backoff limit',
    );
    const events = await k('get', 'events', '--field-selector', 'involvedObject.name=failing,type=Warning', '-o', 'jsonpath={.items[*].reason}');
    assert.match(events, /BackoffLimitExceeded/);
  });

  it('kubectl patch suspends a Job (its pods are deleted) and resumes it', async () => {
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], jobYaml('sleepy', '  completions: 4\n  parallelism: 2', { runMs: 60_000 }));
    await eventually('2 active', async () => (await k('get', 'job', 'sleepy', '-o', 'jsonpath={.status.active}')) === '2');
    await k('patch', 'job', 'sleepy', '--type=merge', '-p', '{"spec":{"suspend":true}}');
    await k('wait', '--for=condition=suspended', 'job/sleepy', '--timeout=30s');
    assert.equal((await k('get', 'job', 'sleepy', '--no-headers')).trim().split(/\s+/)[1], 'Suspended');
    await eventually('pods gone', async () => (await k('get', 'pods', '-l', 'batch.kubernetes.io/job-name=sleepy', '--field-selector', 'status.phase!=Failed', '-o', 'name')).trim() === '', 30_000);
    await k('patch', 'job', 'sleepy', '--type=merge', '-p', '{"spec":{"suspend":false}}');
    await eventually('2 active again', async () => (await k('get', 'job', 'sleepy', '-o', 'jsonpath={.status.active}')) === '2', 30_000);
    assert.equal(await k('get', 'job', 'sleepy', '-o', 'jsonpath={.status.conditions[?(@.type=="Suspended")].reason}'), 'JobResumed');
    await k('delete', 'job', 'sleepy');
  });

  it('kubectl create job, kubectl wait and kubectl logs job/NAME', async () => {
    assert.match(await k('create', 'job', 'hello', '--image=busybox', '--', 'echo', 'hi'), /^job.batch\/hello created$/m);
    const labels = await k('get', 'job', 'hello', '-o', 'jsonpath={.spec.template.metadata.labels}');
    assert.match(labels, /"batch.kubernetes.io\/controller-uid"/);
    assert.match(labels, /"job-name":"hello"/);
    assert.match(await k('wait', '--for=condition=complete', 'job/hello', '--timeout=60s'), /^job.batch\/hello condition met$/m);
    const logs = await kubectl(suite.kp.kubeconfig, ['logs', 'job/hello']);
    assert.equal(logs.code, 0, logs.stderr);
    // Invalid Jobs are refused as kube-apiserver refuses them.
    const bad = await kubectl(suite.kp.kubeconfig, ['create', 'job', 'bad', '--image=busybox', '--dry-run=server', '-o', 'name']);
    assert.equal(bad.code, 0, bad.stderr);
    const immutable = await kubectl(suite.kp.kubeconfig, ['patch', 'job', 'hello', '--type=merge', '-p', '{"spec":{"completions":3}}']);
    assert.notEqual(immutable.code, 0);
    assert.match(immutable.stderr, /spec.completions: Invalid value: 3: field is immutable/);
  });
});
