/**
 * examples/mini-replicaset against a real `kplane up` with the real kubectl: both versions (bare,
 * through `kubectl proxy`; on the runtime SDK, over HTTPS) through the course's five
 * steps, exercise 1 (two copies at once, then with leader election) and exercise 4 (the status
 * annotation is written only when it changes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HERE, eventually, kubectlOk, useKplane } from './harness.js';

const EXAMPLE = join(HERE, '..', '..', 'examples', 'mini-replicaset', 'dist');

type Version = 'bare' | 'sdk';

/** A running copy of the example. */
interface Copy {
  output(): string;
  /** Its stdout lines. */
  lines(): string[];
  /** SIGTERM, and wait for it to exit. */
  stop(): Promise<void>;
}

/** The pod names of the action lines (`creating` or `deleting`, English) in `lines`. */
function acted(lines: string[], verb: 'creating' | 'deleting'): string[] {
  return lines.flatMap((l) => new RegExp(`^\\d\\d:\\d\\d:\\d\\d vitrine: \\d+ pod\\(s\\) for \\d+ wanted, ${verb} (\\S+)$`).exec(l)?.[1] ?? []);
}

const wish = (n: number, name = 'vitrine') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels:\n    cours/mini-rs: "oui"\ndata:\n  repliques: "${n}"\n`;

interface PodView {
  name: string;
  created: string;
  deleting: boolean;
  ready: boolean;
}

describe('examples/mini-replicaset', () => {
  const suite = useKplane(['--nodes', '1']);
  const running = new Set<ChildProcess>();
  let proxy: ChildProcess | undefined;
  let proxyUrl = '';

  before(async () => {
    proxy = spawn('kubectl', ['proxy', '--port=0'], { env: { ...process.env, KUBECONFIG: suite.kp.kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proxy.stdout!.on('data', (c) => (out += c));
    proxy.stderr!.on('data', (c) => (out += c));
    const port = await eventually('kubectl proxy to serve', () => /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
    proxyUrl = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    for (const child of running) child.kill('SIGKILL');
    proxy?.kill('SIGTERM');
  });

  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);

  /** Starts one copy in `ns` and waits for its first line (its cache has listed). */
  async function start(version: Version, ns: string, ...flags: string[]): Promise<Copy> {
    const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: suite.kp.kubeconfig, LANG: 'C.UTF-8' };
    delete env.LC_ALL;
    const args = [join(EXAMPLE, `${version}.js`), ns, ...(version === 'bare' ? ['--proxy', proxyUrl] : []), ...flags];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (err += c));
    const exited = new Promise<void>((resolve) => child.once('exit', () => (running.delete(child), resolve())));
    await eventually(`${version} to start in ${ns}`, () => {
      if (child.exitCode !== null) throw new Error(`${version} exited with ${child.exitCode}:\n${out}${err}`);
      return /^(controller started in|contrôleur démarré dans) /m.test(out) || undefined;
    });
    return {
      output: () => out + err,
      lines: () => out.split('\n').filter(Boolean),
      async stop() {
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
      },
    };
  }

  /** The pods of `ns` that carry the owner label vitrine. */
  async function pods(ns: string): Promise<PodView[]> {
    const list = JSON.parse(await k('get', 'pods', '-n', ns, '-l', 'cours/proprietaire=vitrine', '-o', 'json')) as {
      items: { metadata: { name: string; creationTimestamp: string; deletionTimestamp?: string }; status?: { conditions?: { type: string; status: string }[] } }[];
    };
    return list.items.map((p) => ({
      name: p.metadata.name,
      created: p.metadata.creationTimestamp,
      deleting: !!p.metadata.deletionTimestamp,
      ready: !!p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    }));
  }
  const annotations = async (ns: string, name: string) =>
    (JSON.parse(await k('get', 'cm', name, '-n', ns, '-o', 'json')) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations ?? {};
  const live = async (ns: string) => (await pods(ns)).filter((p) => !p.deleting);
  /** Waits until `ns` has exactly `n` pods, none being deleted; returns them. */
  const settled = (ns: string, n: number) =>
    eventually(`${n} pods in ${ns}`, async () => {
      const all = await pods(ns);
      return all.length === n && all.every((p) => !p.deleting) ? all : undefined;
    });

  for (const version of ['bare', 'sdk'] as const) {
    it(`${version}: the course's five steps`, async () => {
      const ns = `mrs-${version}`;
      await k('create', 'namespace', ns);
      let ctl = await start(version, ns);

      // 1. The wish: 3 pods, created by one reconcile that saw none.
      await kubectlOk(suite.kp.kubeconfig, ['apply', '-n', ns, '-f', '-'], wish(3));
      const first = await settled(ns, 3);
      // Each live pod's creation is logged. Like the course's program, a copy trusts its cache after
      // a short wait, so on a loaded machine it may create one pod too many and then delete it: the
      // count of creations is at least 3, and exactly 3 when the cache kept up.
      const created = await eventually('the creations logged', () => {
        const names = acted(ctl.lines(), 'creating');
        return first.every((p) => names.includes(p.name)) ? names : undefined;
      });
      assert.ok(created.length >= 3, ctl.output());
      assert.match(ctl.lines()[1]!, /^\d\d:\d\d:\d\d vitrine: 0 pod\(s\) for 3 wanted, creating vitrine-\w{5}$/);
      if (created.length === 3) assert.match(ctl.lines()[3]!, /^\d\d:\d\d:\d\d vitrine: 2 pod\(s\) for 3 wanted, creating vitrine-\w{5}$/);

      // 2. A pod deleted by hand is replaced: the controller sees 2 for 3.
      await k('delete', 'pod', '-n', ns, created[0]!, '--wait=false');
      const second = await eventually('the replacement pod', async () => {
        const now = await live(ns);
        return now.length === 3 && !now.some((p) => p.name === created[0]) ? now : undefined;
      });
      const replacement = second.find((p) => !created.includes(p.name))!;
      await eventually('the replacement logged', () => ctl.lines().some((l) => l.endsWith(`vitrine: 2 pod(s) for 3 wanted, creating ${replacement.name}`)));

      // 3. One replica: the newest go.
      await k('patch', 'cm', 'vitrine', '-n', ns, '--type=merge', '-p', '{"data":{"repliques":"1"}}');
      const [survivor] = await settled(ns, 1);
      const oldest = second.map((p) => p.created).sort()[0];
      assert.equal(survivor!.created, oldest, 'the oldest pod stays');
      await eventually('two deletions logged', () => acted(ctl.lines(), 'deleting').length === 2);
      assert.ok(ctl.lines().some((l) => / vitrine: 3 pod\(s\) for 1 wanted, deleting /.test(l)), ctl.output());
      assert.ok(ctl.lines().some((l) => / vitrine: 2 pod\(s\) for 1 wanted, deleting /.test(l)), ctl.output());
      assert.ok(!acted(ctl.lines(), 'deleting').includes(survivor!.name));

      // 4. Stopped, the wish changes to 4; nothing happens until the restart catches up (in French).
      await ctl.stop();
      await k('patch', 'cm', 'vitrine', '-n', ns, '--type=merge', '-p', '{"data":{"repliques":"4"}}');
      assert.equal((await live(ns)).length, 1, 'nothing happens while the controller is stopped');
      ctl = await start(version, ns, '--lang', 'fr');
      const fourth = await settled(ns, 4);
      await eventually('the creations logged', () => {
        const made = ctl.lines().flatMap((l) => / vitrine : \d Pod\(s\) pour 4 voulus, je crée (vitrine-\w{5})$/.exec(l)?.[1] ?? []);
        return made.length >= 3 && fourth.filter((p) => made.includes(p.name)).length === 3;
      });
      assert.equal(ctl.lines()[0], `contrôleur démarré dans ${ns}`);
      assert.match(ctl.lines()[1]!, /^\d\d:\d\d:\d\d vitrine : 1 Pod\(s\) pour 4 voulus, je crée vitrine-\w{5}$/);
      await ctl.stop();

      // 5. Stopped, the wish is deleted: the garbage collector follows the ownerReferences.
      const cm = JSON.parse(await k('get', 'cm', 'vitrine', '-n', ns, '-o', 'json')) as { metadata: { uid: string } };
      const refs = JSON.parse(await k('get', 'pods', '-n', ns, '-l', 'cours/proprietaire=vitrine', '-o', 'jsonpath={.items[0].metadata.ownerReferences}'));
      assert.deepEqual(refs, [{ apiVersion: 'v1', blockOwnerDeletion: true, controller: true, kind: 'ConfigMap', name: 'vitrine', uid: cm.metadata.uid }]);
      await k('delete', 'cm', 'vitrine', '-n', ns);
      await eventually('the garbage collector to remove the pods', async () => (await pods(ns)).length === 0);
    });
  }

  for (const version of ['bare', 'sdk'] as const) {
    it(`${version}, exercise 1: two copies at once both create pods (6 in the course's run), then delete the surplus down to 3`, async () => {
      const ns = `mrs-twins-${version}`;
      await k('create', 'namespace', ns);
      const [a, b] = await Promise.all([start(version, ns), start(version, ns)]);
      await kubectlOk(suite.kp.kubeconfig, ['apply', '-n', ns, '-f', '-'], wish(3));
      const both = () => [...a!.lines(), ...b!.lines()];
      // Both see the wish with no pod and create 3 each; then each sees 6 for 3 and deletes the
      // 3 newest: the same ones, chosen by the same rule.
      await eventually('the copies to settle on 3 pods', async () => {
        const now = await pods(ns);
        const created = new Set(acted(both(), 'creating'));
        const deleted = new Set(acted(both(), 'deleting'));
        return now.length === 3 && now.every((p) => !p.deleting) && deleted.size === created.size - 3;
      });
      const created = acted(both(), 'creating');
      assert.ok(acted(a!.lines(), 'creating').length > 0 && acted(b!.lines(), 'creating').length > 0, `both copies act:\n${both().join('\n')}`);
      assert.ok(new Set(created).size > 3, `more pods created than wanted:\n${both().join('\n')}`);
      await Promise.all([a!.stop(), b!.stop()]);
    });
  }

  it('exercise 1 with --leader-elect: only the copy holding the Lease acts; the other takes over when it stops', async () => {
    const ns = 'mrs-lease';
    await k('create', 'namespace', ns);
    const copies = await Promise.all([start('sdk', ns, '--leader-elect'), start('sdk', ns, '--leader-elect')]);
    const leadLine = /^\d\d:\d\d:\d\d leader: lease mrs-lease\/mini-replicaset held as (\S+)$/m;
    const leader = await eventually('a leader', () => copies.find((c) => leadLine.test(c.output())));
    const standby = copies.find((c) => c !== leader)!;
    const holder = await k('get', 'lease', 'mini-replicaset', '-n', ns, '-o', 'jsonpath={.spec.holderIdentity}');
    assert.equal(holder, leadLine.exec(leader.output())![1]);

    await kubectlOk(suite.kp.kubeconfig, ['apply', '-n', ns, '-f', '-'], wish(3));
    await settled(ns, 3);
    await eventually('the leader logs its 3 creations', () => acted(leader.lines(), 'creating').length === 3);
    assert.deepEqual(standby.lines(), [`controller started in ${ns}`], 'the standby does nothing');

    // The leader stops and releases the Lease: the standby takes it and catches up.
    await leader.stop();
    const next = await eventually('the standby to lead', () => leadLine.exec(standby.output())?.[1]);
    assert.notEqual(next, holder);
    await k('patch', 'cm', 'vitrine', '-n', ns, '--type=merge', '-p', '{"data":{"repliques":"4"}}');
    await settled(ns, 4);
    await eventually('the new leader logs its creation', () => standby.lines().some((l) => / vitrine: 3 pod\(s\) for 4 wanted, creating /.test(l)));
    assert.equal(acted(standby.lines(), 'creating').length, 1);
    await standby.stop();
  });

  for (const version of ['bare', 'sdk'] as const) {
    it(`${version}, exercise 4: the status annotation is written only when it changes, so the resourceVersion stays still`, async () => {
      const ns = `mrs-status-${version}`;
      await k('create', 'namespace', ns);
      const ctl = await start(version, ns, '--status');
      await kubectlOk(suite.kp.kubeconfig, ['apply', '-n', ns, '-f', '-'], wish(3));
      const rv = await eventually('the status 3/3', async () => {
        const cm = JSON.parse(await k('get', 'cm', 'vitrine', '-n', ns, '-o', 'json')) as { metadata: { resourceVersion: string; annotations?: Record<string, string> } };
        return cm.metadata.annotations?.['cours/pods'] === '3/3' ? cm.metadata.resourceVersion : undefined;
      });
      assert.ok((await live(ns)).every((p) => p.ready));
      const statusLines = () => ctl.lines().filter((l) => / vitrine: status /.test(l));
      await eventually('the status 3/3 logged', () => statusLines().at(-1)?.endsWith(' vitrine: status 3/3'));
      assert.match(statusLines()[0]!, /^\d\d:\d\d:\d\d vitrine: status 0\/3$/);
      const writes = statusLines().length;
      // Our own write woke the controller (its watch sees the ConfigMap change), and so does a pod
      // touched by hand: reconciles that must write nothing. A second wish created after them is
      // queued after them: once its status is written, they have run.
      await k('label', 'pod', '-n', ns, (await live(ns))[0]!.name, 'touched=yes');
      await kubectlOk(suite.kp.kubeconfig, ['apply', '-n', ns, '-f', '-'], wish(0, 'sentinel'));
      await eventually('the sentinel status 0/0', async () => (await annotations(ns, 'sentinel'))['cours/pods'] === '0/0');
      assert.equal(await k('get', 'cm', 'vitrine', '-n', ns, '-o', 'jsonpath={.metadata.resourceVersion}'), rv);
      assert.equal(statusLines().length, writes, ctl.output());
      await ctl.stop();
    });
  }
});
