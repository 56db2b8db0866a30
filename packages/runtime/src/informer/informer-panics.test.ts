import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@kplane/api';
import type { Client } from '@kplane/client';
import { createFakeClock } from '../clock.js';
import { createMetrics } from '../metrics.js';
import { RecoveredPanic } from '../recover.js';
import { settle } from '../testing/index.js';
import { watchProcessFailures } from '../testing/process-failures.js';
import { createFakeApi } from './fake-api.js';
import { createInformerFactory } from './factory.js';
import { createInformer } from './informer.js';
import { objectKey } from './store.js';

const cm = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'default', name, labels },
});

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' };

/** A test that fails if anything reaches the process as an unhandled rejection or exception. */
function isolated(name: string, body: () => Promise<void>): void {
  it(name, async () => {
    const watch = watchProcessFailures();
    await body();
    assert.deepEqual(await watch.stop(), [], 'nothing reached the process');
  });
}

describe('informer exception isolation', () => {
  isolated('stores the object when an index function throws, skips it in that index only, and counts it', async () => {
    const clock = createFakeClock();
    const fake = createFakeApi([cm('a', { team: 'x' })]);
    const metrics = createMetrics();
    const panics: RecoveredPanic[] = [];
    const informer = createInformer({
      api: fake.api,
      clock,
      resource: '/v1/configmaps',
      metrics,
      onPanic: (p) => panics.push(p),
      indexers: {
        byTeam: (o) => {
          if (o.metadata?.name === 'bad') throw new Error('no team');
          return [o.metadata?.labels?.team ?? ''];
        },
      },
    });
    const seen: string[] = [];
    informer.addEventHandler({ onAdd: (o) => seen.push(`add ${objectKey(o)}`), onUpdate: (_, o) => seen.push(`update ${objectKey(o)}`) });
    const stop = new AbortController();
    const run = informer.run(stop.signal);
    assert.equal(await informer.waitForSync(), true);

    fake.apply(cm('bad', { team: 'x' }));
    fake.apply(cm('b', { team: 'x' }));
    await settle();
    assert.ok(informer.store.get('default/bad'), 'the object is stored all the same');
    assert.deepEqual(informer.store.byIndex('byTeam', 'x').map(objectKey).sort(), ['default/a', 'default/b']);
    assert.deepEqual(informer.store.byIndex('byNamespace', 'default').length, 3, 'other indexes file it');
    assert.deepEqual(seen, ['add default/a', 'add default/bad', 'add default/b'], 'handlers are told about it');
    assert.equal(panics.length, 1);
    assert.equal(panics[0]!.callback, 'indexer');
    assert.deepEqual(panics[0]!.context, { resource: '/v1/configmaps', key: 'default/bad', name: 'byTeam' });
    assert.match(await metrics.metricsText(), /kplane_informer_callback_panics_total\{resource="\/v1\/configmaps",callback="indexer"\} 1/);

    stop.abort();
    await run;
  });

  isolated('keeps delivering later events to every handler after one throws, and counts each throw', async () => {
    const clock = createFakeClock();
    const fake = createFakeApi<KubeObject>();
    const metrics = createMetrics();
    const panics: RecoveredPanic[] = [];
    const informer = createInformer({ api: fake.api, clock, resource: 'r', metrics, onPanic: (p) => panics.push(p) });
    const thrower: string[] = [];
    const other: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => {
        thrower.push(`add ${o.metadata!.name}`);
        throw new TypeError('handler bug');
      },
      onUpdate: () => {
        throw 'not even an Error';
      },
      onDelete: (o) => thrower.push(`delete ${o.metadata!.name}`),
    });
    informer.addEventHandler({
      onAdd: (o) => other.push(`add ${o.metadata!.name}`),
      onUpdate: (_, o) => other.push(`update ${o.metadata!.name}`),
      onDelete: (o) => other.push(`delete ${o.metadata!.name}`),
    });
    const stop = new AbortController();
    const run = informer.run(stop.signal);
    await informer.waitForSync();
    fake.apply(cm('x'));
    fake.apply(cm('x', { changed: 'yes' }));
    fake.apply(cm('y'));
    fake.remove('default/x');
    await settle();
    assert.deepEqual(other, ['add x', 'update x', 'add y', 'delete x']);
    assert.deepEqual(thrower, ['add x', 'add y', 'delete x'], 'the throwing handler still gets later events');
    assert.deepEqual(
      panics.map((p) => `${p.callback} ${p.context.name} ${p.context.key}`),
      ['event-handler onAdd default/x', 'event-handler onUpdate default/x', 'event-handler onAdd default/y'],
    );
    assert.match(panics[1]!.message, /^panic: not even an Error \[recovered\] in event-handler/);
    assert.match(await metrics.metricsText(), /kplane_informer_callback_panics_total\{resource="r",callback="event-handler"\} 3/);
    stop.abort();
    await run;
  });

  isolated('catches the rejection of an async handler and of an async index function', async () => {
    const clock = createFakeClock();
    const fake = createFakeApi<KubeObject>();
    const panics: RecoveredPanic[] = [];
    const informer = createInformer({
      api: fake.api,
      clock,
      onPanic: (p) => panics.push(p),
      indexers: { later: (async () => ['x']) as never },
    });
    informer.addEventHandler({
      onAdd: async (o) => {
        await Promise.resolve();
        throw new Error(`async failure for ${o.metadata!.name}`);
      },
    });
    const stop = new AbortController();
    const run = informer.run(stop.signal);
    await informer.waitForSync();
    fake.apply(cm('x'));
    await settle();
    assert.ok(informer.store.get('default/x'));
    assert.deepEqual(panics.map((p) => `${p.callback} ${String(p.cause)}`).sort(), [
      'event-handler Error: async failure for x',
      'indexer TypeError: index function later returned a Promise, not an array of strings (index functions must be synchronous)',
    ]);
    stop.abort();
    await run;
  });

  isolated('guards the resync timer: a throwing onUpdate during resync never throws out of the clock', async () => {
    const clock = createFakeClock();
    const fake = createFakeApi([cm('a')]);
    let panics = 0;
    const informer = createInformer({ api: fake.api, clock, resyncMs: 1000, onPanic: () => panics++ });
    informer.addEventHandler({
      onUpdate: () => {
        throw new Error('resync handler');
      },
    });
    const stop = new AbortController();
    const run = informer.run(stop.signal);
    await informer.waitForSync();
    clock.advance(3000);
    assert.equal(panics, 3, 'one panic per resync, and resyncs go on');
    stop.abort();
    await run;
  });

  isolated('survives an api that throws instead of rejecting, and an onError that throws', async () => {
    const clock = createFakeClock();
    const fake = createFakeApi([cm('a')]);
    let calls = 0;
    const api = {
      list: fake.api.list,
      watch: (o: Parameters<typeof fake.api.watch>[0]) => {
        if (++calls === 1) throw new Error('sync throw from watch');
        return fake.api.watch(o);
      },
    };
    const errors: unknown[] = [];
    const informer = createInformer({
      api,
      clock,
      onError: (err) => {
        errors.push(err);
        throw new Error('onError is broken too');
      },
    });
    const stop = new AbortController();
    const run = informer.run(stop.signal);
    await settle();
    assert.equal(informer.hasSynced(), false);
    await clock.advanceAsync(2000); // the watcher's backoff (800 ms to 1.6 s)
    await settle();
    assert.equal(informer.hasSynced(), true, 'retried after the backoff');
    assert.ok(informer.store.get('default/a'));
    assert.equal(errors.length, 1);
    stop.abort();
    await run;
  });

  isolated('the factory labels panics with the resource and never lets a run reject', async () => {
    const clock = createFakeClock();
    const fake = createFakeApi([cm('a')]);
    const client = { resource: () => fake.api } as unknown as Client;
    const metrics = createMetrics();
    const panics: RecoveredPanic[] = [];
    const factory = createInformerFactory({ client, clock, metrics, onPanic: (p) => panics.push(p) });
    const informer = factory.informerFor(CONFIGMAPS);
    informer.store.addIndexer('broken', () => {
      throw new Error('always');
    });
    assert.equal(panics.length, 0, 'nothing cached yet');
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('handler');
      },
    });
    const stop = new AbortController();
    factory.start(stop.signal);
    assert.equal(await factory.waitForCacheSync(), true);
    fake.apply(cm('b'));
    await settle();
    assert.deepEqual(
      panics.map((p) => `${p.callback} ${p.context.resource} ${p.context.key}`),
      ['indexer /v1/configmaps default/a', 'event-handler /v1/configmaps default/a', 'indexer /v1/configmaps default/b', 'event-handler /v1/configmaps default/b'],
    );
    const text = await metrics.metricsText();
    assert.match(text, /kplane_informer_callback_panics_total\{resource="\/v1\/configmaps",callback="indexer"\} 2/);
    assert.match(text, /kplane_informer_callback_panics_total\{resource="\/v1\/configmaps",callback="event-handler"\} 2/);
    assert.equal(informer.store.size(), 2);
    stop.abort();
    await factory.shutdown();
  });
});
