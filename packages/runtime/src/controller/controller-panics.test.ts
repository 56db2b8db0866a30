import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { KubeObject } from '@kplane/api';
import type { Client, ResourceDescriptor } from '@kplane/client';
import { createFakeClock, type FakeClock } from '../clock.js';
import { createFakeApi, type FakeApi } from '../informer/fake-api.js';
import { createInformer } from '../informer/informer.js';
import { createManager, type Manager } from '../manager/manager.js';
import { createMetrics, type RuntimeMetrics } from '../metrics.js';
import { RecoveredPanic } from '../recover.js';
import { settle } from '../testing/index.js';
import { watchProcessFailures, type ProcessFailureWatch } from '../testing/process-failures.js';
import { Action } from './action.js';
import { createController } from './controller.js';

const CMS: ResourceDescriptor & { kind: string } = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' };
const PODS: ResourceDescriptor & { kind: string } = { group: '', version: 'v1', resource: 'pods', namespaced: true, kind: 'Pod' };

const obj = (name: string, labels: Record<string, string> = {}): KubeObject => ({ metadata: { namespace: 'default', name, labels } });

/** Metric value from the text exposition (0 when absent). */
async function metric(metrics: RuntimeMetrics, series: string): Promise<number> {
  const text = await metrics.metricsText();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

interface Rig {
  clock: FakeClock;
  cms: FakeApi;
  pods: FakeApi;
  metrics: RuntimeMetrics;
  panics: RecoveredPanic[];
  manager: Manager;
  logged: string[];
  stop: AbortController;
}

describe('controller exception isolation', () => {
  let rig: Rig;
  let watch: ProcessFailureWatch;
  const originalError = console.error;

  beforeEach(() => {
    watch = watchProcessFailures();
    const clock = createFakeClock();
    const cms = createFakeApi([obj('a'), obj('b')]);
    const pods = createFakeApi();
    const client = { resource: (r: ResourceDescriptor) => (r.resource === 'configmaps' ? cms.api : pods.api) } as unknown as Client;
    const metrics = createMetrics();
    const panics: RecoveredPanic[] = [];
    const logged: string[] = [];
    console.error = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
    rig = { clock, cms, pods, metrics, panics, logged, stop: new AbortController(), manager: createManager({ client, clock, metrics, onPanic: (p) => panics.push(p) }) };
  });

  afterEach(async () => {
    rig.stop.abort();
    await settle();
    console.error = originalError;
    assert.deepEqual(await watch.stop(), [], 'nothing reached the process');
  });

  it('a reconciler panic is recovered, logged with the controller and key, counted, and retried with backoff', async () => {
    const calls: string[] = [];
    rig.manager
      .controller()
      .named('cms')
      .for(CMS)
      .complete((req) => {
        calls.push(`${req.name}@${rig.clock.now()}`);
        const n = calls.filter((c) => c.startsWith(`${req.name}@`)).length;
        if (req.name === 'a' && n === 1) (undefined as unknown as { spec: number }).spec; // a TypeError: a panic
        if (req.name === 'b' && n === 1) throw new Error('not ready'); // an ordinary reconcile error
        return Action.awaitChange();
      });
    const done = rig.manager.start(rig.stop.signal);
    await settle();
    assert.deepEqual(calls, ['a@0', 'b@0']);
    await rig.clock.advanceAsync(5); // the first failure of a key waits 5 ms
    await settle();
    assert.deepEqual(calls.sort(), ['a@0', 'a@5', 'b@0', 'b@5']);
    assert.equal(await metric(rig.metrics, 'controller_runtime_reconcile_panics_total{controller="cms"}'), 1);
    assert.equal(await metric(rig.metrics, 'controller_runtime_reconcile_errors_total{controller="cms"}'), 2);
    assert.equal(await metric(rig.metrics, 'controller_runtime_reconcile_total{controller="cms",result="error"}'), 2);
    assert.equal(await metric(rig.metrics, 'controller_runtime_reconcile_total{controller="cms",result="success"}'), 2);
    const panicLog = rig.logged.find((l) => l.includes('key="default/a"'));
    assert.ok(panicLog?.startsWith('Reconciler error: controller="cms" key="default/a":'), panicLog);
    assert.match(panicLog!, /panic: Cannot read properties of undefined \(reading 'spec'\) \[recovered\] in reconciler/);
    assert.ok(rig.logged.some((l) => l.startsWith('Reconciler error: controller="cms" key="default/b":') && l.includes('not ready')));
    rig.stop.abort();
    await done;
  });

  it('a throwing predicate drops that change only; later changes still wake the controller', async () => {
    const calls: string[] = [];
    rig.manager
      .controller()
      .named('picky')
      .for(CMS, {
        predicates: [
          (c) => {
            if (c.object.metadata?.labels?.poison) throw new Error('cannot judge');
            return true;
          },
        ],
      })
      .complete((req) => void calls.push(req.name));
    const done = rig.manager.start(rig.stop.signal);
    await settle();
    assert.deepEqual(calls.sort(), ['a', 'b']);
    rig.cms.apply(obj('a', { poison: 'yes' }));
    rig.cms.apply(obj('b', { fine: 'yes' }));
    await settle();
    assert.deepEqual(calls.sort(), ['a', 'b', 'b']);
    rig.cms.apply(obj('a', { cured: 'yes' }));
    await settle();
    assert.deepEqual(calls.sort(), ['a', 'a', 'b', 'b']);
    assert.deepEqual(rig.panics.map((p) => `${p.callback} ${p.context.controller} ${p.context.key}`), ['predicate picky default/a']);
    assert.equal(await metric(rig.metrics, 'controller_runtime_reconcile_panics_total{controller="picky"}'), 1);
    assert.equal(await metric(rig.metrics, 'kplane_informer_callback_panics_total{resource="/v1/configmaps",callback="event-handler"}'), 0);
    rig.stop.abort();
    await done;
  });

  it('async predicates and map functions are refused, and their rejections never reach the process', async () => {
    const calls: string[] = [];
    rig.manager
      .controller()
      .named('eager')
      .for(CMS, { predicates: [async () => Promise.reject(new Error('async predicate'))] as never })
      .watches(PODS, (async () => {
        throw new Error('async map');
      }) as never)
      .complete((req) => void calls.push(req.name));
    const done = rig.manager.start(rig.stop.signal);
    await settle();
    rig.pods.apply(obj('p'));
    await settle();
    assert.deepEqual(calls, []);
    assert.deepEqual(
      rig.panics.map((p) => `${p.callback} ${p.context.key} ${String(p.cause)}`),
      [
        'predicate default/a TypeError: predicate returned a Promise (predicates must be synchronous)',
        'predicate default/b TypeError: predicate returned a Promise (predicates must be synchronous)',
        'map default/p TypeError: map function returned a Promise, not an array of requests (map functions must be synchronous)',
      ],
    );
    rig.stop.abort();
    await done;
  });

  it('a throwing map function loses only the keys of the object it threw on', async () => {
    const calls: string[] = [];
    rig.manager
      .controller()
      .named('mapper')
      .for(CMS)
      .watches(PODS, (pod) => {
        if (pod.metadata?.name === 'evil') throw new RangeError('bad pod');
        if (pod.metadata?.name === 'weird') return 'not an array' as never;
        return [{ namespace: 'default', name: pod.metadata!.labels!.cm! }];
      })
      .complete((req) => void calls.push(req.name));
    const done = rig.manager.start(rig.stop.signal);
    await settle();
    calls.length = 0;
    rig.pods.apply(obj('evil', { cm: 'a' }));
    rig.pods.apply(obj('weird', { cm: 'a' }));
    rig.pods.apply(obj('good', { cm: 'b' }));
    await settle();
    assert.deepEqual(calls, ['b']);
    assert.deepEqual(
      rig.panics.map((p) => `${p.callback} ${p.context.key} ${String(p.cause)}`),
      ['map default/evil RangeError: bad pod', 'map default/weird TypeError: map function returned string, not an array of requests'],
    );
    assert.equal(await metric(rig.metrics, 'controller_runtime_reconcile_panics_total{controller="mapper"}'), 2);
    rig.stop.abort();
    await done;
  });

  it('a source that throws when started is reported; the controller runs on its other sources', async () => {
    const informer = createInformer({ api: rig.cms.api, clock: rig.clock });
    const calls: string[] = [];
    let onErrorCalls = 0;
    const controller = createController({
      name: 'custom',
      clock: rig.clock,
      metrics: rig.metrics,
      onPanic: (p) => rig.panics.push(p),
      informers: [informer],
      sources: [
        () => {
          throw new Error('source cannot start');
        },
        (async () => ({ remove() {} })) as never,
        (enqueue) => {
          enqueue(42 as never); // not a key: reported and dropped
          return informer.addEventHandler({ onAdd: (o) => enqueue(`default/${o.metadata!.name}`) });
        },
      ],
      reconcile: (req) => {
        calls.push(req.name);
        if (req.name === 'a' && calls.length === 1) throw new Error('once');
      },
      onError: () => {
        onErrorCalls++;
        throw new Error('onError is broken');
      },
    });
    void informer.run(rig.stop.signal);
    const done = controller.start(rig.stop.signal);
    await settle();
    await rig.clock.advanceAsync(5);
    await settle();
    assert.deepEqual(calls, ['a', 'b', 'a'], 'the worker survived a throwing onError and retried');
    assert.equal(onErrorCalls, 1);
    assert.deepEqual(rig.panics.map((p) => `${p.callback} ${p.context.name}`), ['watch-source source 0', 'watch-source source 1', 'watch-source enqueue', 'reconciler onError']);
    assert.equal(await metric(rig.metrics, 'controller_runtime_reconcile_panics_total{controller="custom"}'), 3);
    assert.deepEqual(controller.queue.inspect().processing, [], 'no key left in flight');
    rig.stop.abort();
    await done;
  });

  it('a runnable that throws at once or rejects later is reported; the manager runs on', async () => {
    let ran = 0;
    rig.manager.add({
      start: () => {
        throw new Error('sync');
      },
    });
    rig.manager.add({ start: async () => Promise.reject(new Error('async')) });
    rig.manager.add({
      start: async (signal) => {
        ran++;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    });
    const done = rig.manager.start(rig.stop.signal);
    await settle();
    assert.equal(ran, 1);
    assert.equal(rig.manager.healthy(), true);
    assert.deepEqual(rig.panics.map((p) => `${p.callback} ${(p.cause as Error).message}`), ['runnable sync', 'runnable async']);
    rig.stop.abort();
    await done;
  });

  it('a reconcile cut short by the stop is neither logged nor counted as an error: the manager stops quietly', async () => {
    let inFlight = 0;
    rig.manager
      .controller()
      .named('slow')
      .for(CMS)
      .complete(async (_req, { signal }) => {
        inFlight++;
        // A request in flight when the stop comes: the client rejects with an AbortError.
        await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new DOMException('This operation was aborted', 'AbortError')), { once: true }));
      });
    const done = rig.manager.start(rig.stop.signal);
    await settle();
    assert.equal(inFlight, 1, 'one worker, one reconcile in flight');
    rig.stop.abort();
    await done;
    assert.deepEqual(rig.logged, [], 'no Reconciler error');
    assert.deepEqual(rig.panics, []);
    assert.equal(await metric(rig.metrics, 'controller_runtime_reconcile_errors_total{controller="slow"}'), 0);
    assert.equal(await metric(rig.metrics, 'controller_runtime_reconcile_total{controller="slow",result="error"}'), 0);
  });

  it('an error that is not an abort is still logged when the stop comes during the reconcile', async () => {
    rig.manager
      .controller()
      .named('broken')
      .for(CMS)
      .complete(async (req, { signal }) => {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw new Error(`cannot finish ${req.name}`);
      });
    const done = rig.manager.start(rig.stop.signal);
    await settle();
    rig.stop.abort();
    await done;
    assert.ok(rig.logged.some((l) => l.startsWith('Reconciler error: controller="broken" key="default/a":') && l.includes('cannot finish a')), rig.logged.join('\n'));
  });
});
