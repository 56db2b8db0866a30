/**
 * The walkthrough's "writing a controller" part: examples/mini-replicaset's bare version through
 * `kubectl proxy`, the course's five steps, exercise 1 (two copies, then leader election) and
 * exercise 4 (the status annotation), recorded on the walkthrough's page.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { HERE, eventually, kubectlOk } from './harness.js';
import type { Page } from './walkthrough-page.js';

const EXAMPLE = join(HERE, '..', '..', 'examples', 'mini-replicaset', 'dist');
const WISH = (n: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vitrine\n  labels:\n    cours/mini-rs: "oui"\ndata:\n  repliques: "${n}"\n`;

/** A running copy of the example. */
interface Copy {
  lines(): string[];
  /** Its standard output (what `> log.txt` keeps). */
  output(): string;
  stop(): Promise<void>;
}

/** Runs the mini-replicaset experiments in namespace ch36 of the kplane behind `kubeconfig`. */
export async function miniReplicaSet(page: Page, kubeconfig: string): Promise<void> {
  const run = page.run.bind(page);
  const k = (...args: string[]) => kubectlOk(kubeconfig, ['-n', 'ch36', ...args]);
  const running = new Set<ChildProcess>();
  const proxy = spawn('kubectl', ['proxy', '--port=0'], { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    proxy.stdout!.on('data', (c) => (out += c));
    const port = await eventually('kubectl proxy to serve', () => /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
    const proxyUrl = `http://127.0.0.1:${port}`;

    const start = async (file: 'bare' | 'sdk', ...flags: string[]): Promise<Copy> => {
      const fr = flags.includes('fr');
      const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: kubeconfig, LANG: 'C.UTF-8' };
      delete env.LC_ALL;
      const args = [join(EXAMPLE, `${file}.js`), 'ch36', ...(file === 'bare' ? ['--proxy', proxyUrl] : []), ...flags];
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      let o = '';
      let e = '';
      child.stdout!.on('data', (c) => (o += c));
      child.stderr!.on('data', (c) => (e += c));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (running.delete(child), resolve(code))));
      await eventually(`${file} to start`, () => {
        if (child.exitCode !== null) throw new Error(`${file} exited:\n${o}${e}`);
        return (fr ? /^contrôleur démarré dans /m : /^controller started in /m).test(o) || undefined;
      });
      return {
        lines: () => o.split('\n').filter(Boolean),
        output: () => o,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          const code = await exited;
          // The bare version dies of the signal; the SDK's manager stops gracefully, exits 0 and
          // prints nothing about the stop.
          if (file === 'sdk') {
            assert.equal(code, 0, `${file} exited with ${code}:\n${e}`);
            assert.doesNotMatch(e, /AbortError|This operation was aborted/, `${file} printed the stop:\n${e}`);
          }
        },
      };
    };
    const pods = async () =>
      (JSON.parse(await k('get', 'pods', '-l', 'cours/proprietaire=vitrine', '-o', 'json')) as { items: { metadata: { name: string; deletionTimestamp?: string } }[] }).items;
    const live = async () => (await pods()).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name);
    /** Whether `c` logged the creation of `pod` (in English or French). */
    const madeBy = (c: Copy, pod: string) => c.lines().some((l) => l.endsWith(` creating ${pod}`) || l.endsWith(` je crée ${pod}`));
    /** Waits until `n` pods are live and each one's creation is in `c`'s log (on a loaded machine a copy may create one too many, then delete it). */
    const settled = (n: number, c?: Copy) =>
      eventually(`${n} live pods`, async () => {
        const names = await live();
        return names.length === n && (!c || names.every((name) => madeBy(c, name))) ? names : undefined;
      });
    const logged = (c: Copy, re: RegExp, n: number) =>
      eventually(`${n} lines ${re}`, () => c.lines().filter((l) => re.test(l)).length >= n || undefined).catch((err: Error) => {
        throw new Error(`${err.message}:\n${c.output()}`);
      });

    /** The course's five steps with one version of the example: 3 wanted, a pod deleted by hand, 1 wanted, 4 wanted while stopped, the wish deleted. */
    const fiveSteps = async (file: 'bare' | 'sdk', ...flags: string[]): Promise<void> => {
      const fr = flags.includes('fr');
      const re = (n: number, verb: 'creating' | 'deleting') =>
        new RegExp(fr ? `pour ${n} voulus, je ${verb === 'creating' ? 'crée' : 'supprime'} ` : `for ${n} wanted, ${verb} `);
      const shown = `node examples/mini-replicaset/dist/${file}.js ch36${file === 'bare' ? ` --proxy ${proxyUrl}` : ''}${flags.length ? ` ${flags.join(' ')}` : ''}`;
      const log = file === 'bare' ? 'log' : 'log-sdk';
      let ctl = await start(file, ...flags);
      page.record(`${shown} > ${log}1.txt &`, '');
      await run('kubectl apply -f -', { input: WISH(3) });
      const first = (await settled(3, ctl))[0]!;
      await run(`kubectl delete pod/${first} --wait=false`);
      await eventually('the replacement', async () => {
        const names = await live();
        return names.length === 3 && !names.includes(first) && names.every((name) => madeBy(ctl, name)) ? true : undefined;
      });
      await run(`kubectl patch cm vitrine --type=merge -p '{"data":{"repliques":"1"}}'`);
      await settled(1);
      await logged(ctl, re(1, 'deleting'), 2);
      await ctl.stop();
      page.record(`kill %2; cat ${log}1.txt`, ctl.output());
      assert.match(ctl.output(), fr ? /vitrine : 3 Pod\(s\) pour 1 voulus, je supprime / : /vitrine: 3 pod\(s\) for 1 wanted, deleting /);

      page.say('The controller is stopped; the wish changes to 4, then it starts again:');
      await run(`kubectl patch cm vitrine --type=merge -p '{"data":{"repliques":"4"}}'`);
      ctl = await start(file, ...flags);
      await settled(4);
      await logged(ctl, re(4, 'creating'), 3);
      await ctl.stop();
      page.record(`${shown} > ${log}2.txt & ... kill %2; cat ${log}2.txt`, ctl.output());
      assert.match(ctl.lines()[1]!, fr ? /vitrine : 1 Pod\(s\) pour 4 voulus, je crée / : /vitrine: 1 pod\(s\) for 4 wanted, creating /);

      page.say('Still stopped, the wish itself is deleted: the garbage collector follows the ownerReferences.');
      await run(`kubectl get pod -l cours/proprietaire=vitrine -o jsonpath='{.items[0].metadata.ownerReferences}{"\\n"}'`);
      await run('kubectl delete cm vitrine');
      await eventually('the pods collected', async () => ((await pods()).length === 0 ? true : undefined));
      assert.match((await run('kubectl get pods -l cours/proprietaire=vitrine')).stderr, /No resources found in ch36 namespace\./);
    };

    page.heading(3, 'Writing a controller: mini-replicaset');
    page.say(`examples/mini-replicaset/dist/bare.js is the course's hand-made ReplicaSet in
      TypeScript, on Node's standard library only, through kubectl proxy. Its "object" is a
      ConfigMap labelled cours/mini-rs=oui whose data.repliques says how many pods it wants. It
      prints the course's lines in English (\`--lang fr\` for the French ones). Here the proxy
      listens on a free port, given with --proxy.`);
    page.record(`kubectl proxy --port=0 &   # Starting to serve on 127.0.0.1:${port}`, '');
    await fiveSteps('bare');

    page.heading(3, 'The same controller on the runtime SDK');
    page.say(`examples/mini-replicaset/dist/sdk.js is the same controller on kplane's runtime SDK
      (shared informers, a workqueue that collapses duplicate keys and retries with backoff, the
      controller builder, a manager that stops gracefully on SIGTERM). It reads $KUBECONFIG, so
      it needs no proxy. The same five steps, this time with \`--lang fr\`: the course's French
      lines.`);
    await fiveSteps('sdk', '--lang', 'fr');

    page.heading(3, 'Exercise 1: two controllers for one wish');
    const [a, b] = await Promise.all([start('bare'), start('bare')]);
    page.record(`# two copies of bare.js started, then:`, '');
    await run('kubectl apply -f -', { input: WISH(3) });
    await eventually('the copies to settle on 3 pods', async () => {
      const now = await pods();
      const both = [...a!.lines(), ...b!.lines()];
      const names = (verb: string) => new Set(both.flatMap((l) => new RegExp(` ${verb} (\\S+)$`).exec(l)?.[1] ?? []));
      return now.length === 3 && now.every((p) => !p.metadata.deletionTimestamp) && names('deleting').size === names('creating').size - 3 ? true : undefined;
    });
    await Promise.all([a!.stop(), b!.stop()]);
    const created = [...a!.lines(), ...b!.lines()].filter((l) => / creating /.test(l)).length;
    page.record('# copy A: cat logA.txt', a!.output());
    page.record('# copy B: cat logB.txt', b!.output());
    await run('kubectl get pods -l cours/proprietaire=vitrine');
    page.say(`${created} pods were created for 3 wanted: both copies saw the wish with no pod. (The
      count varies from run to run with the timing of the two watches; the level, 3, is always
      reached.)`);
    await k('delete', 'cm', 'vitrine');
    await eventually('the pods collected', async () => ((await pods()).length === 0 ? true : undefined));

    page.say(`The same with the runtime SDK version and --leader-elect: only the copy holding the Lease
      ch36/mini-replicaset acts.`);
    const copies = await Promise.all([start('sdk', '--leader-elect'), start('sdk', '--leader-elect')]);
    const leadLine = /leader: lease ch36\/mini-replicaset held as (\S+)$/m;
    const leader = await eventually('a leader', () => copies.find((c) => leadLine.test(c.output())));
    const standby = copies.find((c) => c !== leader)!;
    page.record('# two copies of sdk.js --leader-elect started, then:', '');
    await run('kubectl apply -f -', { input: WISH(3) });
    await settled(3, leader);
    await run('kubectl get lease mini-replicaset -o custom-columns=LEASE:.metadata.name,HOLDER:.spec.holderIdentity');
    await Promise.all(copies.map((c) => c.stop()));
    page.record('# the leader: cat logA.txt', leader.output());
    page.record('# the standby: cat logB.txt', standby.output());
    assert.deepEqual(standby.lines(), ['controller started in ch36'], 'the standby does nothing');
    await k('delete', 'cm', 'vitrine');
    await eventually('the pods collected', async () => ((await pods()).length === 0 ? true : undefined));

    page.heading(3, 'Exercise 4: a controller that writes its status');
    page.say('With --status, the controller annotates the wish with cours/pods = ready/wanted, only when the value changes.');
    const ctl = await start('bare', '--status');
    page.record(`node examples/mini-replicaset/dist/bare.js ch36 --proxy ${proxyUrl} --status > log3.txt &`, '');
    await run('kubectl apply -f -', { input: WISH(3) });
    const rv = await eventually('the status 3/3', async () => {
      const cm = JSON.parse(await k('get', 'cm', 'vitrine', '-o', 'json')) as { metadata: { resourceVersion: string; annotations?: Record<string, string> } };
      return cm.metadata.annotations?.['cours/pods'] === '3/3' ? cm.metadata.resourceVersion : undefined;
    });
    const annotation = `kubectl get cm vitrine -o jsonpath='annotation: {.metadata.annotations.cours/pods}, resourceVersion {.metadata.resourceVersion}{"\\n"}'`;
    await run(annotation);
    // A pod touched by hand wakes the controller: a reconcile that must write nothing.
    await run(`kubectl label pod/${(await pods())[0]!.metadata.name} touched=yes`);
    await logged(ctl, /status 3\/3/, 1);
    const after = await run(annotation);
    assert.match(after.stdout, new RegExp(`resourceVersion ${rv}$`, 'm'));
    await ctl.stop();
    page.record('kill %2; cat log3.txt', ctl.output());
    assert.equal(ctl.lines().filter((l) => / status 3\/3$/.test(l)).length, 1, ctl.output());
    await k('delete', 'cm', 'vitrine');
  } finally {
    for (const child of running) child.kill('SIGKILL');
    proxy.kill('SIGTERM');
  }
}
