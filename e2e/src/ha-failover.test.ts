/**
 * The failover test: a 3-member etcd, two `kplane apiserver`s, two `kplane controller-manager`s,
 * a `kplane scheduler` and `kplane kubelet`, all as processes (the controller managers as
 * system:kube-controller-manager, each controller as its ServiceAccount, the scheduler as
 * system:kube-scheduler). While clients write (every
 * acknowledged create recorded), 16 clients increment one counter by resourceVersion
 * read-modify-write, a watcher follows every write through the client's failover, and the
 * controllers reconcile a Deployment, the etcd leader is killed (SIGKILL), then the active
 * controller manager, then the API server every component talks to first. Then: no acknowledged
 * write is lost, the counter holds exactly the committed increments, the watcher saw every
 * resourceVersion in order without a relist (no 410 happened), and the controllers scaled the
 * Deployment within 15 s of each kill.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApiError, type KubeObject } from '@kplane/api';
import { clientFromKubeconfig, type Client, type ResourceClient } from '@kplane/client';
import { ConfigMaps, Deployments, Leases, resourceOf, type ConfigMap } from '@kplane/runtime';
import { watcher } from '@kplane/runtime/internal';
import { ETCD_MISSING, findEtcd, startEtcdCluster, type TestEtcdCluster } from '@kplane/storage/testing';
import { eventually, KPLANE_MAIN, removeDir, startControllerManager, startKplaneCommand, tempDir, type ControllerManagerProcess, type KplaneCommand } from './harness.js';

/**
 * Short leader election timings: a standby takes over 4 s after the leader's last renewal; the
 * leader goes on through an etcd leader election (about a second without writes) as it would
 * with kube's defaults (15 s, 10 s, 2 s).
 */
const FAST_ELECTION = ['--leader-elect-lease-duration', '4s', '--leader-elect-renew-deadline', '3s', '--leader-elect-retry-period', '500ms'];
/** The controller managers' flags: short leader election, each controller as its own ServiceAccount. */
const CM_FLAGS = [...FAST_ELECTION, '--use-service-account-credentials'];
const NS = 'default';
/** How long the controllers may take to act again after a kill. */
const ACT_AGAIN_MS = 15_000;

/** An error that leaves it unknown whether a write was applied: no response, or a 5xx. */
const ambiguous = (err: unknown): boolean => !(err instanceof ApiError) || err.code >= 500;

