/**
 * The walkthrough: replays the course's experiments (the controllers chapter, the finalizers
 * page, the CRD and operators chapter) with the real kubectl against a fresh kplane, checks the
 * key facts, and produces docs/walkthrough.md from the commands and the outputs it really got.
 *
 * `KPLANE_WRITE_WALKTHROUGH=1` writes the page; otherwise the test fails when the page's commands
 * differ from the ones it ran.
 */
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HERE, eventually, httpsGet, kubectlOk, startControllerManager, useKplane, type ControllerManagerProcess } from './harness.js';
import { miniReplicaSet } from './walkthrough-mini.js';
import { Page, writeOrCompare } from './walkthrough-page.js';
import { controllersChapterEnd, crdChapter, finalizersPage, greetingOperator } from './walkthrough-parts.js';

/** The controller manager's flags: kube-controller-manager's identities per controller, any free port. */
const CM_FLAGS = ['--use-service-account-credentials=true'];
/** What the page says about the course's outputs kplane does not reproduce. */
const DIFFERENCES = [
  `The controller manager is a separate process stopped with SIGTERM and started again; kplane has
  no kubelet static pods, so there is no manifest to move away.`,
  `kplane runs fewer controllers than kube-controller-manager, so fewer ServiceAccounts end in
  -controller; it always elects a leader (the course's minikube runs with --leader-elect=false),
  and no add-on (cert-manager, CSI) holds a Lease.`,
  `The controller manager's /metrics port is printed at start (the walkthrough asks for a free
  one; the default is 10257, as kube-controller-manager's), and the counts differ from the
  course's: kplane's controllers started with the walkthrough, not long before.`,
  `kubectl 1.32 prints \`configmap "garde" deleted\`; the course's newer kubectl adds \`from ch36
  namespace\`. The ReplicaSet's pod-template-hash differs from the course's.`,
  `The foreground experiment's preStop sleeps 3 s, not 8 s, to keep the run short.`,
  `The finalizers page says a DELETE of an object with finalizers answers 202 Accepted; kube-apiserver
  and kplane answer 200 OK. A finalizer name without a domain is refused on a built-in kind and
  accepted with a Warning on a custom resource, as by kube-apiserver.`,
  `Not replayed: the CRD chapter's etcdctl look at the stored object (kplane keeps objects in
  SQLite or memory, not etcd), its CloudNativePG and RabbitMQ operators (the list of CRDs of its lab
  is a fresh kplane's); its controller-runtime Go code is replaced by examples/greeting-operator on
  kplane's runtime SDK, whose Events stand for the ones controller-runtime's recorder writes. The
  controllers chapter's clean-up is left out: the page's kplane is thrown away after the run.`,
  `In exercise 1 the number of pods the two copies create depends on the timing of their watches
  (6 in the course's run); the level, 3, is always reached.`,
];
const PAGE = join(HERE, '..', '..', 'docs', 'walkthrough.md');

