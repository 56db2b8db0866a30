import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type KubeObject } from '@kplane/api';
import type { Client, ResourceDescriptor } from '@kplane/client';
import { ConfigMaps, Deployments, Pods, ReplicaSets } from '@kplane/runtime';
import { eventually, kubectl, kubectlOk, startControllerManager, useKplane, type ControllerManagerProcess } from './harness.js';

// The garbage collector seen from the real kubectl: the seed's exercise 3 (an owner in another
// namespace), kubectl --cascade=foreground|background|orphan over two levels of dependents, and
// the collector finishing, after a restart, deletions made while it was stopped.
//
// Waiting goes through the REST client (cheaper than a kubectl run); what the tests assert is
// read with kubectl.

const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.61';
const HOLD = 'cours.exemple/retenue';
const REMOVE_FINALIZERS = '[{"op":"remove","path":"/metadata/finalizers"}]';
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;


/** Reads an object, or undefined when it does not exist. */
async function read(c: Client, desc: ResourceDescriptor, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await c.resource(desc).get(name, { namespace });
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

/** True once none of the named objects exists. */
async function allGone(c: Client, desc: ResourceDescriptor, namespace: string, names: string[]): Promise<boolean> {
  for (const name of names) if ((await read(c, desc, namespace, name)) !== undefined) return false;
  return true;
}

/** An owner reference to a ConfigMap. */
interface ConfigMapOwner {
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

/** A ConfigMap manifest (JSON, which kubectl apply reads) with owner references and finalizers. */
function configMap(name: string, owners: ConfigMapOwner[] = [], finalizers: string[] = []): string {
  const metadata: Record<string, unknown> = { name };
  if (owners.length > 0) metadata.ownerReferences = owners.map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...o }));
  if (finalizers.length > 0) metadata.finalizers = finalizers;
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { a: '1' } });
}

/** A Deployment whose pods carry a finalizer nobody removes, so they stay once deleted. */
function heldDeployment(name: string, replicas: number): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, finalizers: [HOLD] },
        spec: { containers: [{ name: 'c', image: AGNHOST, args: ['pause'] }] },
      },
    },
  });
}

/** The parsed ownerReferences of an object read with kubectl (undefined when absent). */
async function ownerRefsOf(kubeconfig: string, namespace: string, ref: string): Promise<{ name: string; uid: string }[] | undefined> {
  const obj = JSON.parse(await kubectlOk(kubeconfig, ['-n', namespace, 'get', ref, '-o', 'json'])) as KubeObject;
  return obj.metadata?.ownerReferences as { name: string; uid: string }[] | undefined;
}

/**
 * Reads objects with one `kubectl get <args> -o json` and describes each as `Kind/name` →
 * `"deleting <finalizers>"` (its deletionTimestamp checked to be RFC 3339) or `"live <finalizers>"`.
 * The namespace's kube-root-ca.crt (the root CA certificate publisher's) is left out.
 */
async function deletionStates(kubeconfig: string, namespace: string, args: string[]): Promise<Record<string, string>> {
  const got = JSON.parse(await kubectlOk(kubeconfig, ['-n', namespace, 'get', ...args, '-o', 'json'])) as KubeObject & { items?: KubeObject[] };
  const states: Record<string, string> = {};
  for (const o of got.items ?? [got]) {
    if (o.kind === 'ConfigMap' && o.metadata?.name === 'kube-root-ca.crt') continue;
    const ts = o.metadata?.deletionTimestamp as string | undefined;
    const state = ts === undefined ? 'live' : RFC3339.test(ts) ? 'deleting' : `deletionTimestamp ${ts}`;
    states[`${o.kind}/${o.metadata?.name}`] = `${state} ${JSON.stringify(o.metadata?.finalizers ?? [])}`;
  }
  return states;
}

/**
 * Creates, in `namespace`, the ConfigMaps racine ← milieu ← feuille (names with `prefix` before
 * them), each owned by the previous one with blockOwnerDeletion: true; `holdLeaf` gives feuille a
 * finalizer nobody removes. Returns their uids.
 */
