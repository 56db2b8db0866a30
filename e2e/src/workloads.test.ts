import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type KubeObject } from '@kplane/api';
import { clientFromKubeconfig, type Client } from '@kplane/client';
import { eventually, kubectl, kubectlOk, removeDir, startControllerManager, startKplane, tempDir, type ControllerManagerProcess, type KplaneProcess } from './harness.js';

// The seed's controller chapter, replayed with the real kubectl: `kplane up --no-controllers`
// (API server, scheduler, simulated kubelet) and a separate `kplane controller-manager` that the
// tests stop and start again. Polling goes through the REST client (a kubectl run costs up to a
// second); what the tests assert is read with kubectl.

const IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.61';
const VITRINE = ['create', 'deployment', 'vitrine', `--image=${IMAGE}`, '--replicas=4', '--', '/agnhost', 'netexec'];

/** The seed's lent.yaml: pods that take 8 s to stop (preStop sleep) within a 30 s grace period. */
const LENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: lent
spec:
  replicas: 2
  selector:
    matchLabels:
      app: lent
  template:
    metadata:
      labels:
        app: lent
    spec:
      terminationGracePeriodSeconds: 30
      containers:
      - name: c
        image: ${IMAGE}
        args: [pause]
        lifecycle:
          preStop:
            sleep: {seconds: 8}
`;

/** A Deployment for the rolling update: 4 replicas, maxSurge 1, maxUnavailable 1, pods Ready 300 ms after they start. */
const WEB = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 4
  selector:
    matchLabels:
      app: web
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 1
  template:
    metadata:
      labels:
        app: web
      annotations:
        kplane.io/ready-after-ms: "300"
    spec:
      containers:
      - name: agnhost
        image: registry.k8s.io/e2e-test-images/agnhost:2.60
        args: [netexec]
`;

const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true, kind: 'Deployment' };
const REPLICASETS = { group: 'apps', version: 'v1', resource: 'replicasets', namespaced: true, kind: 'ReplicaSet' };
const PODS = { group: '', version: 'v1', resource: 'pods', namespaced: true, kind: 'Pod' };
type Resource = typeof PODS;




