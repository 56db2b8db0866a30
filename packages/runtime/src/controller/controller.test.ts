import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@kplane/api';
import { startTestKplane as startKplane, type TestKplane } from '@kplane/apiserver/testing';
import { until } from '@kplane/api/testing';
import { createFakeClock } from '../clock.js';
import { settle, tick } from '../testing/index.js';
import { createManager } from '../manager/manager.js';
import { CONTROLLER_OWNER_INDEX } from '../informer/index.js';
import { Action, TerminalError } from './action.js';
import { BuilderError } from './builder.js';
import { generationChanged } from './predicates.js';

const CM = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' };
const PODS = { group: '', version: 'v1', resource: 'pods', namespaced: true, kind: 'Pod' };

/**
 * The seed's controller in miniature: a ConfigMap's data.repliques says how many pods it
 * wants; pods carry an ownerReference to it. Level-driven: the reconcile reads the cache.
 */
function startShowcase(kp: TestKplane, signal: AbortSignal) {
  const mgr = createManager({ client: kp.client });
  const cms = mgr.factory.informerFor(CM);
  const pods = mgr.factory.informerFor(PODS);
  const podApi = kp.client.resource(PODS);
  let reconciles = 0;
  mgr
    .controller()
    .named('vitrine')
    .for(CM)
    .owns(PODS)
    .complete(async (req) => {
      reconciles++;
      const cm = cms.store.get(req.key);
      if (!cm) return;
      const want = Number((cm.data as Record<string, string> | undefined)?.repliques ?? 0);
      const mine = pods.store.byIndex(CONTROLLER_OWNER_INDEX, cm.metadata!.uid!).filter((p) => !p.metadata?.deletionTimestamp);
      for (let i = mine.length; i < want; i++) {
        await podApi.create(
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              generateName: `${req.name}-`,
              labels: { 'cours/proprietaire': req.name },
              ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: req.name, uid: cm.metadata!.uid!, controller: true, blockOwnerDeletion: true }],
            },
            spec: { containers: [{ name: 'web', image: 'registry.k8s.io/e2e-test-images/agnhost:2.61' }] },
          },
          { namespace: req.namespace },
        );
      }
      for (const p of mine.slice(want)) {
        // The cache may still show a pod deleted a moment ago: already gone is fine.
        await podApi.delete(p.metadata!.name!, { namespace: req.namespace }).catch((err: { code?: number }) => {
          if (err.code !== 404) throw err;
        });
      }
      return Action.awaitChange();
    });
  const done = mgr.start(signal);
  return { mgr, done, reconciles: () => reconciles };
}