describe('the walkthrough (docs/walkthrough.md)', { concurrency: 1 }, () => {
  const suite = useKplane(['--nodes', '1', '--no-controllers']);
  const page = new Page(() => suite.kp.kubeconfig);
  let cm: ControllerManagerProcess | undefined;
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const run = page.run.bind(page);

  before(async () => {
    cm = await startControllerManager(suite.kp.kubeconfig, undefined, CM_FLAGS);
  });
  after(async () => {
    await cm?.stop();
  });

  const DEPLOY = `kubectl get deploy vitrine -o jsonpath='deploy: spec.replicas={.spec.replicas} generation={.metadata.generation} observedGeneration={.status.observedGeneration} ready={.status.readyReplicas}{"\\n"}'`;
  const RS = `kubectl get rs -l app=vitrine -o jsonpath='{range .items[*]}rs {.metadata.name}: spec.replicas={.spec.replicas}{"\\n"}{end}'`;
  const ready = (n: number) =>
    eventually(`vitrine ${n}/${n} ready`, async () => {
      const d = JSON.parse(await k('get', 'deploy', 'vitrine', '-n', 'ch36', '-o', 'json')) as { metadata: { generation: number }; status?: { readyReplicas?: number; replicas?: number; observedGeneration?: number } };
      const pods = JSON.parse(await k('get', 'pods', '-n', 'ch36', '-l', 'app=vitrine', '-o', 'json')) as { items: { metadata: { deletionTimestamp?: string } }[] };
      return d.status?.observedGeneration === d.metadata.generation && d.status.readyReplicas === n && d.status.replicas === n && pods.items.length === n && pods.items.every((p) => !p.metadata.deletionTimestamp) ? true : undefined;
    });

  it('controllers: a stopped controller manager, then its return', async () => {
    page.heading(1, 'Walkthrough: the course, replayed on kplane');
    page.say(`Every experiment of three course texts (a chapter on controllers, a page on finalizers, a
      chapter on CRDs and operators), run with the real kubectl against a fresh kplane. The commands
      and outputs below are the ones a run really gave: the page is written by the end-to-end test
      e2e/src/walkthrough.test.ts (KPLANE_WRITE_WALKTHROUGH=1), and that test fails when a command
      here no longer matches what it runs. Names with a random suffix, uids, ports, ages and times
      change from one run to the next. kplane was started with \`kplane up --nodes 1
      --no-controllers\`, its controllers run as a separate \`kplane controller-manager\` that the
      walkthrough stops and starts, as the course moves kube-controller-manager's static manifest
      away and back.`);
    page.heading(2, 'Controllers');
    page.heading(3, 'Setup');
    await run('kubectl create namespace ch36');
    await run('kubectl config set-context --current --namespace=ch36');
    await run('kubectl create deployment vitrine --image=registry.k8s.io/e2e-test-images/agnhost:2.61 --replicas=2 -- /agnhost netexec');
    await ready(2);
    await run('kubectl scale deploy vitrine --replicas=3');
    await ready(3);
    await run('kubectl rollout status deploy/vitrine');

    page.heading(3, 'Scaling with the controller manager stopped');
    page.say(`The controller manager is stopped (SIGTERM to \`kplane controller-manager\`); the
      Deployment is asked for four replicas. The API server records the new number, nobody acts:
      generation moves to 3, observedGeneration stays at 2, the ReplicaSet still wants 3.`);
    await cm!.stop();
    cm = undefined;
    page.record('# kplane controller-manager stopped', '');
    await run('kubectl scale deploy vitrine --replicas=4');
    const stopped = await run(DEPLOY);
    assert.equal(stopped.stdout.trim(), 'deploy: spec.replicas=4 generation=3 observedGeneration=2 ready=3');
    assert.match((await run(RS)).stdout, /^rs vitrine-[a-z0-9]+: spec\.replicas=3\n$/);
    const pods = await run('kubectl get pods -l app=vitrine');
    assert.equal(pods.stdout.trim().split('\n').length, 4, 'three pods and a header');

    page.say(`Started again, the controller manager gets no instruction: it compares the levels
      (4 wanted, 3 asked of the ReplicaSet) and closes the gap.`);
    cm = await startControllerManager(suite.kp.kubeconfig, undefined, CM_FLAGS);
    page.record(`# kplane controller-manager --kubeconfig "$KUBECONFIG" ${CM_FLAGS.join(' ')} started again`, '');
    await ready(4);
    assert.equal((await run(DEPLOY)).stdout.trim(), 'deploy: spec.replicas=4 generation=3 observedGeneration=3 ready=4');
    assert.match((await run(RS)).stdout, /^rs vitrine-[a-z0-9]+: spec\.replicas=4\n$/);
    await run('kubectl get pods -l app=vitrine');
  });

  it('controllers: the controller manager, its identities and its Lease', async () => {
    page.heading(3, "The controller manager's identities and its Lease");
    page.say(`kplane's controller manager runs each controller under its own ServiceAccount in
      kube-system (kube-controller-manager's --use-service-account-credentials). It lists fewer
      controllers than a real cluster: the ones kplane runs. Unlike the course's single-node
      minikube, which turns leader election off, \`kplane controller-manager\` always elects a
      leader on the Lease kube-system/kube-controller-manager.`);
    const sa = await run('kubectl -n kube-system get sa -o name', { show: (o) => o.split('\n').filter((l) => /controller$|collector$/.test(l)).join('\n') + '\n' });
    for (const name of ['deployment-controller', 'replicaset-controller', 'namespace-controller']) assert.match(sa.stdout, new RegExp(`^serviceaccount/${name}$`, 'm'));
    page.say('(The output above keeps the names ending in controller or collector, as the course filters them.)');
    const leases = await run('kubectl -n kube-system get lease -o custom-columns=LEASE:.metadata.name,HOLDER:.spec.holderIdentity');
    assert.match(leases.stdout, /^kube-controller-manager\s+\S+/m);
  });

  // The CRD chapter works in its own namespaces, with the controller manager running: it runs
  // beside the controllers chapter's later parts, on a page of its own put back in its place.
  const crdPage = page.fork();
  let crdChapterDone: Promise<Error | undefined> | undefined;

  it('controllers: writing a controller (examples/mini-replicaset)', async () => {
    const kc = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
    crdChapterDone = (async () => {
      await crdChapter(crdPage, kc);
      await greetingOperator(crdPage, kc, suite.kp);
    })().then(
      () => undefined,
      (err: Error) => err,
    );
    await miniReplicaSet(page, suite.kp.kubeconfig);
  });

  it("controllers: the workqueues' metrics before and after a scale", async () => {
    page.heading(3, 'Workqueue metrics, read with a ServiceAccount token');
    const url = await eventually('the metrics address', () => /serving securely on (https:\/\/127\.0\.0\.1:\d+)/.exec(cm!.output())?.[1]);
    await run('kubectl create sa lecteur-metriques');
    await run('kubectl create clusterrole cours-lecture-metriques --verb=get --non-resource-url=/metrics');
    await run('kubectl create clusterrolebinding cours-lecture-metriques --clusterrole=cours-lecture-metriques --serviceaccount=ch36:lecteur-metriques');
    const token = (await k('-n', 'ch36', 'create', 'token', 'lecteur-metriques')).trim();
    const metricsCmd = `curl -sk -H "Authorization: Bearer $(kubectl create token lecteur-metriques)" ${url}/metrics | grep -E '^workqueue_(adds_total|depth)\\{name="(deployment|replicaset)"'`;
    const metrics = async () => {
      const r = await httpsGet(`${url}/metrics`, suite.kp.kubeconfig, false, token);
      assert.equal(r.status, 200, r.body);
      const lines = r.body.split('\n').filter((l) => /^workqueue_(adds_total|depth)\{name="(deployment|replicaset)"\}/.test(l));
      return { text: lines.join('\n') + '\n', adds: (q: string) => Number(/ (\d+)$/.exec(lines.find((l) => l.startsWith(`workqueue_adds_total{name="${q}"}`)) ?? '')?.[1]) };
    };
    page.say(`kplane's controller manager serves /metrics on its own port (printed at start), to
      clients allowed \`get\` on the non-resource URL /metrics, as kube-controller-manager does on
      10257. The command is run by the test with the same token.`);
    const before = await metrics();
    page.record('# before', '');
    page.record(metricsCmd, before.text);
    await run('kubectl scale deploy vitrine --replicas=3');
    await run('kubectl rollout status deploy/vitrine');
    await ready(3);
    const afterScale = await eventually('the queues drained', async () => {
      const m = await metrics();
      return /workqueue_depth\{name="deployment"\} 0/.test(m.text) && /workqueue_depth\{name="replicaset"\} 0/.test(m.text) ? m : undefined;
    });
    page.record('# after the scale to 3', '');
    page.record(metricsCmd, afterScale.text);
    assert.ok(afterScale.adds('deployment') > before.adds('deployment'));
    assert.ok(afterScale.adds('replicaset') > before.adds('replicaset'));
    page.say(`One scale puts keys in both queues several times: each controller also watches what
      depends on its objects (the Deployment controller its ReplicaSets and their pods). Both depths
      are back at 0.`);
  });

  it('controllers: ownerReferences, and adoption of orphaned pods', async () => {
    page.heading(3, 'Who owns whom');
    const pod = (await k('-n', 'ch36', 'get', 'pods', '-l', 'app=vitrine', '-o', 'name')).split('\n')[0]!;
    const rs = (await k('-n', 'ch36', 'get', 'rs', '-l', 'app=vitrine', '-o', 'name')).trim();
    const owner = `-o jsonpath='{.metadata.name} <- {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}{"\\n"}'`;
    assert.match((await run(`kubectl get ${pod} ${owner}`)).stdout, /^vitrine-\w+-\w{5} <- ReplicaSet\/vitrine-\w+$/m);
    assert.match((await run(`kubectl get ${rs} ${owner}`)).stdout, /^vitrine-\w+ <- Deployment\/vitrine$/m);
    const refs = JSON.parse((await run(`kubectl get ${pod} -o jsonpath='{.metadata.ownerReferences}{"\\n"}'`)).stdout) as { controller: boolean; blockOwnerDeletion: boolean }[];
    assert.deepEqual([refs[0]!.controller, refs[0]!.blockOwnerDeletion], [true, true]);

    page.say(`Deleting the ReplicaSet with --cascade=orphan leaves its pods. The Deployment
      controller creates a ReplicaSet of the same name (a new uid), and the ReplicaSet controller
      adopts the orphaned pods that match its selector: same pods, new owner uid.`);
    const oldUid = (await run(`kubectl get ${rs} -o jsonpath='{.metadata.uid}{"\\n"}'`)).stdout.trim();
    const podsBefore = (await run('kubectl get pods -l app=vitrine -o custom-columns=POD:.metadata.name,OWNER_UID:.metadata.ownerReferences[0].uid')).stdout;
    await run(`kubectl delete ${rs} --cascade=orphan`);
    await eventually('the pods adopted by a new ReplicaSet', async () => {
      const owners = (await k('-n', 'ch36', 'get', 'pods', '-l', 'app=vitrine', '-o', 'jsonpath={range .items[*]}{.metadata.ownerReferences[0].uid}{"\\n"}{end}')).trim().split('\n');
      return owners.length === 3 && owners.every((u) => u !== '' && u !== oldUid) ? true : undefined;
    });
    const newUid = (await run('kubectl get rs -l app=vitrine -o custom-columns=RS:.metadata.name,UID:.metadata.uid')).stdout;
    assert.ok(!newUid.includes(oldUid));
    const podsAfter = (await run('kubectl get pods -l app=vitrine -o custom-columns=POD:.metadata.name,OWNER_UID:.metadata.ownerReferences[0].uid')).stdout;
    const names = (t: string) => t.split('\n').slice(1).map((l) => l.split(/\s+/)[0]).filter(Boolean).sort();
    assert.deepEqual(names(podsAfter), names(podsBefore), 'the same pods, adopted');
  });

  it('controllers: foreground deletion waits for the dependents', async () => {
    page.heading(3, 'The three deletion modes: foreground');
    page.say(`Background (the default) and orphan have been seen above. Foreground: lent is a
      Deployment whose pods take 3 s to stop (a preStop sleep; the course uses 8 s). kplane's
      simulated kubelet honours the sleep.`);
    const lent = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: lent
spec:
  replicas: 2
  selector:
    matchLabels: {app: lent}
  template:
    metadata:
      labels: {app: lent}
    spec:
      containers:
      - name: c
        image: registry.k8s.io/e2e-test-images/agnhost:2.61
        args: [pause]
        lifecycle:
          preStop:
            sleep: {seconds: 3}
`;
    await run('kubectl apply -f -', { input: lent });
    await run('kubectl rollout status deploy/lent --timeout=30s');
    const started = Date.now();
    await run('kubectl delete deploy lent --cascade=foreground --wait=false');
    const d = await run(`kubectl get deploy lent -o jsonpath='deploy lent: deletionTimestamp={.metadata.deletionTimestamp} finalizers={.metadata.finalizers}{"\\n"}'`);
    assert.match(d.stdout, /finalizers=\["foregroundDeletion"\]/);
    await eventually('the ReplicaSet marked too', async () => /foregroundDeletion/.test(await k('-n', 'ch36', 'get', 'rs', '-l', 'app=lent', '-o', 'jsonpath={.items[*].metadata.finalizers}')) || undefined);
    assert.match((await run(`kubectl get rs -l app=lent -o jsonpath='{range .items[*]}rs {.metadata.name}: deletionTimestamp={.metadata.deletionTimestamp} finalizers={.metadata.finalizers}{"\\n"}{end}'`)).stdout, /foregroundDeletion/);
    await run('kubectl get pods -l app=lent');
    await run('kubectl wait deploy/lent --for=delete --timeout=30s');
    const took = Date.now() - started;
    assert.ok(took >= 3000, `the Deployment waited for the preStop (${took} ms)`);
    page.say(`The Deployment went about ${Math.round(took / 1000)} s after the request: the pods' preStop sleep,
      then the collector removed the ReplicaSet's finalizer, then the Deployment's.`);
  });

  it('controllers: finalizers, the stuck namespace and the exercises', async () => {
    await controllersChapterEnd(page, k);
  });

  it('the finalizers page', async () => {
    await finalizersPage(page, k);
  });

  it('the CRD and operators chapter', async () => {
    const failed = await crdChapterDone;
    if (failed) throw failed;
    page.append(crdPage);
  });

  it('writes docs/walkthrough.md, or checks it has not drifted', async () => {
    page.heading(2, 'Where kplane differs from the course');
    for (const line of DIFFERENCES) page.say(`- ${line}`);
    await writeOrCompare(page, PAGE, process.env.KPLANE_WRITE_WALKTHROUGH === '1');
  });
});
