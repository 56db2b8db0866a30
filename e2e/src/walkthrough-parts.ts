/**
 * The walkthrough's later experiments (finalizers, the stuck namespace, the controllers
 * chapter's kubectl exercises, the finalizers page, the CRD chapter), run by walkthrough.test.ts
 * on its kplane and recorded on its page.
 */
import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import assert from 'node:assert/strict';
import { HERE, eventually, tokenKubeconfig, type KplaneProcess } from './harness.js';
import { GARDE_CONFIGMAP } from './harness.js';

const EXAMPLE = join(HERE, '..', '..', 'examples', 'greeting-operator', 'dist');
import type { Page } from './walkthrough-page.js';

/** kubectl with the suite's kubeconfig, failing on a non-zero exit (not recorded). */
type K = (...args: string[]) => Promise<string>;

const GARDE = GARDE_CONFIGMAP;
/** A claim of the default class, and a pod that uses it. */
const VOLUME_USER = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: donnees
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: utilisateur
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: main
    image: registry.k8s.io/e2e-test-images/agnhost:2.61
    args: [pause]
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: donnees
`;
const HELLO = 'apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata:\n  name: hello\n  namespace: demo\nspec:\n  version: "1.0"\n  message: hi\n  host: hello.apps.example.com\n';
const TRUE_CONDITIONS = `-o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}: {.message}{"\\n"}{end}'`;

