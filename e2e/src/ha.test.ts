/**
 * kplane as separate processes, as an HA cluster runs it: `kplane apiserver` alone (its
 * endpoint record and identity Lease), two `kplane scheduler`s electing a leader on
 * kube-system/kube-scheduler through a kubeconfig that lists a dead API server first (they fail
 * over to the live one), and `kplane kubelet` without a scheduler. The leader is killed; the
 * other takes over and schedules. `kplane controller-manager` with its own kubeconfig
 * (system:kube-controller-manager) runs a Deployment.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, HERE, httpsGet, KPLANE_MAIN, kubectl, kubectlOk, removeDir, startKplaneCommand, tempDir, type KplaneCommand } from './harness.js';

/** Short leader election timings, so that a takeover fits in a test. */
const FAST_ELECTION = ['--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '500ms'];
const ACQUIRED = /successfully acquired lease kube-system\/kube-scheduler as (\S+)/;

describe('separate processes: kplane apiserver, two kplane schedulers, kplane kubelet', { concurrency: 1 }, () => {
  let dir: string;
  let apiserver: KplaneCommand;
  let kubeconfig: string;
  let url: string;
  const schedulers: KplaneCommand[] = [];
  let kubelet: KplaneCommand | undefined;
  const k = (...args: string[]) => kubectlOk(kubeconfig, args);

  before(async () => {
    dir = await tempDir();
    apiserver = await startKplaneCommand(['apiserver', '--storage', 'memory://', '--data-dir', dir, '--secure-port', '0'], /^ready: https:\/\/\S+$/m);
    kubeconfig = /^kubeconfig: (.+)$/m.exec(apiserver.output())![1]!;
    url = /^ready: (\S+)$/m.exec(apiserver.output())![1]!;
  });
  after(async () => {
    for (const p of [kubelet, ...schedulers]) await p?.stop('SIGKILL');
    await apiserver?.stop();
    await removeDir(dir);
  });

  it('the API server alone lists itself in the kubernetes endpoints and keeps an identity Lease', async () => {
    const port = new URL(url).port;
    assert.equal((await k('get', 'endpoints', 'kubernetes', '-o', 'jsonpath={.subsets[*].addresses[*].ip}:{.subsets[*].ports[*].port}')).trim(), `127.0.0.1:${port}`);
    const leases = (await k('-n', 'kube-system', 'get', 'lease', '-l', 'apiserver.kubernetes.io/identity=kube-apiserver', '-o', 'jsonpath={.items[*].spec.leaseDurationSeconds}')).trim();
    assert.equal(leases, '3600');
    assert.match(await k('get', 'clusterrolebinding', 'system:kube-scheduler', '-o', 'name'), /system:kube-scheduler/, "the scheduler's role is there for it");
  });

  it('two schedulers: one leads and schedules, the other takes over once the leader is killed', async () => {
    const schedulerKubeconfig = join(dir, 'scheduler.kubeconfig');
    // A dead server first: the schedulers fail over to the live one.
    await promisify(execFile)(process.execPath, [KPLANE_MAIN, 'kubeconfig', '--data-dir', dir, '--user', 'system:kube-scheduler', '--server', 'https://127.0.0.1:1', '--server', url, '--out', schedulerKubeconfig]);
    // The kubelet and both schedulers start together; each is kept for after() as soon as it is up.
    const started = await Promise.allSettled([
      startKplaneCommand(['kubelet', '--kubeconfig', kubeconfig, '--nodes', '2', '--no-scheduler', '--shared-credentials'], /node\(s\) ready/).then((p) => (kubelet = p)),
      ...[0, 1].map(() => startKplaneCommand(['scheduler', '--kubeconfig', schedulerKubeconfig, '--secure-port', '0', ...FAST_ELECTION], /serving securely on https:\S+/).then((p) => schedulers.push(p))),
    ]);
    for (const r of started) if (r.status === 'rejected') throw r.reason;
    const leaderIndex = await eventually('a scheduler to lead', () => {
      const i = schedulers.findIndex((s) => ACQUIRED.test(s.output()));
      return i >= 0 && { i };
    });
    const leader = schedulers[leaderIndex.i]!;
    const standby = schedulers[1 - leaderIndex.i]!;
    const leaderId = ACQUIRED.exec(leader.output())![1]!;
    assert.equal((await k('-n', 'kube-system', 'get', 'lease', 'kube-scheduler', '-o', 'jsonpath={.spec.holderIdentity}')).trim(), leaderId);
    assert.doesNotMatch(standby.output(), ACQUIRED, 'one acts');
    // Its secure port: health for anyone, leader_election_master_status for the admin.
    const metricsUrl = /serving securely on (https:\S+)/.exec(leader.output())![1]!;
    assert.equal((await httpsGet(`${metricsUrl}/healthz`, kubeconfig, false)).status, 200);
    assert.equal((await httpsGet(`${metricsUrl}/metrics`, kubeconfig, false)).status, 403, 'anonymous may not read /metrics');
    assert.match((await httpsGet(`${metricsUrl}/metrics`, kubeconfig, true)).body, /leader_election_master_status\{name="kube-scheduler"\} 1/);
    await k('run', 'first', '--image=nginx');
    await eventually('first to be bound', async () => (await k('get', 'pod', 'first', '-o', 'jsonpath={.spec.nodeName}')).trim());

    await leader.stop('SIGKILL');
    const standbyId = await eventually('the standby to take over', () => ACQUIRED.exec(standby.output())?.[1]);
    assert.notEqual(standbyId, leaderId);
    assert.equal((await k('-n', 'kube-system', 'get', 'lease', 'kube-scheduler', '-o', 'jsonpath={.spec.holderIdentity}')).trim(), standbyId);
    await k('run', 'second', '--image=nginx');
    await eventually('second to be bound', async () => (await k('get', 'pod', 'second', '-o', 'jsonpath={.spec.nodeName}')).trim());

    // SIGTERM: the Lease is released and the process exits 0.
    assert.equal(await standby.stop(), 0);
    assert.equal((await k('-n', 'kube-system', 'get', 'lease', 'kube-scheduler', '-o', 'jsonpath={.spec.holderIdentity}')).trim(), '');
  });

  it('the controller manager as system:kube-controller-manager, each controller as its ServiceAccount, runs a Deployment', async () => {
    const cmKubeconfig = join(dir, 'controller-manager.kubeconfig');
    await promisify(execFile)(process.execPath, [KPLANE_MAIN, 'kubeconfig', '--data-dir', dir, '--user', 'system:kube-controller-manager', '--server', url, '--out', cmKubeconfig]);
    // kube's rules, from the API server's bootstrap policy.
    const rules = await k('auth', 'can-i', '--list', '--as=system:kube-controller-manager');
    assert.match(rules, /^\*\.\*\s+\[\]\s+\[\]\s+\[list watch\]/m);
    assert.match(rules, /^leases\.coordination\.k8s\.io\s+\[\]\s+\[kube-controller-manager\]\s+\[get update\]/m);
    assert.match(rules, /^serviceaccounts\/token\s+\[\]\s+\[\]\s+\[create\]/m);
    assert.equal((await kubectl(kubeconfig, ['auth', 'can-i', 'create', 'pods', '--as=system:kube-controller-manager'])).stdout.trim(), 'no', 'it writes nothing itself');
    const cm = await startKplaneCommand(['controller-manager', '--kubeconfig', cmKubeconfig, '--use-service-account-credentials', '--secure-port', '0', ...FAST_ELECTION], /successfully acquired lease/);
    try {
      await k('create', 'deployment', 'own-identity', '--image=nginx', '--replicas=2');
      await eventually('the Deployment to have 2 pods', async () => (await k('get', 'pods', '-l', 'app=own-identity', '-o', 'name')).trim().split('\n').filter(Boolean).length === 2);
      assert.doesNotMatch(cm.output(), /forbidden/i);
      await k('delete', 'deployment', 'own-identity');
      await eventually('the garbage collector to delete its pods', async () => (await k('get', 'pods', '-l', 'app=own-identity', '-o', 'name')).trim() === '');
    } finally {
      await cm.stop();
    }
  });

  it('SIGTERM stops the API server cleanly', async () => {
    await kubelet?.stop();
    assert.equal(await apiserver.stop(), 0);
    assert.match(apiserver.output(), /SIGTERM, shutting down/);
  });
});

/** Why the recipe cannot run here (no etcd on the PATH, or no etcd storage driver), or undefined. */
async function recipeUnavailable(): Promise<string | undefined> {
  try {
    execFileSync('etcd', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'etcd is not on the PATH';
  }
  // Without the driver, kplane apiserver refuses the scheme at once; with it, it tries to connect.
  const scratch = await tempDir();
  try {
    const probe = await promisify(execFile)(process.execPath, [KPLANE_MAIN, 'apiserver', '--storage', 'etcd://127.0.0.1:1', '--secure-port', '0', '--data-dir', scratch], { timeout: 5000 }).catch((err: { stderr?: string }) => err);
    if (/unsupported storage scheme/.test(String((probe as { stderr?: string }).stderr))) return 'no etcd storage driver';
  } finally {
    await removeDir(scratch);
  }
  return undefined;
}

describe('the recipe: scripts/ha-local.sh, 3 etcd members, 3 API servers, 2 controller managers', { concurrency: 1 }, async () => {
  const skip = await recipeUnavailable();
  const script = join(HERE, '..', '..', 'scripts', 'ha-local.sh');
  // Every port moved, away from a cluster on the default ones.
  const offset = '3100';
  let dir: string;
  const run = (...args: string[]) => promisify(execFile)('bash', [script, ...args, '--dir', dir], { timeout: 120_000 });
  before(async () => {
    if (skip) return;
    dir = await tempDir();
    await run('start', '--port-offset', offset, '--nodes', '2');
  });
  after(async () => {
    if (skip) return;
    await run('stop').catch(() => undefined);
    await removeDir(dir);
  });

  it('serves through every API server, and goes on when one is killed', { skip }, async () => {
    const kubeconfig = join(dir, 'admin.kubeconfig');
    const ports = [6443, 6444, 6445].map((p) => p + Number(offset));
    const endpoints = (await kubectlOk(kubeconfig, ['get', 'endpoints', 'kubernetes', '-o', 'jsonpath={.subsets[*].ports[*].port}'])).trim().split(' ').map(Number).sort();
    assert.deepEqual(endpoints, ports);
    await kubectlOk(kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    const running = async (server: string, n: number) =>
      eventually(`${n} pods running`, async () => {
        const out = await kubectl(kubeconfig, ['--server', server, 'get', 'pods', '-l', 'app=web', '--no-headers']);
        return out.stdout.split('\n').filter((l) => / Running /.test(l)).length === n;
      }, { timeoutMs: 60_000, intervalMs: 500 });
    await running(`https://127.0.0.1:${ports[0]}`, 2);
    // The first API server dies: the controllers, the scheduler and the nodes go on through the others.
    process.kill(Number(execFileSync('cat', [join(dir, 'pids', 'apiserver-1.pid')]).toString().trim()), 'SIGKILL');
    const second = `https://127.0.0.1:${ports[1]}`;
    await kubectlOk(kubeconfig, ['--server', second, 'scale', 'deployment', 'web', '--replicas=3']);
    await running(second, 3);
  });
});