async function createChain(kubeconfig: string, namespace: string, options: { prefix?: string; holdLeaf?: boolean } = {}): Promise<{ racine: string; milieu: string; feuille: string }> {
  const p = options.prefix ?? '';
  // apply prints the uid of what it created.
  const apply = (manifest: string) => kubectlOk(kubeconfig, ['-n', namespace, 'apply', '-f', '-', '-o', 'jsonpath={.metadata.uid}'], manifest);
  const racine = await apply(configMap(`${p}racine`));
  const milieu = await apply(configMap(`${p}milieu`, [{ name: `${p}racine`, uid: racine, blockOwnerDeletion: true }]));
  const feuille = await apply(configMap(`${p}feuille`, [{ name: `${p}milieu`, uid: milieu, blockOwnerDeletion: true }], options.holdLeaf ? [HOLD] : []));
  for (const uid of [racine, milieu, feuille]) assert.match(uid, /^[0-9a-f-]{36}$/);
  return { racine, milieu, feuille };
}


const CHAIN = ['racine', 'milieu', 'feuille'];

describe('garbage collector with the real kubectl', { concurrency: true }, () => {
  describe('controllers inside kplane up', { concurrency: 1 }, () => {
    const suite = useKplane([]);
    const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);

    it('exercise 3: an owner in another namespace → the dependent is deleted with an OwnerRefInvalidNamespace event', async () => {
      await k('create', 'namespace', 'ch36');
      await k('create', 'namespace', 'ch36-autre');
      await k('-n', 'ch36-autre', 'create', 'configmap', 'proprio', '--from-literal=a=1');
      const u = await k('-n', 'ch36-autre', 'get', 'cm', 'proprio', '-o', 'jsonpath={.metadata.uid}');
      assert.match(u, /^[0-9a-f-]{36}$/);
      const started = Date.now();
      assert.match(await kubectlOk(suite.kp.kubeconfig, ['-n', 'ch36', 'apply', '-f', '-'], configMap('dependant', [{ name: 'proprio', uid: u }])), /configmap\/dependant created/);
      await eventually('dependant to be deleted', async () => (await read(suite.client, ConfigMaps, 'ch36', 'dependant')) === undefined);
      assert.ok(Date.now() - started < 8_000, `deleted within seconds (${Date.now() - started} ms)`);
      const gone = await kubectl(suite.kp.kubeconfig, ['-n', 'ch36', 'get', 'cm', 'dependant']);
      assert.notEqual(gone.code, 0);
      assert.match(gone.stderr, /Error from server \(NotFound\): configmaps "dependant" not found/);

      const events = () => k('-n', 'ch36', 'get', 'events', '--field-selector', 'involvedObject.name=dependant', '-o', 'custom-columns=RAISON:.reason,MESSAGE:.message', '--no-headers');
      const listed = await eventually('the event', async () => {
        const out = await events();
        return out.trim() !== '' && out;
      }, 10_000);
      assert.equal(listed, `OwnerRefInvalidNamespace   ownerRef [v1/ConfigMap, namespace: ch36, name: proprio, uid: ${u}] does not exist in namespace "ch36"\n`);
      const type = await k('-n', 'ch36', 'get', 'events', '--field-selector', 'involvedObject.name=dependant', '-o', 'jsonpath={.items[*].type}/{.items[*].involvedObject.kind}');
      assert.equal(type, 'Warning/ConfigMap');
      // The owner itself, in its own namespace, is untouched.
      assert.equal(await k('-n', 'ch36-autre', 'get', 'cm', 'proprio', '-o', 'jsonpath={.metadata.uid}'), u);
    });

    it('--cascade=foreground: the owner shows foregroundDeletion while a held grandchild remains, then all go', async () => {
      await k('create', 'namespace', 'premier-plan');
      const n = ['-n', 'premier-plan'];
      await createChain(suite.kp.kubeconfig, 'premier-plan', { holdLeaf: true });
      assert.match(await k(...n, 'delete', 'cm', 'racine', '--cascade=foreground', '--wait=false'), /configmap "racine" deleted/);

      // The collector deletes milieu in the foreground too (it has a blocking dependent), then feuille.
      await eventually('feuille to be deleted', async () => (await read(suite.client, ConfigMaps, 'premier-plan', 'feuille'))?.metadata?.deletionTimestamp);
      assert.deepEqual(await deletionStates(suite.kp.kubeconfig, 'premier-plan', ['cm', ...CHAIN]), {
        'ConfigMap/racine': 'deleting ["foregroundDeletion"]',
        'ConfigMap/milieu': 'deleting ["foregroundDeletion"]',
        'ConfigMap/feuille': `deleting ["${HOLD}"]`,
      });
      assert.match(await k(...n, 'get', 'cm', 'racine'), /^racine\s+1\s+\S+$/m, 'the owner stays visible');

      assert.match(await k(...n, 'patch', 'cm', 'feuille', '--type=json', '-p', REMOVE_FINALIZERS), /configmap\/feuille patched/);
      await eventually('the whole chain to go', () => allGone(suite.client, ConfigMaps, 'premier-plan', CHAIN), 10_000);
      assert.equal(await k(...n, 'get', 'cm', '--field-selector', 'metadata.name!=kube-root-ca.crt', '-o', 'name'), '');
    });

    it('--cascade=foreground on a Deployment: the ReplicaSet waits on its held pods, the Deployment on the ReplicaSet', async () => {
      await k('create', 'namespace', 'lent');
      const n = ['-n', 'lent'];
      await kubectlOk(suite.kp.kubeconfig, [...n, 'apply', '-f', '-'], heldDeployment('lent', 2));
      await k(...n, 'rollout', 'status', 'deploy/lent', '--timeout=30s');
      const rs = (await k(...n, 'get', 'rs', '-l', 'app=lent', '-o', 'name')).trim();
      assert.match(rs, /^replicaset\.apps\/lent-[a-z0-9]+$/);

      assert.match(await k(...n, 'delete', 'deploy', 'lent', '--cascade=foreground', '--wait=false'), /deployment\.apps "lent" deleted/);
      await eventually('both pods to be deleted', async () => {
        const pods = (await suite.client.resource(Pods).list({ namespace: 'lent', labelSelector: 'app=lent' })).items;
        return pods.length === 2 && pods.every((p) => p.metadata?.deletionTimestamp);
      });
      const pods = (await k(...n, 'get', 'pods', '-l', 'app=lent', '-o', 'name')).trim().split('\n');
      assert.equal(pods.length, 2);
      const expected: Record<string, string> = {
        'Deployment/lent': 'deleting ["foregroundDeletion"]',
        [`ReplicaSet/${rs.slice('replicaset.apps/'.length)}`]: 'deleting ["foregroundDeletion"]',
      };
      for (const p of pods) expected[`Pod/${p.slice('pod/'.length)}`] = `deleting ["${HOLD}"]`;
      assert.deepEqual(await deletionStates(suite.kp.kubeconfig, 'lent', ['deploy,rs,pods']), expected);
      for (const p of pods) await k(...n, 'patch', p, '--type=json', '-p', REMOVE_FINALIZERS);
      await eventually('the Deployment to go', async () => (await read(suite.client, Deployments, 'lent', 'lent')) === undefined, 15_000);
      assert.match((await kubectl(suite.kp.kubeconfig, [...n, 'get', 'deploy', 'lent'])).stderr, /deployments\.apps "lent" not found/);
      assert.equal(await k(...n, 'get', 'rs,pods', '-o', 'name'), '');
    });

    it('--cascade=background deletes the owner at once, then the collector deletes both levels of dependents', async () => {
      await k('create', 'namespace', 'arriere-plan');
      const n = ['-n', 'arriere-plan'];
      await createChain(suite.kp.kubeconfig, 'arriere-plan');
      assert.match(await k(...n, 'delete', 'cm', 'racine', '--cascade=background'), /configmap "racine" deleted/);
      await eventually('milieu and feuille to go', () => allGone(suite.client, ConfigMaps, 'arriere-plan', CHAIN), 10_000);
      assert.equal(await k(...n, 'get', 'cm', '--field-selector', 'metadata.name!=kube-root-ca.crt', '-o', 'name'), '');

      await k(...n, 'create', 'deployment', 'vitrine', `--image=${AGNHOST}`, '--replicas=2', '--', '/agnhost', 'netexec');
      await k(...n, 'rollout', 'status', 'deploy/vitrine', '--timeout=30s');
      assert.equal((await k(...n, 'get', 'rs,pods', '-o', 'name')).trim().split('\n').length, 3);
      assert.match(await k(...n, 'delete', 'deploy', 'vitrine', '--cascade=background'), /deployment\.apps "vitrine" deleted/);
      await eventually('the ReplicaSet and its pods to go', async () => {
        const left = (await suite.client.resource(ReplicaSets).list({ namespace: 'arriere-plan' })).items.length + (await suite.client.resource(Pods).list({ namespace: 'arriere-plan' })).items.length;
        return left === 0;
      }, 15_000);
      assert.match((await kubectl(suite.kp.kubeconfig, [...n, 'get', 'deploy,rs,pods'])).stderr, /No resources found in arriere-plan namespace\./);
    });

    it('--cascade=orphan leaves the dependents without their owner reference (one level only)', async () => {
      await k('create', 'namespace', 'orphelins');
      const n = ['-n', 'orphelins'];
      const uids = await createChain(suite.kp.kubeconfig, 'orphelins');
      // kubectl waits (--wait defaults to true) until the owner is gone, i.e. the orphan finalizer was handled.
      assert.match(await k(...n, 'delete', 'cm', 'racine', '--cascade=orphan'), /configmap "racine" deleted/);
      assert.match((await kubectl(suite.kp.kubeconfig, [...n, 'get', 'cm', 'racine'])).stderr, /configmaps "racine" not found/);
      assert.deepEqual(await ownerRefsOf(suite.kp.kubeconfig, 'orphelins', 'cm/milieu') ?? [], [], 'milieu has no owner left');
      assert.equal(await k(...n, 'get', 'cm', 'milieu', '-o', 'jsonpath={.metadata.uid}|{.metadata.deletionTimestamp}'), `${uids.milieu}|`);
      assert.equal(await k(...n, 'get', 'cm', 'feuille', '-o', 'jsonpath={.metadata.ownerReferences[*].uid}'), uids.milieu);

      await k(...n, 'create', 'deployment', 'vitrine', `--image=${AGNHOST}`, '--replicas=2', '--', '/agnhost', 'netexec');
      await k(...n, 'rollout', 'status', 'deploy/vitrine', '--timeout=30s');
      const rs = (await k(...n, 'get', 'rs', '-l', 'app=vitrine', '-o', 'name')).trim();
      const rsUid = await k(...n, 'get', rs, '-o', 'jsonpath={.metadata.uid}');
      const podsBefore = (await k(...n, 'get', 'pods', '-l', 'app=vitrine', '-o', 'name')).trim().split('\n').sort();
      assert.equal(podsBefore.length, 2);
      assert.match(await k(...n, 'delete', 'deploy', 'vitrine', '--cascade=orphan'), /deployment\.apps "vitrine" deleted/);
      assert.deepEqual(await ownerRefsOf(suite.kp.kubeconfig, 'orphelins', rs) ?? [], [], 'the ReplicaSet has no owner left');
      assert.equal(await k(...n, 'get', rs, '-o', 'jsonpath={.metadata.uid}|{.metadata.deletionTimestamp}|{.spec.replicas}'), `${rsUid}||2`);
      // The pods keep their ReplicaSet, which keeps running them.
      assert.deepEqual((await k(...n, 'get', 'pods', '-l', 'app=vitrine', '-o', 'name')).trim().split('\n').sort(), podsBefore);
      for (const p of podsBefore) assert.equal(await k(...n, 'get', p, '-o', 'jsonpath={.metadata.ownerReferences[*].uid}|{.metadata.deletionTimestamp}'), `${rsUid}|`);
    });

    // Reads what the test above left in "orphelins".
    it('--cascade=orphan: the orphaned dependents have no ownerReferences field at all, as Kubernetes serializes them', async () => {
      const columns = await k('-n', 'orphelins', 'get', 'cm,rs', '-o', 'custom-columns=NOM:.metadata.name,PROPRIETAIRES:.metadata.ownerReferences', '--no-headers');
      assert.match(columns, /^milieu\s+<none>$/m);
      assert.match(columns, /^vitrine-[a-z0-9]+\s+<none>$/m);
      assert.equal(await k('-n', 'orphelins', 'get', 'cm', 'milieu', '-o', 'jsonpath={.metadata.ownerReferences}'), '');
    });
  });

  describe('level-driven: a separate kplane controller-manager, stopped and started again', { concurrency: 1 }, () => {
    let cm: ControllerManagerProcess | undefined;
    after(async () => {
      await cm?.stop();
    });
    const suite = useKplane(['--no-controllers', '--nodes', '0']);
    const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
    const n = ['-n', 'niveau'];
    const uids: Record<string, { racine: string; milieu: string; feuille: string }> = {};


    it('with the controller manager running, owned objects whose owners exist stay', async () => {
      cm = await startControllerManager(suite.kp.kubeconfig, /successfully acquired lease kube-system\/kube-controller-manager as \S+; started [^\n]*garbage-collector-controller/);
      await k('create', 'namespace', 'niveau');
      // One chain per propagation policy: bg-racine ← bg-milieu ← bg-feuille, fg-…, or-….
      await Promise.all(['bg', 'fg', 'or'].map(async (prefix) => (uids[prefix] = await createChain(suite.kp.kubeconfig, 'niveau', { prefix: `${prefix}-` }))));
      // A barrier: a ConfigMap whose owner never existed, made after the chains, is collected.
      const missing = { apiVersion: 'v1', kind: 'ConfigMap', name: 'absent', uid: '00000000-0000-0000-0000-000000000000' };
      await kubectlOk(suite.kp.kubeconfig, [...n, 'create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'temoin', ownerReferences: [missing] } }));
      await eventually('the ConfigMap of a missing owner collected', async () => (await kubectl(suite.kp.kubeconfig, [...n, 'get', 'cm', 'temoin'])).code !== 0);
      assert.equal((await k(...n, 'get', 'cm', '--field-selector', 'metadata.name!=kube-root-ca.crt', '-o', 'name')).trim().split('\n').length, 9);
    });

    it('stopped: deletions only set state (nothing collects, nothing finalizes)', async () => {
      assert.equal(await cm!.stop(), 0, cm!.output());
      cm = undefined;
      assert.match(await k(...n, 'delete', 'cm', 'bg-racine', '--cascade=background'), /configmap "bg-racine" deleted/);
      assert.match(await k(...n, 'delete', 'cm', 'fg-racine', '--cascade=foreground', '--wait=false'), /configmap "fg-racine" deleted/);
      assert.match(await k(...n, 'delete', 'cm', 'or-racine', '--cascade=orphan', '--wait=false'), /configmap "or-racine" deleted/);
      // Nobody is running (the server has no controllers, the controller-manager exited): what
      // the deletes left is what the next test starts from.
      assert.match((await kubectl(suite.kp.kubeconfig, [...n, 'get', 'cm', 'bg-racine'])).stderr, /configmaps "bg-racine" not found/);
      assert.equal(await k(...n, 'get', 'cm', 'bg-milieu', '-o', 'jsonpath={.metadata.ownerReferences[*].uid}|{.metadata.deletionTimestamp}'), `${uids.bg!.racine}|`);
      assert.deepEqual(await deletionStates(suite.kp.kubeconfig, 'niveau', ['cm']), {
        'ConfigMap/bg-milieu': 'live []',
        'ConfigMap/bg-feuille': 'live []',
        'ConfigMap/fg-racine': 'deleting ["foregroundDeletion"]',
        'ConfigMap/fg-milieu': 'live []',
        'ConfigMap/fg-feuille': 'live []',
        'ConfigMap/or-racine': 'deleting ["orphan"]',
        'ConfigMap/or-milieu': 'live []',
        'ConfigMap/or-feuille': 'live []',
      });
      assert.equal(await k(...n, 'get', 'cm', 'or-milieu', '-o', 'jsonpath={.metadata.ownerReferences[*].uid}'), uids.or!.racine);
    });

    it('started again: the collector finishes the work from the state it finds', async () => {
      cm = await startControllerManager(suite.kp.kubeconfig, /successfully acquired lease kube-system\/kube-controller-manager as \S+; started [^\n]*garbage-collector-controller/);
      await eventually('the background and foreground chains to go', async () =>
        (await allGone(suite.client, ConfigMaps, 'niveau', ['bg-milieu', 'bg-feuille'])) && (await allGone(suite.client, ConfigMaps, 'niveau', ['fg-racine', 'fg-milieu', 'fg-feuille'])));
      await eventually('the orphaning owner to go', async () => (await read(suite.client, ConfigMaps, 'niveau', 'or-racine')) === undefined);
      assert.equal(await k(...n, 'get', 'cm', '--field-selector', 'metadata.name!=kube-root-ca.crt', '-o', 'name'), 'configmap/or-feuille\nconfigmap/or-milieu\n');
      assert.deepEqual(await ownerRefsOf(suite.kp.kubeconfig, 'niveau', 'cm/or-milieu') ?? [], []);
      assert.equal(await k(...n, 'get', 'cm', 'or-feuille', '-o', 'jsonpath={.metadata.ownerReferences[*].uid}'), uids.or!.milieu);
    });
  });
});