/** Finalizers, the stuck namespace and exercises 2 and 3 of the controllers chapter. */
export async function controllersChapterEnd(page: Page, k: K): Promise<void> {
  const run = page.run.bind(page);
  page.heading(3, 'Finalizers');
  page.say('A finalizer with an invented name, that nobody will remove: the delete only sets a deletionTimestamp.');
  await run('kubectl apply -f -', { input: GARDE });
  await run('kubectl delete cm garde --wait=false');
  const marked = await run(`kubectl get cm garde -o jsonpath='deletionTimestamp={.metadata.deletionTimestamp} finalizers={.metadata.finalizers}{"\\n"}'`);
  assert.match(marked.stdout, /^deletionTimestamp=\S+Z finalizers=\["cours\.exemple\/archivage"\]$/m);
  await run('kubectl get cm garde');
  await run(`kubectl patch cm garde --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]'`);
  const gone = await run('kubectl get cm garde', { fails: true });
  assert.match(gone.stderr, /Error from server \(NotFound\): configmaps "garde" not found/);

  page.heading(3, 'A namespace stuck in Terminating');
  await run('kubectl create namespace ch36-bloque');
  await run('kubectl -n ch36-bloque apply -f -', { input: GARDE });
  await run('kubectl delete namespace ch36-bloque --wait=false');
  await eventually('the namespace conditions', async () => /NamespaceFinalizersRemaining/.test(await k('get', 'namespace', 'ch36-bloque', '-o', 'jsonpath={.status.conditions[?(@.status=="True")].type}')) || undefined);
  assert.match((await run('kubectl get namespace ch36-bloque')).stdout, /ch36-bloque\s+Terminating/);
  const conds = (await run(`kubectl get namespace ch36-bloque ${TRUE_CONDITIONS}`)).stdout;
  assert.match(conds, /^NamespaceContentRemaining: Some resources are remaining: configmaps\. has 1 resource instances$/m);
  assert.match(conds, /^NamespaceFinalizersRemaining: Some content in the namespace has finalizers remaining: cours\.exemple\/archivage in 1 resource instances$/m);
  page.say('Removing the finalizer by hand unblocks it (and skips whatever cleanup it stood for):');
  await run(`kubectl -n ch36-bloque patch cm garde --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]'`);
  await eventually('the namespace gone', async () => !(await k('get', 'namespaces', '-o', 'name')).includes('namespace/ch36-bloque') || undefined);
  assert.match((await run('kubectl get namespace ch36-bloque', { fails: true })).stderr, /namespaces "ch36-bloque" not found/);

  page.heading(3, 'Exercise 2: an orphaned Deployment, recreated');
  const rsBefore = (await k('-n', 'ch36', 'get', 'rs', '-l', 'app=vitrine', '-o', 'jsonpath={.items[*].metadata.name}')).trim();
  const podsBefore = (await k('-n', 'ch36', 'get', 'pods', '-l', 'app=vitrine', '-o', 'jsonpath={.items[*].metadata.name}')).trim();
  await run('kubectl delete deploy vitrine --cascade=orphan');
  await run('kubectl get rs,pods -l app=vitrine');
  page.say('The orphaned ReplicaSet keeps its pods. An identical Deployment is created again:');
  await run('kubectl create deployment vitrine --image=registry.k8s.io/e2e-test-images/agnhost:2.61 --replicas=3 -- /agnhost netexec');
  await eventually('the ReplicaSet adopted', async () => (await k('-n', 'ch36', 'get', 'rs', rsBefore, '-o', 'jsonpath={.metadata.ownerReferences[0].kind}')) === 'Deployment' || undefined);
  await eventually('the Deployment available', async () => (await k('-n', 'ch36', 'get', 'deploy', 'vitrine', '-o', 'jsonpath={.status.readyReplicas}')) === '3' || undefined);
  await run('kubectl get rs,pods -l app=vitrine');
  assert.equal((await k('-n', 'ch36', 'get', 'rs', '-l', 'app=vitrine', '-o', 'jsonpath={.items[*].metadata.name}')).trim(), rsBefore, 'same template, same ReplicaSet');
  assert.equal((await k('-n', 'ch36', 'get', 'pods', '-l', 'app=vitrine', '-o', 'jsonpath={.items[*].metadata.name}')).trim(), podsBefore, 'no pod created');
  page.say('No pod is created: the same template gives the same ReplicaSet name, which the new Deployment adopts with its pods.');

  page.heading(3, 'Exercise 3: an owner in another namespace');
  await run('kubectl create namespace ch36-autre');
  await run('kubectl -n ch36-autre create configmap proprio --from-literal=a=1');
  const uid = (await run(`kubectl -n ch36-autre get cm proprio -o jsonpath='{.metadata.uid}{"\\n"}'`)).stdout.trim();
  await run('kubectl apply -f -', { input: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dependant\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: proprio, uid: ${uid}}\ndata: {a: "1"}\n` });
  await eventually('the dependant collected', async () => !(await k('-n', 'ch36', 'get', 'cm', '-o', 'name')).includes('configmap/dependant') || undefined);
  assert.match((await run('kubectl get cm dependant', { fails: true })).stderr, /configmaps "dependant" not found/);
  const events = await eventually('the event', async () => {
    const out = await k('-n', 'ch36', 'get', 'events', '--field-selector', 'involvedObject.name=dependant', '-o', 'name');
    return out.trim() ? true : undefined;
  });
  assert.ok(events);
  const ev = await run('kubectl get events --field-selector involvedObject.name=dependant -o custom-columns=REASON:.reason,MESSAGE:.message --no-headers');
  assert.match(ev.stdout, /^OwnerRefInvalidNamespace\s+ownerRef \[v1\/ConfigMap, namespace: ch36, name: proprio, uid: [0-9a-f-]+\] does not exist in namespace "ch36"$/m);
  page.say(`An ownerReference has no namespace: the collector looks for proprio in ch36, does not
    find it, deletes the dependant and leaves the OwnerRefInvalidNamespace event.`);
}

/** The finalizers page: 202 Accepted, no new finalizer once deleting, qualified names. */
export async function finalizersPage(page: Page, k: K): Promise<void> {
  const run = page.run.bind(page);
  page.heading(2, 'Finalizers (the reference page)');
  page.heading(3, 'A DELETE on an object with finalizers');
  page.say(`The page says the API server answers 202 Accepted. kube-apiserver (and kplane with it)
    answers 200 OK with the object, now carrying its deletionTimestamp; kube-apiserver keeps 202 for a
    DELETE not done at once that sent the old orphanDependents=false.`);
  await run('kubectl apply -f -', { input: GARDE });
  const del = await run('kubectl delete cm garde --wait=false -v=6', {
    show: (o) => ['DELETE https:', ' deleted'].flatMap((w) => o.split('\n').filter((l) => l.includes(w))).map((l) => l.replace(/^I\d{4} [\d:.]+\s+\d+ \S+\] /, '').replace(/ in \d+ milliseconds$/, '')).join('\n') + '\n',
  });
  assert.match(del.stderr + del.stdout, /DELETE https:\S+\/configmaps\/garde 200 OK/);
  page.say("(kubectl's -v=6 log, the request line only, its prefix and timing cut.)");
  page.heading(3, 'Once deleting, finalizers can be removed but not added');
  const add = await run(`kubectl patch cm garde --type=merge -p '{"metadata":{"finalizers":["cours.exemple/archivage","cours.exemple/autre"]}}'`, { fails: true });
  assert.match(add.stderr, /no new finalizers can be added if the object is being deleted/);
  await run(`kubectl patch cm garde --type=merge -p '{"metadata":{"finalizers":null}}'`);
  await run('kubectl get cm garde', { fails: true });
  page.heading(3, 'kubernetes.io/pv-protection');
  page.say(`The page's example: a PersistentVolume in use carries kubernetes.io/pv-protection. Deleted,
    it stays Terminating while it is Bound; once its pod and claim are gone, the volume is Released
    and the finalizer removed, and it goes. Here the volume is provisioned for a claim that a pod
    uses.`);
  await run('kubectl apply -f -', { input: VOLUME_USER });
  await eventually('the claim bound', async () => (await k('-n', 'ch36', 'get', 'pvc', 'donnees', '-o', 'jsonpath={.status.phase}')) === 'Bound' || undefined);
  const pv = (await k('-n', 'ch36', 'get', 'pvc', 'donnees', '-o', 'jsonpath={.spec.volumeName}')).trim();
  await eventually('the pv-protection finalizer', async () => (await k('get', 'pv', pv, '-o', 'jsonpath={.metadata.finalizers}')).includes('kubernetes.io/pv-protection') || undefined);
  assert.equal((await run(`kubectl get pv ${pv} -o jsonpath='{.metadata.finalizers}{"\\n"}'`)).stdout, '["kubernetes.io/pv-protection"]\n');
  await run(`kubectl delete pv ${pv} --wait=false`);
  assert.match((await run(`kubectl get pv ${pv}`)).stdout, /\sTerminating\s+ch36\/donnees\s/);
  await run('kubectl delete pod utilisateur');
  await run('kubectl delete pvc donnees');
  await eventually('the volume gone', async () => !(await k('get', 'pv', '-o', 'name')).includes(pv) || undefined);
  assert.match((await run(`kubectl get pv ${pv}`, { fails: true })).stderr, /persistentvolumes "pvc-[0-9a-f-]+" not found/);

  page.heading(3, 'Finalizer names must be domain-qualified');
  page.say(`On a built-in kind the API server refuses a finalizer name without a domain (other than
    the standard ones such as kubernetes), as kube-apiserver does.`);
  const bare = await run('kubectl apply -f -', { fails: true, input: GARDE.replace('cours.exemple/archivage', 'archivage').replace('garde', 'garde-nue') });
  assert.match(bare.stderr, /metadata\.finalizers\[0\]: Invalid value: "archivage": name is neither a standard finalizer name nor is it fully qualified/);
}

/** The CRD chapter's kubectl experiments on the Greeting CRD of examples/greeting-operator. */
export async function crdChapter(page: Page, k: K): Promise<void> {
  const run = page.run.bind(page);
  page.heading(2, 'CRDs and operators');
  page.heading(3, 'The Greeting CRD');
  const { stdout: manifests } = await promisify(execFile)(process.execPath, [join(EXAMPLE, 'manifests.js')]);
  await run('kubectl apply -f -', { input: manifests, as: 'node examples/greeting-operator/dist/manifests.js | kubectl apply -f -' });
  await eventually('the CRD established', async () => /Established=True/.test(await k('get', 'crd', 'greetings.demo.example.com', '-o', 'jsonpath={range .status.conditions[*]}{.type}={.status}{"\\n"}{end}')) || undefined);
  assert.match((await run(`kubectl get crd greetings.demo.example.com -o jsonpath='{range .status.conditions[*]}{.type}={.status}{"\\n"}{end}'`)).stdout, /Established=True/);
  assert.match((await run('kubectl api-resources --api-group=demo.example.com')).stdout, /^greetings\s+gr\s+demo\.example\.com\/v1\s+true\s+Greeting$/m);
  assert.match((await run('kubectl explain greeting.spec.version')).stdout, /FIELD: version <string>/);
  page.say(`The CRD's first version built a message by concatenation, '… got ' + string(self.replicas);
    the API server estimates each CEL rule's cost when the CRD is written and refuses it.
    greeting-crd-concat.json is the CRD above with that messageExpression and the group
    demo2.example.com:`);
  const crd = (JSON.parse(manifests) as { items: { kind: string; metadata: { name: string }; spec: { group: string; versions: { schema: { openAPIV3Schema: { properties: { spec: { 'x-kubernetes-validations': { messageExpression?: string }[] } } } } }[] } }[] }).items.find((i) => i.kind === 'CustomResourceDefinition')!;
  crd.metadata.name = 'greetings.demo2.example.com';
  crd.spec.group = 'demo2.example.com';
  for (const r of crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec['x-kubernetes-validations']) {
    if (r.messageExpression) r.messageExpression = "'a public application needs at least 2 replicas, got ' + string(self.replicas)";
  }
  const costly = await run('kubectl apply -f -', { input: JSON.stringify(crd), as: 'kubectl apply -f greeting-crd-concat.json', fails: true });
  assert.match(costly.stderr, /messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x/);
  await run('kubectl create namespace demo');
  assert.match((await run('kubectl get --raw /apis/demo.example.com/v1/namespaces/demo/greetings')).stdout, /"kind":"GreetingList"/);
  page.heading(3, 'Validation by the API server');
  const bad = await run('kubectl apply -f -', {
    fails: true,
    input: 'apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata:\n  name: hello\n  namespace: demo\nspec:\n  version: "1.0"\n  replicas: 1\n  host: hello.example.org\n',
  });
  assert.match(bad.stderr, /host must be in the apps\.example\.com zone/);
  assert.match(bad.stderr, /a public application needs at least 2 replicas, got 1/);
  await run('kubectl apply -f -', { input: HELLO });
  assert.match((await run('kubectl -n demo get gr')).stdout, /^hello\s+1\.0\s+2\s/m);
  page.say('The default replicas: 2 is written with the object:');
  assert.match((await run(`kubectl -n demo get gr hello -o jsonpath='{.metadata.generation} {.spec}{"\\n"}'`)).stdout, /^1 \{.*"replicas":2/m);
  page.say('A field the schema does not know is refused by kubectl apply (strict field validation, its default):');
  const typo = await run('kubectl apply -f -', {
    fails: true,
    input: 'apiVersion: demo.example.com/v1\nkind: Greeting\nmetadata:\n  name: typo\n  namespace: demo\nspec:\n  version: "1.0"\n  replica: 3\n',
  });
  assert.match(typo.stderr, /strict decoding error: unknown field "spec\.replica"/);
  const immut = await run(`kubectl -n demo patch gr hello --type=merge -p '{"spec":{"host":"hello2.apps.example.com"}}'`, { fails: true });
  assert.match(immut.stderr, /host cannot be changed, create a new Greeting/);
  assert.match((await run('kubectl -n demo get greetings --field-selector spec.version=1.1')).stderr, /No resources found in demo namespace\./);
  assert.match((await run('kubectl -n demo get greetings --field-selector spec.version=1.0')).stdout, /^hello\s/m);
  await run('kubectl get demo -n demo');
  page.heading(3, 'A finalizer name without a domain, on a custom resource');
  page.say(`On a custom resource the API server accepts the name, with a warning that kubectl
    prints; it warns only about the finalizers a write adds.`);
  const warned = await run(`kubectl -n demo patch gr hello --type=merge -p '{"metadata":{"finalizers":["archivage"]}}'`);
  assert.match(warned.stdout, /greeting\.demo\.example\.com\/hello patched/);
  assert.match(warned.stderr, /^Warning: metadata\.finalizers: "archivage": prefer a domain-qualified finalizer name including a path \(\/\) to avoid accidental conflicts with other finalizer writers$/m);
  await run(`kubectl -n demo patch gr hello --type=merge -p '{"metadata":{"finalizers":null}}'`);
}

/** The CRD chapter's controller: examples/greeting-operator run as its ServiceAccount. */
export async function greetingOperator(page: Page, k: K, kp: KplaneProcess): Promise<void> {
  const run = page.run.bind(page);
  page.heading(3, 'The controller: examples/greeting-operator');
  page.say(`The operator runs as its ServiceAccount greeting-system/greeting-operator, whose
    ClusterRole the manifests above installed. What it may do (the lines of non-resource URLs
    left out):`);
  const can = await run('kubectl auth can-i --list --as=system:serviceaccount:greeting-system:greeting-operator', { show: (o) => o.split('\n').filter((l) => !/^ *\[/.test(l)).join('\n') });
  assert.match(can.stdout, /^greetings\.demo\.example\.com\/status\s+\[\]\s+\[\]\s+\[patch\]$/m);
  assert.doesNotMatch(can.stdout, /delete/);
  page.say('As the chapter checks of an operator before installing it: no access to Secrets.');
  const secrets = await run('kubectl auth can-i get secrets -n kube-system --as=system:serviceaccount:greeting-system:greeting-operator', { fails: true });
  assert.equal(secrets.stdout, 'no\n');
  const token = (await k('-n', 'greeting-system', 'create', 'token', 'greeting-operator')).trim();
  const kubeconfig = await tokenKubeconfig(kp, token, 'greeting-operator');
  const child = spawn(process.execPath, [join(EXAMPLE, 'main.js'), '--kubeconfig', kubeconfig, '--webhook-port', '0', '--metrics-bind-address', '0', '--dns-latency', '3000'], { cwd: kp.dataDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const records = () => readFile(join(kp.dataDir, 'greeting-records.txt'), 'utf8').catch(() => '');
  try {
    await eventually('the operator to start', () => {
      if (child.exitCode !== null) throw new Error(`the operator exited:\n${out}`);
      return /^greeting-operator started: /m.test(out) || undefined;
    });
    page.record('node examples/greeting-operator/dist/main.js --kubeconfig operator.kubeconfig --webhook-port 0 --metrics-bind-address 0 --dns-latency 3000 &', out.split('\n').filter((l) => /^greeting-operator started/.test(l)).join('\n'));
    page.say('(operator.kubeconfig holds a token of that ServiceAccount, from kubectl create token.)');
    assert.match((await run('kubectl -n demo wait greeting/hello --for=condition=Ready --timeout=60s')).stdout, /condition met/);
    await run('kubectl -n demo get gr -o wide');
    await run('kubectl -n demo get deploy,svc,ingress -l app.kubernetes.io/instance=hello');
    const refs = await run(`kubectl -n demo get deploy hello -o jsonpath='{.metadata.ownerReferences}{"\\n"}'`);
    assert.match(refs.stdout, /"kind":"Greeting","name":"hello"/);
    const conds = await run(`kubectl -n demo get greeting hello -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\\n"}{end}'`);
    assert.match(conds.stdout, /^Ready=True \S+: 2\/2 replicas ready$/m);
    page.say(`The operator records its transitions as Events about the Greeting, through the SDK's
      event recorder (source greeting-controller):`);
    const evs = await eventually('the Ready event', async () => ((await k('-n', 'demo', 'events', '--for', 'greeting/hello')).includes('2/2 replicas ready') || undefined));
    assert.ok(evs);
    const listed = await run('kubectl -n demo events --for greeting/hello');
    for (const line of [/Normal\s+Created\s+Greeting\/hello\s+Created Deployment hello$/m, /Normal\s+DNSRecordWritten\s+Greeting\/hello\s+DNS record hello\.apps\.example\.com written$/m, /Normal\s+Ready\s+Greeting\/hello\s+2\/2 replicas ready$/m]) {
      assert.match(listed.stdout, line);
    }

    page.heading(3, 'A manual scale is undone; a scale of the Greeting is followed');
    await run('kubectl -n demo scale deploy hello --replicas=5');
    await eventually('the Deployment back at 2', async () => (await k('-n', 'demo', 'get', 'deploy', 'hello', '-o', 'jsonpath={.spec.replicas}')) === '2' || undefined);
    assert.match((await run(`kubectl -n demo get deploy hello -o jsonpath='{.spec.replicas}{"\\n"}'`)).stdout, /^2$/m);
    await eventually('the Updated event', async () => ((await k('-n', 'demo', 'events', '--for', 'greeting/hello')).includes('Updated Deployment hello') || undefined));
    const described = await run('kubectl -n demo describe greeting hello', { show: (o) => o.slice(o.indexOf('Events:')) });
    assert.match(described.stdout, /^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message$/m);
    assert.match(described.stdout, /Normal\s+Updated\s+\S+\s+greeting-controller\s+Updated Deployment hello to match the Greeting$/m);
    page.say("(kubectl describe's output from its Events section on.)");
    await run('kubectl -n demo scale greeting hello --replicas=3');
    await eventually('the Greeting Ready again at 3', async () => (await k('-n', 'demo', 'get', 'greeting', 'hello', '-o', 'jsonpath={.status.readyReplicas}')) === '3' || undefined);
    assert.match((await run('kubectl -n demo wait greeting/hello --for=condition=Ready --timeout=60s')).stdout, /condition met/);
    await run(`kubectl -n demo get greeting hello -o jsonpath='{.metadata.generation} {.status.observedGeneration} {.status.readyReplicas}{"\\n"}'`);
    const scale = JSON.parse((await run('kubectl get --raw /apis/demo.example.com/v1/namespaces/demo/greetings/hello/scale')).stdout) as { kind: string; spec: { replicas: number }; status: { replicas: number; selector: string } };
    assert.deepEqual([scale.kind, scale.spec.replicas, scale.status.replicas, scale.status.selector], ['Scale', 3, 3, 'app.kubernetes.io/instance=hello']);

    page.heading(3, 'Deletion through the finalizer');
    page.say(`The operator keeps a record per Greeting in a file (greeting-records.txt) standing for a
      DNS entry the collector cannot see; its finalizer removes the record (3 s of simulated DNS
      latency here) before the Greeting goes, then the collector removes the children.`);
    page.record('cat greeting-records.txt', await records());
    assert.match(await records(), /hello/);
    await run('kubectl -n demo delete greeting hello --wait=false');
    const marked = await run(`kubectl -n demo get greeting hello -o jsonpath='{.metadata.deletionTimestamp} {.metadata.finalizers}{"\\n"}'`, { fails: false });
    assert.match(marked.stdout, /demo\.example\.com\/cleanup/);
    assert.match((await run('kubectl -n demo wait greeting/hello --for=delete --timeout=30s')).stdout, /condition met/);
    page.record('cat greeting-records.txt', await records());
    assert.doesNotMatch(await records(), /hello/);
    await eventually('the children collected', async () => (await k('-n', 'demo', 'get', 'deploy,svc,ingress', '-o', 'name')).trim() === '' || undefined);
    assert.match((await run('kubectl -n demo get deploy,svc,ingress -l app.kubernetes.io/instance=hello')).stderr, /No resources found in demo namespace\./);
    page.say('The finalizer\'s work is in the Events, which outlive the Greeting:');
    const cleanup = await run('kubectl -n demo events --for greeting/hello --types=Normal', { show: (o) => o.split('\n').filter((l, i) => i === 0 || /Deleting|DNSRecordRemoved/.test(l)).join('\n') + '\n' });
    assert.match(cleanup.stdout, /Normal\s+Deleting\s+Greeting\/hello\s+Removing DNS record hello\.apps\.example\.com before the Greeting goes$/m);
    assert.match(cleanup.stdout, /Normal\s+DNSRecordRemoved\s+Greeting\/hello\s+DNS record hello\.apps\.example\.com removed, removing finalizer demo\.example\.com\/cleanup$/m);
    page.say('(The lines of the deletion only, under the header.)');

    page.heading(3, 'With the operator stopped, the Greeting stays Terminating');
    await run('kubectl apply -f -', { input: HELLO });
    await eventually('the record written', async () => /demo\/hello/.test(await records()) || undefined);
    assert.match((await run('kubectl -n demo wait greeting/hello --for=condition=Ready --timeout=60s')).stdout, /condition met/);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    assert.doesNotMatch(out, /AbortError|Reconciler error/, 'a quiet stop');
    page.record('kill %1   # the operator stops', '');
    await run('kubectl -n demo delete greeting hello --wait=false');
    const stuck = await run(`kubectl -n demo get greeting hello -o jsonpath='{.metadata.deletionTimestamp} {.metadata.finalizers}{"\\n"}'`);
    assert.match(stuck.stdout, /Z \["demo\.example\.com\/cleanup"\]/);
    assert.match((await run('kubectl -n demo get deploy -l app.kubernetes.io/instance=hello')).stdout, /^hello\s+\d\/\d/m, 'the child keeps running');
    page.say(`Nobody removes the finalizer: the Greeting stays. Removing it by hand lets the Greeting
      and its children go, and leaves the external record behind, as the course warns:`);
    await run(`kubectl -n demo patch greeting hello --type=merge -p '{"metadata":{"finalizers":null}}'`);
    await eventually('the Greeting gone', async () => !(await k('-n', 'demo', 'get', 'greetings', '-o', 'name')).includes('hello') || undefined);
    assert.match((await run('kubectl -n demo get greeting hello', { fails: true })).stderr, /NotFound/);
    await eventually('the children collected', async () => (await k('-n', 'demo', 'get', 'deploy,svc,ingress', '-o', 'name')).trim() === '' || undefined);
    assert.match((await run('kubectl -n demo get deploy,svc,ingress -l app.kubernetes.io/instance=hello')).stderr, /No resources found in demo namespace\./);
    page.record('cat greeting-records.txt', await records());
    assert.match(await records(), /demo\/hello/);
    page.say(`The chapter ends on the CRDs its lab has gathered; a fresh kplane has only the one
      installed here (the refused demo2 group was never stored):`);
    assert.equal((await run('kubectl get crd -o custom-columns=GROUP:.spec.group --no-headers')).stdout, 'demo.example.com\n');
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}