/** Reads an object, or undefined when it does not exist. */
async function read(c: Client, desc: Resource, name: string, namespace = 'default'): Promise<KubeObject | undefined> {
  try {
    return await c.resource(desc).get(name, { namespace });
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

/** Lists objects of `desc` in the default namespace by label selector. */
async function list(c: Client, desc: Resource, labelSelector: string): Promise<KubeObject[]> {
  return (await c.resource(desc).list({ namespace: 'default', labelSelector })).items;
}

const isReady = (p: KubeObject): boolean =>
  !p.metadata?.deletionTimestamp &&
  ((p.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((x) => x.type === 'Ready' && x.status === 'True');

const controllerUid = (o: KubeObject): string | undefined => o.metadata?.ownerReferences?.find((r) => r.controller)?.uid;
const specReplicas = (o: KubeObject | undefined): number | undefined => (o?.spec as { replicas?: number } | undefined)?.replicas;
const status = (o: KubeObject | undefined) =>
  (o?.status ?? {}) as { observedGeneration?: number; availableReplicas?: number; readyReplicas?: number; updatedReplicas?: number; replicas?: number };
const names = (out: string): string[] => out.split(/\s+/).filter(Boolean).sort();

/**
 * Watches `desc` (label selector) from a fresh list and calls `check` with the whole set after
 * every event; the first failure is kept and reported by `stop()`.
 */
async function watchAll(c: Client, desc: Resource, labelSelector: string, check: (objects: KubeObject[]) => void) {
  const first = await c.resource(desc).list({ namespace: 'default', labelSelector });
  const objects = new Map<string, KubeObject>(first.items.map((o) => [o.metadata!.name!, o]));
  const seen = new Set(objects.keys());
  let events = 0;
  let failure: unknown;
  const abort = new AbortController();
  check([...objects.values()]);
  const done = (async () => {
    for await (const ev of c.resource(desc).watch({ namespace: 'default', labelSelector, resourceVersion: first.metadata?.resourceVersion, signal: abort.signal })) {
      if (ev.type === 'BOOKMARK') continue;
      if (ev.type === 'ERROR') throw new Error(`watch error: ${JSON.stringify(ev.object)}`);
      const name = ev.object.metadata!.name!;
      if (ev.type === 'DELETED') objects.delete(name);
      else objects.set(name, ev.object);
      seen.add(name);
      events++;
      try {
        check([...objects.values()]);
      } catch (err) {
        failure ??= err;
      }
    }
  })().catch((err) => {
    if (!abort.signal.aborted) failure ??= err;
  });
  return {
    seen,
    events: () => events,
    async stop() {
      abort.abort();
      await done;
      if (failure) throw failure;
    },
  };
}

describe('Deployments and ReplicaSets: the seed experiments with the real kubectl', { concurrency: 1 }, () => {
  let kp: KplaneProcess;
  let dir: string;
  let c: Client;
  let cm: ControllerManagerProcess | undefined;
  const k = (...args: string[]) => kubectlOk(kp.kubeconfig, args);

  before(async () => {
    dir = await tempDir();
    kp = await startKplane(dir, ['--no-controllers']);
    c = clientFromKubeconfig(kp.kubeconfig);
    cm = await startControllerManager(kp.kubeconfig, /successfully acquired lease kube-system\/kube-controller-manager as \S+; started .*deployment-controller/);
  });
  after(async () => {
    await cm?.stop();
    (c?.transport as { close?: () => void } | undefined)?.close?.();
    await kp?.stop();
    await removeDir(dir);
  });

  /** Deployment vitrine as the seed prints it. */
  const vitrineLine = () =>
    k('get', 'deploy', 'vitrine', '-o', 'jsonpath=spec.replicas={.spec.replicas} generation={.metadata.generation} observedGeneration={.status.observedGeneration} ready={.status.readyReplicas}');
  const readyPods = async (app: string) => (await list(c, PODS, `app=${app}`)).filter(isReady).length;

  it('the opening experiment: a scale made while the controller manager is stopped is caught up on restart', async () => {
    assert.match(await k('create', 'deployment', 'vitrine', `--image=${IMAGE}`, '--replicas=2', '--', '/agnhost', 'netexec'), /^deployment\.apps\/vitrine created$/m);
    assert.match(await k('scale', 'deploy', 'vitrine', '--replicas=3'), /^deployment\.apps\/vitrine scaled$/m);
    assert.match(await k('rollout', 'status', 'deploy/vitrine', '--timeout=30s'), /deployment "vitrine" successfully rolled out/);
    assert.equal(await vitrineLine(), 'spec.replicas=3 generation=2 observedGeneration=2 ready=3');
    const rs = (await k('get', 'rs', '-l', 'app=vitrine', '-o', 'name')).trim();
    assert.match(rs, /^replicaset\.apps\/vitrine-[a-z0-9]+$/);

    assert.equal(await cm!.stop(), 0, cm!.output());
    cm = undefined;
    assert.equal((await k('-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', '-o', 'jsonpath={.spec.holderIdentity}')), '', 'the Lease was released');
    assert.match(await k('scale', 'deploy', 'vitrine', '--replicas=4'), /^deployment\.apps\/vitrine scaled$/m);
    // The controller manager has exited: no one is left to act on the scale until it restarts.
    assert.equal(await vitrineLine(), 'spec.replicas=4 generation=3 observedGeneration=2 ready=3');
    assert.equal(await k('get', rs, '-o', 'jsonpath={.spec.replicas}'), '3');
    assert.equal(names(await k('get', 'pods', '-l', 'app=vitrine', '-o', 'name')).length, 3);

    const restarted = Date.now();
    cm = await startControllerManager(kp.kubeconfig, /successfully acquired lease kube-system\/kube-controller-manager as \S+; started .*deployment-controller/);
    await eventually('4 Ready pods', async () => (await readyPods('vitrine')) === 4);
    const took = Date.now() - restarted;
    assert.ok(took < 10_000, `4 pods Ready ${took} ms after the restart`);
    assert.match(await k('rollout', 'status', 'deploy/vitrine', '--timeout=30s'), /deployment "vitrine" successfully rolled out/);
    assert.equal(await vitrineLine(), 'spec.replicas=4 generation=3 observedGeneration=3 ready=4');
    assert.equal((await k('get', 'rs', '-l', 'app=vitrine', '-o', 'name')).trim(), rs, 'the same ReplicaSet, scaled');
    assert.equal(await k('get', rs, '-o', 'jsonpath={.spec.replicas}'), '4');
    const table = await k('get', 'pods', '-l', 'app=vitrine', '--no-headers');
    assert.equal(table.trim().split('\n').filter((l) => /^vitrine-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s/.test(l)).length, 4, table);
  });

  it('the orphan experiment: a ReplicaSet deleted with --cascade=orphan comes back under a new uid and adopts the same pods', async () => {
    const rs = (await k('get', 'rs', '-l', 'app=vitrine', '-o', 'name')).trim();
    const oldUid = await k('get', rs, '-o', 'jsonpath={.metadata.uid}');
    const podColumns = ['get', 'pods', '-l', 'app=vitrine', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.metadata.creationTimestamp} {.metadata.ownerReferences[0].uid}{"\\n"}{end}'];
    const before = (await k(...podColumns)).trim().split('\n').sort();
    assert.equal(before.length, 4);
    for (const line of before) assert.ok(line.endsWith(` ${oldUid}`), line);

    assert.match(await k('delete', rs, '--cascade=orphan'), new RegExp(`^replicaset\\.apps "${rs.slice('replicaset.apps/'.length)}" deleted$`, 'm'));
    const rsName = rs.slice('replicaset.apps/'.length);
    const newRs = await eventually('a new ReplicaSet of the same name that owns the 4 pods', async () => {
      const now = await read(c, REPLICASETS, rsName);
      if (!now || now.metadata!.uid === oldUid) return undefined;
      const pods = await list(c, PODS, 'app=vitrine');
      return pods.length === 4 && pods.every((p) => controllerUid(p) === now.metadata!.uid) && now;
    });
    const newUid = newRs.metadata!.uid!;
    assert.notEqual(newUid, oldUid);
    assert.equal((await k('get', 'rs', '-l', 'app=vitrine', '-o', 'name')).trim(), rs, 'one ReplicaSet, same name');
    assert.equal(await k('get', rs, '-o', 'jsonpath={.metadata.uid}'), newUid);
    const after = (await k(...podColumns)).trim().split('\n').sort();
    assert.deepEqual(after, before.map((line) => line.replace(oldUid, newUid)), 'same pods (names, creation times), new owner');
    const refs = await k('get', 'pods', '-l', 'app=vitrine', '-o', 'jsonpath={range .items[*]}{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller}/{.metadata.ownerReferences[0].blockOwnerDeletion}{"\\n"}{end}');
    assert.deepEqual(refs.trim().split('\n'), Array(4).fill(`ReplicaSet/${rsName}/true/true`));
    assert.match(await k('rollout', 'status', 'deploy/vitrine', '--timeout=30s'), /successfully rolled out/);
    assert.equal(status(await read(c, DEPLOYMENTS, 'vitrine')).availableReplicas, 4);
  });

  it('exercise 2: a Deployment deleted with --cascade=orphan and created again adopts its ReplicaSet; no pod is created', async () => {
    const rs = (await k('get', 'rs', '-l', 'app=vitrine', '-o', 'name')).trim();
    const rsName = rs.slice('replicaset.apps/'.length);
    const rsUid = await k('get', rs, '-o', 'jsonpath={.metadata.uid}');
    const oldDeployUid = await k('get', 'deploy', 'vitrine', '-o', 'jsonpath={.metadata.uid}');
    const pods = names(await k('get', 'pods', '-l', 'app=vitrine', '-o', 'name'));
    assert.equal(pods.length, 4);

    assert.match(await k('delete', 'deploy', 'vitrine', '--cascade=orphan'), /^deployment\.apps "vitrine" deleted$/m);
    await eventually('the Deployment gone and its ReplicaSet orphaned', async () => {
      const d = await read(c, DEPLOYMENTS, 'vitrine');
      const r = await read(c, REPLICASETS, rsName);
      return !d && r && (r.metadata!.ownerReferences ?? []).length === 0;
    });
    assert.match((await kubectl(kp.kubeconfig, ['get', 'deploy', 'vitrine'])).stderr, /deployments\.apps "vitrine" not found/);
    // No owner left. Kubernetes omits the emptied list; kplane currently keeps
    // `ownerReferences: []`. Both spellings mean "no owner" and are accepted.
    assert.match(await k('get', rs, '-o', 'jsonpath={.metadata.ownerReferences}'), /^(\[\])?$/);
    assert.match(await k('get', rs, '--no-headers'), new RegExp(`^${rsName}\\s+4\\s+4\\s+4\\s`));
    // The same pods again after the Deployment adopts the ReplicaSet (below) cover the whole window.
    assert.deepEqual(names(await k('get', 'pods', '-l', 'app=vitrine', '-o', 'name')), pods, 'the orphaned ReplicaSet keeps its pods');

    assert.match(await k(...VITRINE), /^deployment\.apps\/vitrine created$/m);
    const deployUid = await k('get', 'deploy', 'vitrine', '-o', 'jsonpath={.metadata.uid}');
    assert.notEqual(deployUid, oldDeployUid);
    await eventually('the ReplicaSet adopted and the Deployment status written', async () => {
      const r = await read(c, REPLICASETS, rsName);
      const d = await read(c, DEPLOYMENTS, 'vitrine');
      return r && controllerUid(r) === deployUid && status(d).observedGeneration === 1 && status(d).availableReplicas === 4;
    });
    assert.match(await k('rollout', 'status', 'deploy/vitrine', '--timeout=30s'), /deployment "vitrine" successfully rolled out/);
    // observedGeneration 1 is written by the sync that adopted the ReplicaSet (or would have made a new one).
    assert.equal((await k('get', 'rs', '-l', 'app=vitrine', '-o', 'name')).trim(), rs, 'the same ReplicaSet (same template hash), no other');
    assert.equal(await k('get', rs, '-o', 'jsonpath={.metadata.uid}'), rsUid, 'adopted, not recreated');
    assert.equal(
      await k('get', rs, '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].uid}/{.metadata.ownerReferences[0].controller}'),
      `Deployment/vitrine/${deployUid}/true`,
    );
    assert.deepEqual(names(await k('get', 'pods', '-l', 'app=vitrine', '-o', 'name')), pods, 'no pod created, none deleted');
    assert.equal(await k('get', 'deploy', 'vitrine', '-o', 'jsonpath={.status.replicas}/{.status.updatedReplicas}/{.status.availableReplicas}'), '4/4/4');
  });

  it('foreground deletion of lent: owner and ReplicaSet wait with foregroundDeletion until the pods finished their 8 s preStop', async () => {
    assert.match(await kubectlOk(kp.kubeconfig, ['apply', '-f', '-'], LENT), /^deployment\.apps\/lent created$/m);
    assert.match(await k('rollout', 'status', 'deploy/lent', '--timeout=30s'), /deployment "lent" successfully rolled out/);
    await eventually('2 Ready lent pods', async () => (await readyPods('lent')) === 2);

    const t0 = Date.now();
    assert.match(await k('delete', 'deploy', 'lent', '--cascade=foreground', '--wait=false'), /^deployment\.apps "lent" deleted$/m);
    await eventually('the ReplicaSet and both pods deleting', async () => {
      const rss = await list(c, REPLICASETS, 'app=lent');
      const pods = await list(c, PODS, 'app=lent');
      return rss.length === 1 && rss[0]!.metadata!.finalizers?.includes('foregroundDeletion') && pods.length === 2 && pods.every((p) => p.metadata!.deletionTimestamp);
    }, 5_000);
    const stamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
    const deploy = (await k('get', 'deploy', 'lent', '-o', 'jsonpath={.metadata.deletionTimestamp} {.metadata.finalizers}')).split(' ');
    assert.match(deploy[0]!, stamp);
    assert.equal(deploy[1], '["foregroundDeletion"]');
    const rs = (await k('get', 'rs', '-l', 'app=lent', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.metadata.deletionTimestamp} {.metadata.finalizers}{"\\n"}{end}')).trim().split(' ');
    assert.match(rs[0]!, /^lent-[a-z0-9]+$/);
    assert.match(rs[1]!, stamp);
    assert.equal(rs[2], '["foregroundDeletion"]');
    const podTable = await k('get', 'pods', '-l', 'app=lent');
    assert.equal(podTable.trim().split('\n').filter((l) => /^lent-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Terminating\s+0\s/.test(l)).length, 2, podTable);
    assert.ok(Date.now() - t0 < 7_000, `the checks above took ${Date.now() - t0} ms`);

    await eventually('the Deployment to disappear', async () => !(await read(c, DEPLOYMENTS, 'lent')), 25_000);
    const took = Date.now() - t0;
    assert.ok(took >= 7_000 && took <= 20_000, `the Deployment went ${took} ms after the delete (expected about 8-11 s)`);
    assert.match((await kubectl(kp.kubeconfig, ['get', 'deploy', 'lent'])).stderr, /deployments\.apps "lent" not found/);
    assert.equal(await k('get', 'rs,pods', '-l', 'app=lent', '-o', 'name'), '', 'the ReplicaSet and the pods went first');
  });

  it('a rolling update stays within maxUnavailable and maxSurge; rollout history, undo and restart', async () => {
    assert.match(await kubectlOk(kp.kubeconfig, ['apply', '-f', '-'], WEB), /^deployment\.apps\/web created$/m);
    assert.match(await k('rollout', 'status', 'deploy/web', '--timeout=30s'), /deployment "web" successfully rolled out/);
    await eventually('4 Ready web pods', async () => (await readyPods('web')) === 4);
    const firstRs = (await k('get', 'rs', '-l', 'app=web', '-o', 'name')).trim();
    assert.match(firstRs, /^replicaset\.apps\/web-[a-z0-9]+$/);

    // replicas 4, maxUnavailable 1, maxSurge 1: at every observed point at least 3 pods are
    // Ready (and not being deleted), and the ReplicaSets ask for at most 5 pods together.
    let minAvailable = Infinity;
    let maxDesired = 0;
    const pods = await watchAll(c, PODS, 'app=web', (all) => {
      const available = all.filter(isReady).length;
      minAvailable = Math.min(minAvailable, available);
      assert.ok(available >= 3, `only ${available} pods available: ${all.map((p) => `${p.metadata!.name}${isReady(p) ? '' : '(not available)'}`).join(' ')}`);
    });
    const sets = await watchAll(c, REPLICASETS, 'app=web', (all) => {
      const desired = all.reduce((n, r) => n + (specReplicas(r) ?? 0), 0);
      maxDesired = Math.max(maxDesired, desired);
      assert.ok(desired <= 5, `the ReplicaSets ask for ${desired} pods: ${all.map((r) => `${r.metadata!.name}=${specReplicas(r)}`).join(' ')}`);
    });
    const podImages = async () => k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image}{"\\n"}{end}');
    const activeRs = async () => {
      const out = await k('get', 'rs', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.replicas}{"\\n"}{end}');
      const active = out.trim().split('\n').filter((l) => !l.endsWith('=0'));
      assert.equal(active.length, 1, out);
      return `replicaset.apps/${active[0]!.replace(/=4$/, '')}`;
    };
    try {
      assert.match(await k('set', 'image', 'deploy/web', 'agnhost=registry.k8s.io/e2e-test-images/agnhost:2.61'), /^deployment\.apps\/web image updated$/m);
      assert.match(await k('rollout', 'status', 'deploy/web', '--timeout=30s'), /deployment "web" successfully rolled out/);
      await eventually('4 Ready web pods', async () => (await readyPods('web')) === 4 && (await list(c, PODS, 'app=web')).length === 4);
      assert.equal(await podImages(), `${IMAGE}\n`.repeat(4));
      const secondRs = await activeRs();
      assert.notEqual(secondRs, firstRs);
      assert.equal(await k('get', firstRs, '-o', 'jsonpath={.spec.replicas}/{.metadata.annotations.deployment\\.kubernetes\\.io/revision}'), '0/1');
      assert.equal(await k('get', secondRs, '-o', 'jsonpath={.spec.replicas}/{.metadata.annotations.deployment\\.kubernetes\\.io/revision}'), '4/2');
      assert.match(await k('rollout', 'history', 'deploy/web'), /^deployment\.apps\/web \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n\n$/);
      const rev2 = await k('rollout', 'history', 'deploy/web', '--revision=2');
      assert.match(rev2, /^deployment\.apps\/web with revision #2\n/);
      assert.match(rev2, /Image:\s+registry\.k8s\.io\/e2e-test-images\/agnhost:2\.61\n/);

      assert.match(await k('rollout', 'undo', 'deploy/web'), /^deployment\.apps\/web rolled back$/m);
      assert.match(await k('rollout', 'status', 'deploy/web', '--timeout=30s'), /deployment "web" successfully rolled out/);
      await eventually('4 Ready web pods', async () => (await readyPods('web')) === 4 && (await list(c, PODS, 'app=web')).length === 4);
      assert.equal(await k('get', 'deploy', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'), 'registry.k8s.io/e2e-test-images/agnhost:2.60');
      assert.equal(await podImages(), 'registry.k8s.io/e2e-test-images/agnhost:2.60\n'.repeat(4));
      assert.equal(await activeRs(), firstRs, 'undo scales the first ReplicaSet up again');
      assert.equal(await k('get', firstRs, '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}'), '3');
      assert.match(await k('rollout', 'history', 'deploy/web'), /^deployment\.apps\/web \nREVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>\n\n$/);

      assert.match(await k('rollout', 'restart', 'deploy/web'), /^deployment\.apps\/web restarted$/m);
      assert.match(await k('rollout', 'status', 'deploy/web', '--timeout=30s'), /deployment "web" successfully rolled out/);
      await eventually('4 Ready web pods', async () => (await readyPods('web')) === 4 && (await list(c, PODS, 'app=web')).length === 4);
      const thirdRs = await activeRs();
      assert.ok(thirdRs !== firstRs && thirdRs !== secondRs, `a new ReplicaSet: ${thirdRs}`);
      assert.match(await k('get', thirdRs, '-o', 'jsonpath={.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
      assert.equal(await podImages(), 'registry.k8s.io/e2e-test-images/agnhost:2.60\n'.repeat(4));
      assert.match(await k('rollout', 'history', 'deploy/web'), /^deployment\.apps\/web \nREVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>\n4\s+<none>\n\n$/);
    } finally {
      await Promise.all([pods.stop(), sets.stop()]);
    }
    // 4 pods at first, then 4 new ones for each of the three rollouts, and no more.
    assert.equal(pods.seen.size, 16, `pods seen: ${[...pods.seen].join(' ')}`);
    assert.ok(pods.events() > 16 && sets.events() > 3, 'the watches saw the rollouts');
    assert.ok(minAvailable >= 3 && maxDesired <= 5, `min available ${minAvailable}, max desired ${maxDesired}`);
  });
});