describe('controller builder, controller and manager', () => {
  let kp: TestKplane;
  before(async () => {
    kp = await startKplane();
  });
  after(async () => {
    await kp.close();
  });

  const countPods = async () => {
    const list = await kp.client.resource(PODS).list({ namespace: 'default', labelSelector: 'cours/proprietaire=vitrine' });
    return list.items.filter((p) => !p.metadata?.deletionTimestamp).length;
  };

  it('converges, and catches up after being stopped while the desired state changed', async () => {
    const cmApi = kp.client.resource(CM);
    await cmApi.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'vitrine' }, data: { repliques: '3' } }, { namespace: 'default' });
    let stop = new AbortController();
    let run = startShowcase(kp, stop.signal);
    await until('3 pods', async () => (await countPods()) === 3);
    await cmApi.patch('vitrine', { data: { repliques: '1' } }, 'merge', { namespace: 'default' });
    await until('scaled down to 1', async () => (await countPods()) === 1);
    // A pod deleted by hand is replaced.
    const [pod] = (await kp.client.resource(PODS).list({ namespace: 'default' })).items;
    await kp.client.resource(PODS).delete(pod!.metadata!.name!, { namespace: 'default' });
    await until('the pod replaced', async () => (await countPods()) === 1);

    stop.abort();
    await run.done;
    const reconciled = run.reconciles();
    await cmApi.patch('vitrine', { data: { repliques: '4' } }, 'merge', { namespace: 'default' });
    // Every in-process request and watch event in flight lands within these turns.
    await settle();
    assert.equal(run.reconciles(), reconciled, 'no reconcile once stopped');
    assert.equal(await countPods(), 1, 'nothing acts while the controller is stopped');

    stop = new AbortController();
    run = startShowcase(kp, stop.signal);
    await until('caught up to 4 pods', async () => (await countPods()) === 4);
    stop.abort();
    await run.done;
  });

  it('retries failures with backoff, but not terminal errors', async () => {
    const stop = new AbortController();
    const clock = createFakeClock();
    const mgr = createManager({ client: kp.client, clock });
    const calls = new Map<string, number>();
    mgr
      .controller()
      .named('flaky')
      .for(CM)
      .complete((req) => {
        const n = (calls.get(req.name) ?? 0) + 1;
        calls.set(req.name, n);
        if (req.name === 'transient' && n < 3) throw new Error('not yet');
        if (req.name === 'terminal') throw new TerminalError('never');
        if (req.name === 'periodic' && n < 3) return Action.requeue(20);
      });
    const done = mgr.start(stop.signal);
    const cmApi = kp.client.resource(CM);
    for (const name of ['transient', 'terminal', 'periodic']) {
      await cmApi.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }, { namespace: 'default' });
    }
    await until('a first reconcile of each', () => calls.size === 3);
    // Backoff (5, 10 ms) and requeueAfter (20 ms) run on the manager's clock: a virtual second
    // holds every retry there could be.
    await tick(clock, 1000, 5);
    assert.equal(calls.get('terminal'), 1);
    assert.equal(calls.get('transient'), 3);
    assert.equal(calls.get('periodic'), 3);
    const text = await mgr.metrics.metricsText();
    assert.match(text, /controller_runtime_reconcile_total\{controller="flaky",result="error"\} [1-9]/);
    assert.match(text, /controller_runtime_reconcile_total\{controller="flaky",result="requeue_after"\} 2/);
    assert.match(text, /workqueue_adds_total\{name="flaky"\} [1-9]/);
    stop.abort();
    await done;
  });

  it('filters changes with predicates', async () => {
    const stop = new AbortController();
    const mgr = createManager({ client: kp.client });
    const seen: string[] = [];
    const DEPLOY = { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true, kind: 'Deployment' };
    mgr
      .controller()
      .for(DEPLOY, { predicates: [generationChanged] })
      .complete((req) => {
        seen.push(req.key);
      });
    const done = mgr.start(stop.signal);
    const api = kp.client.resource<KubeObject>(DEPLOY);
    const deployment = (name: string): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    });
    await api.create(deployment('p'), { namespace: 'default' });
    await until('the first reconcile', () => seen.length === 1);
    await api.patch('p', { metadata: { labels: { x: 'y' } } }, 'merge', { namespace: 'default' });
    // A barrier: q's event comes after the label change on the same watch, and keys are
    // reconciled in order, so a passed label change would show before q.
    await api.create(deployment('q'), { namespace: 'default' });
    await until('q reconciled', () => seen.includes('default/q'));
    assert.deepEqual(seen, ['default/p', 'default/q'], 'a label change does not change the generation');
    await api.patch('p', { spec: { replicas: 5 } }, 'merge', { namespace: 'default' });
    await until('the spec change reconciled', () => seen.length === 3);
    stop.abort();
    await done;
  });

  it('reports misuse of the builder at complete()', () => {
    const mgr = createManager({ client: kp.client });
    assert.throws(
      () => mgr.controller().owns(PODS).withOptions({ maxConcurrentReconciles: 0 }).complete(() => {}),
      (err: unknown) => err instanceof BuilderError && err.problems.length === 2 && /for\(\) must be called/.test(err.message),
    );
    assert.throws(() => mgr.controller().for(CM).for(PODS).complete(() => {}), /for\(\) may only be called once/);
  });
});
