import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type KubeObject } from '@kplane/api';
import type { Client } from '@kplane/client';
import { eventually, httpsGet, kubectl, kubectlOk, startControllerManager, useKplane, type ControllerManagerProcess } from './harness.js';
import { GARDE_CONFIGMAP } from './harness.js';

const GARDE = GARDE_CONFIGMAP;
const CONTENT_REMAINING = 'Some resources are remaining: configmaps. has 1 resource instances';
const FINALIZERS_REMAINING = 'Some content in the namespace has finalizers remaining: cours.exemple/archivage in 1 resource instances';
const TRUE_CONDITIONS = '{range .status.conditions[?(@.status=="True")]}{.type} : {.message}{"\\n"}{end}';



// Polling goes through the REST client (a kubectl run costs about a second); what the test
// asserts is read with kubectl.
const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true, kind: 'Lease' };
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces', namespaced: false, kind: 'Namespace' };

/** Reads an object, or undefined when it does not exist. */
async function read(c: Client, desc: typeof NAMESPACES, name: string, namespace?: string): Promise<KubeObject | undefined> {
  try {
    return await c.resource(desc).get(name, { namespace });
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

const leaseHolder = async (c: Client): Promise<string | undefined> =>
  ((await read(c, LEASES, 'kube-controller-manager', 'kube-system'))?.spec as { holderIdentity?: string } | undefined)?.holderIdentity || undefined;

/** The types of a namespace's True conditions. */
const trueConditions = (ns: KubeObject | undefined): string[] =>
  ((ns?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type);

const SERVICEACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true, kind: 'ServiceAccount' };

describe('namespace lifecycle with the real kubectl', { concurrency: true }, () => {
  describe('controllers inside kplane up', { concurrency: 1 }, () => {
    const suite = useKplane([]);
    const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);

    it('holds the kube-controller-manager Lease', async () => {
      await eventually('a Lease holder', () => leaseHolder(suite.client));
      const table = await k('-n', 'kube-system', 'get', 'lease', 'kube-controller-manager');
      assert.match(table, /^NAME\s+HOLDER\s+AGE$/m);
      assert.match(table, /^kube-controller-manager\s+\S+_[0-9a-f-]{36}\s/m);
    });

    it('gives a new namespace its default ServiceAccount', async () => {
      await k('create', 'namespace', 'avec-compte');
      await eventually('the default ServiceAccount', () => read(suite.client, SERVICEACCOUNTS, 'default', 'avec-compte'));
      assert.match(await k('-n', 'avec-compte', 'get', 'serviceaccount', 'default'), /^default\s+0\s+\S+$/m);
    });

    it('the seed experiment: garde.yaml holds ch36-bloque in Terminating until its finalizer goes', async () => {
      await k('create', 'namespace', 'ch36-bloque');
      assert.match(await kubectlOk(suite.kp.kubeconfig, ['-n', 'ch36-bloque', 'apply', '-f', '-'], GARDE), /configmap\/garde created/);
      assert.match(await k('delete', 'namespace', 'ch36-bloque', '--wait=false'), /namespace "ch36-bloque" deleted/);
      await eventually('both conditions', async () => trueConditions(await read(suite.client, NAMESPACES, 'ch36-bloque')).length === 2);
      assert.equal(
        await k('get', 'namespace', 'ch36-bloque', '-o', `jsonpath=${TRUE_CONDITIONS}`),
        `NamespaceContentRemaining : ${CONTENT_REMAINING}\nNamespaceFinalizersRemaining : ${FINALIZERS_REMAINING}\n`,
      );
      assert.match(await k('get', 'namespace', 'ch36-bloque'), /^ch36-bloque\s+Terminating\s+\S+$/m);
      const refused = await kubectl(suite.kp.kubeconfig, ['-n', 'ch36-bloque', 'create', 'configmap', 'tardif']);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /unable to create new content in namespace ch36-bloque because it is being terminated/);

      assert.match(await k('-n', 'ch36-bloque', 'patch', 'cm', 'garde', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]'), /configmap\/garde patched/);
      const started = Date.now();
      await eventually('the namespace to disappear', async () => (await read(suite.client, NAMESPACES, 'ch36-bloque')) === undefined);
      assert.ok(Date.now() - started < 12_000, `gone within seconds (${Date.now() - started} ms)`);
      const gone = await kubectl(suite.kp.kubeconfig, ['get', 'namespace', 'ch36-bloque']);
      assert.match(gone.stderr, /Error from server \(NotFound\): namespaces "ch36-bloque" not found/);
    });

    it('serves the workqueue metrics to the admin client certificate (system:masters)', async () => {
      const url = /serving securely on (https:\/\/127\.0\.0\.1:\d+)/.exec(suite.kp.output())?.[1];
      assert.ok(url, suite.kp.output());
      assert.equal((await httpsGet(`${url}/healthz`, suite.kp.kubeconfig, false)).body, 'ok');
      const metrics = await httpsGet(`${url}/metrics`, suite.kp.kubeconfig, true);
      assert.equal(metrics.status, 200);
      assert.match(metrics.body, /^workqueue_adds_total\{name="namespace"\} [1-9]/m);
      assert.match(metrics.body, /^workqueue_adds_total\{name="serviceaccount"\} [1-9]/m);
    });
  });

  describe('a separate kplane controller-manager against kplane up --no-controllers', { concurrency: 1 }, () => {
    let cm: ControllerManagerProcess | undefined;
    after(async () => {
      await cm?.stop();
    });
    const suite = useKplane(['--no-controllers']);
    const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
    const phaseAndConditions = async () => k('get', 'namespace', 'attente', '-o', `jsonpath={.status.phase}|${TRUE_CONDITIONS}`);


    it('without controllers a deleted namespace only changes state', async () => {
      await k('create', 'namespace', 'attente');
      await kubectlOk(suite.kp.kubeconfig, ['-n', 'attente', 'apply', '-f', '-'], GARDE);
      await k('-n', 'attente', 'create', 'configmap', 'simple', '--from-literal=a=1');
      await k('delete', 'namespace', 'attente', '--wait=false');
      // Nothing runs besides the API server: the state the delete left is final until a
      // controller manager comes (the next test).
      assert.equal(await phaseAndConditions(), 'Terminating|');
      assert.match(await k('-n', 'attente', 'get', 'cm', '-o', 'name'), /configmap\/simple/);
      assert.equal(await read(suite.client, SERVICEACCOUNTS, 'default', 'default'), undefined, 'no serviceaccount controller');
      assert.equal(await leaseHolder(suite.client), undefined);
    });

    it('the controller manager empties the namespace as far as the finalizer allows', async () => {
      cm = await startControllerManager(suite.kp.kubeconfig, /serving securely on https:\/\/127\.0\.0\.1:\d+/);
      await eventually('the leader log line', async () => cm!.identity());
      assert.equal(await leaseHolder(suite.client), cm.identity());
      await eventually('the conditions', async () => trueConditions(await read(suite.client, NAMESPACES, 'attente')).length === 2);
      assert.equal(await phaseAndConditions(), `Terminating|NamespaceContentRemaining : ${CONTENT_REMAINING}\nNamespaceFinalizersRemaining : ${FINALIZERS_REMAINING}\n`);
      assert.equal(await k('-n', 'attente', 'get', 'cm', '-o', 'name'), 'configmap/garde\n');
      await eventually('the default ServiceAccount', () => read(suite.client, SERVICEACCOUNTS, 'default', 'default'));
    });

    it('stopped, it does nothing; restarted, it finishes the work (level-driven)', async () => {
      assert.equal(await cm!.stop(), 0, cm!.output());
      cm = undefined;
      assert.equal(await leaseHolder(suite.client), undefined, 'the Lease was released');
      await k('-n', 'attente', 'patch', 'cm', 'garde', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]');
      // The controller manager has exited: nothing is left to act on the patch.
      assert.match(await phaseAndConditions(), /^Terminating\|NamespaceContentRemaining/, 'nobody finalizes the namespace');
      assert.equal(await k('-n', 'attente', 'get', 'cm', '-o', 'name'), '');

      cm = await startControllerManager(suite.kp.kubeconfig, /serving securely on https:\/\/127\.0\.0\.1:\d+/);
      await eventually('the namespace to disappear', async () => (await read(suite.client, NAMESPACES, 'attente')) === undefined);
      assert.match((await kubectl(suite.kp.kubeconfig, ['get', 'namespace', 'attente'])).stderr, /namespaces "attente" not found/);
      assert.equal(await leaseHolder(suite.client), cm.identity());
    });
  });
});