describe('failover: kill the etcd leader, the active controller manager, then an API server', { skip: !findEtcd() && ETCD_MISSING, concurrency: 1 }, () => {
  let etcd: TestEtcdCluster;
  let dir: string;
  const apiservers: KplaneCommand[] = [];
  const managers: ControllerManagerProcess[] = [];
  const others: KplaneCommand[] = [];
  let scheduler: KplaneCommand | undefined;
  let schedulerKubeconfig: string;
  const clients: Array<ReturnType<typeof clientFromKubeconfig>> = [];
  let kubeconfig: string;
  let cmKubeconfig: string;
  const client = (): Client => {
    const c = clientFromKubeconfig(kubeconfig);
    clients.push(c);
    return c;
  };

  /** The scheduler, with the test's short leader election. */
  const startScheduler = () => startKplaneCommand(['scheduler', '--kubeconfig', schedulerKubeconfig, '--secure-port', '0', ...FAST_ELECTION], /serving securely on https:\S+/);

  before(async () => {
    etcd = await startEtcdCluster(3);
    dir = await tempDir();
    const urls: string[] = [];
    // The first makes the data dir's PKI, which the second then shares.
    for (let i = 0; i < 2; i++) {
      const p = await startKplaneCommand(['apiserver', '--storage', etcd.url, '--data-dir', dir, '--secure-port', '0'], /^ready: https:\/\/\S+$/m);
      apiservers.push(p);
      urls.push(/^ready: (\S+)$/m.exec(p.output())![1]!);
    }
    kubeconfig = join(dir, 'admin-ha.kubeconfig');
    await promisify(execFile)(process.execPath, [KPLANE_MAIN, 'kubeconfig', '--data-dir', dir, '--user', 'kplane-admin', '--group', 'system:masters', ...urls.flatMap((u) => ['--server', u]), '--out', kubeconfig]);
    // The controller managers and the scheduler each as its own user, as a kubeadm cluster runs them.
    const own = async (user: string): Promise<string> => {
      const file = join(dir, `${user.replace(/^system:/, '')}.kubeconfig`);
      await promisify(execFile)(process.execPath, [KPLANE_MAIN, 'kubeconfig', '--data-dir', dir, '--user', user, ...urls.flatMap((u) => ['--server', u]), '--out', file]);
      return file;
    };
    const [cm, sched] = await Promise.all([own('system:kube-controller-manager'), own('system:kube-scheduler')]);
    cmKubeconfig = cm;
    schedulerKubeconfig = sched;
    // The components start together; each is kept for after() as soon as it is up.
    const started = await Promise.allSettled([
      ...[0, 1].map(() => startControllerManager(cmKubeconfig, /serving securely/, CM_FLAGS).then((m) => managers.push(m))),
      startScheduler().then((p) => (scheduler = p)),
      startKplaneCommand(['kubelet', '--kubeconfig', kubeconfig, '--nodes', '1', '--no-scheduler', '--shared-credentials'], /node\(s\) ready/).then((p) => others.push(p)),
    ]);
    for (const r of started) if (r.status === 'rejected') throw r.reason;
  });
  after(async () => {
    for (const c of clients) c.transport.close();
    for (const p of [...others, ...managers, ...(scheduler ? [scheduler] : [])]) await p.stop();
    for (const p of apiservers) await p.stop('SIGKILL');
    await etcd?.stop();
    if (dir) await removeDir(dir);
  });

  it('loses no acknowledged write or update, resumes watches without gaps, and reconciles within 15 s of each kill', { timeout: 120_000 }, async (t) => {
    const admin = client();
    const deployments = resourceOf(admin, Deployments);
    const configmaps = resourceOf(admin, ConfigMaps);
    const leases = resourceOf(admin, Leases);
    await configmaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counter', namespace: NS }, data: { n: '0' } });

    // The watcher: through its own client's failover, from now on.
    const stop = new AbortController();
    const stopWatching = new AbortController();
    // Should an assertion fail, the loops stop too (or the process would never exit).
    t.after(() => {
      stop.abort();
      stopWatching.abort();
    });
    const seen: Array<{ type: string; name: string; rv: number; by?: string }> = [];
    let relists = 0;
    let listed = false;
    const watchErrors: string[] = [];
    const watching = (async () => {
      const api = resourceOf(client(), ConfigMaps) as ResourceClient<ConfigMap>;
      for await (const e of watcher(api, { namespace: NS, signal: stopWatching.signal, backoff: { initialMs: 100, maxMs: 1000 }, onError: (err) => watchErrors.push(String(err)) })) {
        if (e.type === 'init') relists++;
        if (e.type === 'initDone') listed = true;
        if (e.type === 'apply' || e.type === 'delete') {
          const o = e.object as KubeObject & { data?: Record<string, string> };
          seen.push({ type: e.type, name: o.metadata!.name!, rv: Number(o.metadata!.resourceVersion), by: o.data?.['by'] });
        }
      }
    })();

    await eventually('the watcher to list', () => listed);

    // The writer: creates, recorded once acknowledged.
    const acked = new Map<string, number>();
    const gaps: number[] = [];
    const t0 = Date.now();
    const killsAt: number[] = [];
    let lastAck = 0;
    const writing = (async () => {
      const api = resourceOf(client(), ConfigMaps);
      for (let i = 0; !stop.signal.aborted; i++) {
        try {
          const made = await api.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `write-${i}`, namespace: NS }, data: { i: String(i) } });
          acked.set(made.metadata!.name!, Number(made.metadata!.resourceVersion));
          const now = Date.now();
          if (lastAck && now - lastAck > 1000) t.diagnostic(`pause ${now - lastAck} ms, ended ${now - t0} ms; kills at ${killsAt.map((k) => k - t0).join(', ')}`);
          if (lastAck) gaps.push(now - lastAck);
          lastAck = now;
        } catch {
          // Not acknowledged: it may or may not be there.
        }
      }
    })();

    // 16 clients (the figure): read the counter, add one, write it back with its
    // resourceVersion, their writes conflicting all the time.
    let increments = 0;
    const incrementRvs: number[] = [];
    const unknown = new Set<string>();
    const counting = Array.from({ length: 16 }, async (_, c) => {
      const api = resourceOf(client(), ConfigMaps);
      for (let seq = 0; !stop.signal.aborted; seq++) {
        const by = `${c}-${seq}`;
        try {
          const cur = await api.get('counter', { namespace: NS });
          const n = Number(cur.data!['n']);
          const put = await api.update({ ...cur, data: { n: String(n + 1), by } });
          increments++;
          incrementRvs.push(Number(put.metadata!.resourceVersion));
        } catch (err) {
          // A 409 is a refusal; without an answer (or with a 5xx) the write may have been applied.
          if (ambiguous(err)) unknown.add(by);
        }
      }
    });

    /** Starts again what has exited: a controller manager or the scheduler whose Lease was lost. */
    const supervise = async () => {
      for (let i = 0; i < managers.length; i++) {
        if (managers[i]!.child.exitCode === null) continue;
        t.diagnostic(`controller manager ${i} had exited (${managers[i]!.child.exitCode}); started again`);
        managers[i] = await startControllerManager(cmKubeconfig, /serving securely/, CM_FLAGS);
      }
      if (scheduler!.child.exitCode !== null) {
        t.diagnostic(`the scheduler had exited (${scheduler!.child.exitCode}); started again`);
        scheduler = await startScheduler();
      }
    };
    /** Each component's state and last lines, for a failure's message. */
    const components = () =>
      [...managers.map((m, i) => [`controller manager ${i}`, m] as const), ['scheduler', scheduler!] as const, ...others.map((p) => ['kubelet', p] as const)]
        .map(([name, p]) => `${name} (exit ${p.child.exitCode ?? 'none'}):\n  ${p.output().trimEnd().split('\n').slice(-6).join('\n  ')}`)
        .join('\n');

    // The controllers: a Deployment scaled after each kill reaches its replicas in time.
    const tookMs: string[] = [];
    const scaleAndWait = async (replicas: number, since: number, what: string) => {
      await eventually(`scale to ${replicas}`, async () => {
        await deployments.patch('web', { spec: { replicas } }, 'merge', { namespace: NS });
        return true;
      });
      await eventually(`${replicas} Ready replicas ${what}`, async () => (await deployments.get('web', { namespace: NS })).status?.readyReplicas === replicas, { timeoutMs: ACT_AGAIN_MS, intervalMs: 100 }).catch((err: Error) => {
        throw new Error(`${err.message}\n${components()}`, { cause: err });
      });
      const took = Date.now() - since;
      assert.ok(took <= ACT_AGAIN_MS, `the controllers acted again ${took} ms after ${what}`);
      tookMs.push(`${took} ms after ${what}`);
    };
    await deployments.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    await eventually('the Deployment Ready', async () => (await deployments.get('web', { namespace: NS })).status?.readyReplicas === 1, { timeoutMs: 30_000 });
    const progress = async (what: string) => {
      const [w, i] = [acked.size, increments];
      await eventually(`writes and increments to go on ${what}`, () => acked.size > w + 5 && increments > i + 5, { timeoutMs: ACT_AGAIN_MS });
    };
    await progress('before the first kill');

    // 1. The etcd leader.
    let since = Date.now();
    killsAt.push(Date.now());
    await etcd.kill(await etcd.leader());
    await scaleAndWait(2, since, 'the etcd leader was killed');
    await progress('after the etcd leader was killed');

    // 2. The active controller manager. A controller manager or the scheduler that lost its Lease
    // while etcd was away has exited (as kube-controller-manager and kube-scheduler do); a
    // supervisor would start it again, so does this test.
    await supervise();
    const holder = await eventually('the Lease held', async () => (await leases.get('kube-controller-manager', { namespace: 'kube-system' })).spec?.holderIdentity);
    const leading = managers.find((m) => m.identity() === holder);
    assert.ok(leading, `a running controller manager holds the Lease (${holder})`);
    const standby = managers.find((m) => m !== leading)!;
    since = Date.now();
    killsAt.push(Date.now());
    leading.child.kill('SIGKILL');
    await scaleAndWait(3, since, 'the active controller manager was killed');
    assert.ok(standby.identity() && standby.identity() !== holder, 'the standby took the Lease over');

    // 3. The first API server: every component talks to it first.
    await supervise();
    since = Date.now();
    killsAt.push(Date.now());
    await apiservers[0]!.stop('SIGKILL');
    await scaleAndWait(4, since, 'an API server was killed');
    await progress('after an API server was killed');

    stop.abort();
    await Promise.all([writing, ...counting]);

    // 0 acknowledged writes lost.
    const stored = new Map((await configmaps.list({ namespace: NS })).items.map((o) => [o.metadata!.name!, Number(o.metadata!.resourceVersion)]));
    const lost = [...acked.keys()].filter((name) => !stored.has(name));
    assert.deepEqual(lost, [], 'acknowledged creates missing');

    // The watcher catches up to the last write.
    const last = Math.max(...stored.values());
    await eventually('the watcher to see the last write', () => seen.length > 0 && seen[seen.length - 1]!.rv >= last);
    stopWatching.abort();
    await watching;

    // Watches resumed without gaps: every acknowledged resourceVersion, in order, no relist.
    const rvs = seen.map((e) => e.rv);
    for (let i = 1; i < rvs.length; i++) assert.ok(rvs[i]! > rvs[i - 1]!, `resourceVersions in order: ${rvs[i - 1]} then ${rvs[i]}`);
    const rvSeen = new Set(rvs);
    const missed = [...acked.values(), ...incrementRvs].filter((rv) => !rvSeen.has(rv));
    assert.equal(relists, 1, `the watcher listed once (no 410, no relist); its errors: ${watchErrors.join('; ')}`);
    assert.deepEqual(missed, [], 'acknowledged writes the watcher never saw');

    // 0 lost updates: the counter is the acknowledged increments, plus those whose answer was
    // lost but which the watch shows applied.
    const applied = seen.filter((e) => e.name === 'counter' && e.type === 'apply' && e.by !== undefined);
    const appliedUnknown = applied.filter((e) => unknown.has(e.by!)).length;
    const counter = await configmaps.get('counter', { namespace: NS });
    assert.equal(Number(counter.data!['n']), increments + appliedUnknown, `${increments} acknowledged increments, ${appliedUnknown} applied unanswered`);
    assert.equal(Number(counter.data!['n']), applied.length, 'one counter version per increment');
    t.diagnostic(`${acked.size} acknowledged creates, ${increments} acknowledged increments, ${unknown.size} unanswered (${appliedUnknown} applied), ${seen.length} watch events; longest pause between acknowledged creates ${Math.max(...gaps)} ms; Ready ${tookMs.join(', ')}`);
  });
});
