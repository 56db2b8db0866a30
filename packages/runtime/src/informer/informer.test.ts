import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, seededRandom, type KubeObject } from '@kplane/api';
import { eventually, until } from '@kplane/api/testing';
import { createApiServer } from '@kplane/apiserver';
import { createClient, type ResourceDescriptor } from '@kplane/client';
import { createMemoryBackend } from '@kplane/storage';
import { createFakeClock, flushMicrotasks } from '../clock.js';
import { createFaults, type Faults } from '@kplane/client/faults';
import { createInformer, type EventHandler } from './informer.js';
import { objectKey } from './store.js';

const configmaps: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' };

async function startServer() {
  const server = createApiServer({ backend: createMemoryBackend(), bookmarkIntervalMs: 15 });
  await server.start();
  return server;
}

const cm = (namespace: string, name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name },
  data,
});

/**
 * A handler that replays what it is told into its own map and records every inconsistency:
 * an add for a known key, an update or delete for an unknown one, an update whose old object
 * is not the one last seen, or one that does not move the resourceVersion forward.
 */
function trackingHandler() {
  const seen = new Map<string, { rv: string; uid: string }>();
  const violations: string[] = [];
  let events = 0;
  const handler: EventHandler = {
    onAdd(obj) {
      events++;
      const key = objectKey(obj);
      if (seen.has(key)) violations.push(`add of known ${key}`);
      seen.set(key, { rv: obj.metadata!.resourceVersion!, uid: obj.metadata!.uid! });
    },
    onUpdate(old, obj) {
      events++;
      const key = objectKey(obj);
      const prev = seen.get(key);
      if (!prev) violations.push(`update of unknown ${key}`);
      else if (prev.rv !== old.metadata!.resourceVersion) violations.push(`update of ${key} from ${old.metadata!.resourceVersion}, last seen ${prev.rv}`);
      else if (prev.uid !== obj.metadata!.uid) violations.push(`update of ${key} changes its uid`);
      if (Number(obj.metadata!.resourceVersion) <= Number(old.metadata!.resourceVersion)) violations.push(`update of ${key} does not advance`);
      seen.set(key, { rv: obj.metadata!.resourceVersion!, uid: obj.metadata!.uid! });
    },
    onDelete(obj) {
      events++;
      const key = objectKey(obj);
      if (!seen.has(key)) violations.push(`delete of unknown ${key}`);
      seen.delete(key);
    },
  };
  return { handler, seen, violations, events: () => events };
}

const rvMap = (objs: KubeObject[]): Map<string, string> => new Map(objs.map((o) => [objectKey(o), o.metadata!.resourceVersion!]));

/**
 * Watches that break: cut cleanly or reset after a few events, refused with a 410, or resumed
 * into a 410 Expired ERROR event; lists that fail with a 500 or a refused connection. The
 * first watches show every kind of break; chance decides the rest; and even an undisturbed
 * watch ends after a while (once its initial events are in), so every watch ends.
 */
function streamBreaks(seed: number): Faults {
  const faults = createFaults({ seed });
  const few = [0, 3] as const;
  faults.add({ verb: 'watch', count: 1, drop: { afterEvents: few } });
  faults.add({ verb: 'watch', count: 1, expire: 'event' });
  faults.add({ verb: 'watch', count: 1, drop: { afterEvents: few, reset: true } });
  faults.add({ verb: 'watch', count: 1, error: 410 });
  faults.add({ verb: 'watch', rate: 0.05, error: 410 });
  faults.add({ verb: 'watch', rate: 0.1, expire: 'event' });
  faults.add({ verb: 'watch', rate: 0.35, drop: { afterEvents: few } });
  faults.add({ verb: 'watch', rate: 0.3, drop: { afterEvents: few, reset: true } });
  faults.add({ verb: 'list', rate: 0.025, disconnect: true });
  faults.add({ verb: 'list', rate: 0.025, error: 500, message: 'etcdserver: request timed out' });
  faults.add({ verb: 'watch', drop: { afterEvents: 30, afterInitialEvents: true } });
  return faults;
}

describe('informer against an in-process kplane with random stream breaks', () => {
  const runs: [number, 'streaming' | 'paged'][] = [[1, 'streaming'], [42, 'streaming'], [2024, 'streaming'], [7, 'paged'], [99, 'paged']];
  for (const [seed, initialList] of runs) {
    it(`never loses or duplicates a change (seed ${seed}, ${initialList} lists)`, async () => {
      const server = await startServer();
      const random = seededRandom(seed);
      const writer = createClient({ transport: server.handle }).resource(configmaps);
      const faults = streamBreaks(seed * 7 + 1);
      const api = createClient({ transport: faults.wrap(server.handle, 'informer') }).resource(configmaps);
      const errors: unknown[] = [];
      const informer = createInformer({ api, initialList, backoff: { initialMs: 1, maxMs: 8, jitter: 0 }, pageSize: 7, onError: (e) => errors.push(e) });
      const early = trackingHandler();
      informer.addEventHandler(early.handler);
      const ctl = new AbortController();
      // A few objects before the start, so the first list is paginated.
      for (let i = 0; i < 10; i++) await writer.create(cm('default', `pre-${i}`));
      const run = informer.run(ctl.signal);
      try {
        assert.equal(await informer.waitForSync(AbortSignal.timeout(10_000)), true);
        let late: ReturnType<typeof trackingHandler> | undefined;

        const namespaces = ['default', 'kube-system'];
        for (let op = 0; op < 400; op++) {
          const ns = namespaces[Math.floor(random() * namespaces.length)]!;
          const name = `cm-${Math.floor(random() * 15)}`;
          const r = random();
          try {
            if (r < 0.4) await writer.create(cm(ns, name, { v: String(op) }));
            else if (r < 0.75) await writer.patch(name, { data: { v: String(op) } }, 'merge', { namespace: ns });
            else await writer.delete(name, { namespace: ns });
          } catch (err) {
            if (!(err instanceof ApiError) || (err.code !== 404 && err.code !== 409)) throw err;
          }
          if (op === 200) {
            late = trackingHandler();
            informer.addEventHandler(late.handler);
          }
          await new Promise((res) => setImmediate(res));
          if (random() < 0.3) await new Promise((res) => setTimeout(res, Math.floor(random() * 3)));
        }

        const expected = async () => rvMap((await writer.list({ namespace: '' })).items);
        const want = await eventually('the cache to equal the server list', async () => {
          const want = await expected();
          assert.deepEqual(rvMap(informer.store.list()), want, 'cache equals the server list');
          return want;
        });
        for (const t of [early, late!]) {
          assert.deepEqual(t.violations, []);
          assert.deepEqual(new Map([...t.seen].map(([k, v]) => [k, v.rv])), want, 'handler view equals the server list');
        }
        // The run really was disturbed in every way a watch can break.
        const seen = (prefix: string) => faults.log.some((f) => f.fault.startsWith(prefix));
        assert.ok(seen('watch ended') && seen('watch reset') && seen('410 Expired'), faults.describe());
        assert.ok(errors.length > 0);
      } finally {
        // A failed check must not leave the informer and the server running (the run would hang).
        ctl.abort();
        await run;
        await server.close();
      }
    });
  }
});

describe('informer', () => {
  it('calls handlers after the store is updated, and late handlers get the cached objects', async () => {
    const server = await startServer();
    const api = createClient({ transport: server.handle }).resource(configmaps);
    await api.create(cm('default', 'a'));
    const informer = createInformer({ api });
    const seenInStore: boolean[] = [];
    informer.addEventHandler({
      onAdd: (o, initial) => seenInStore.push(informer.store.get(objectKey(o)) === o && initial),
      onDelete: (o) => seenInStore.push(informer.store.get(objectKey(o)) === undefined),
    });
    const ctl = new AbortController();
    const run = informer.run(ctl.signal);
    assert.equal(informer.run(ctl.signal), run, 'run twice is the same run');
    assert.equal(informer.hasSynced(), false);
    assert.equal(await informer.waitForSync(), true);
    assert.deepEqual(seenInStore, [true]);
    await api.delete('a', { namespace: 'default' });
    await until('the delete handled', () => seenInStore.length === 2);
    assert.deepEqual(seenInStore, [true, true]);

    await api.create(cm('default', 'b'));
    await until('b cached', () => informer.store.size() === 1);
    const late: string[] = [];
    informer.addEventHandler({ onAdd: (o, initial) => late.push(`${objectKey(o)}:${initial}`) });
    assert.deepEqual(late, ['default/b:true'], 'synthetic add before addEventHandler returns');
    ctl.abort();
    await run;
    await server.close();
  });

  it('in-process, informers cache the server’s own frozen objects, one object for all of them (sharedObjects: false: their own)', async () => {
    const server = await startServer();
    const requests: { objects?: boolean }[] = [];
    const api = createClient({ transport: (req) => (requests.push(req), server.handle(req)) }).resource(configmaps);
    await api.create(cm('default', 'a'));
    const one = createInformer({ api });
    const two = createInformer({ api });
    const own = createInformer({ api, sharedObjects: false });
    const ctl = new AbortController();
    const runs = [one, two, own].map((i) => i.run(ctl.signal));
    for (const i of [one, two, own]) assert.equal(await i.waitForSync(), true);
    await api.update({ ...cm('default', 'a', { v: '2' }) });
    const changed = (i: typeof one) => (i.store.get('default/a')?.data as Record<string, string> | undefined)?.v === '2';
    await until('the change cached', () => [one, two, own].every(changed));
    const shared = one.store.get('default/a')!;
    assert.equal(two.store.get('default/a'), shared, 'the very same object');
    assert.notEqual(own.store.get('default/a'), shared);
    assert.deepEqual(own.store.get('default/a'), shared);
    assert.ok(Object.isFrozen(shared) && Object.isFrozen(shared.metadata) && Object.isFrozen(shared.data));
    assert.throws(() => {
      (shared.data as Record<string, string>).v = '3';
    }, TypeError);
    const watches = requests.filter((r) => (r as { query?: Record<string, string> }).query?.watch === 'true');
    assert.deepEqual(watches.map((r) => r.objects === true), [true, true, false]);
    ctl.abort();
    await Promise.all(runs);
    await server.close();
  });

  it('keeps calling the other handlers when one throws, and stops calling removed ones', async () => {
    const server = await startServer();
    const api = createClient({ transport: server.handle }).resource(configmaps);
    const failures: unknown[] = [];
    const informer = createInformer({ api, onPanic: (e) => failures.push(e) });
    const got: string[] = [];
    informer.addEventHandler({ onAdd: () => { throw new Error('boom'); } });
    const reg = informer.addEventHandler({ onAdd: (o) => got.push(o.metadata!.name!) });
    const ctl = new AbortController();
    const run = informer.run(ctl.signal);
    await informer.waitForSync();
    await api.create(cm('default', 'x'));
    await until('x handled', () => got.length === 1);
    assert.deepEqual(got, ['x']);
    assert.equal(failures.length, 1);
    reg.remove();
    await api.create(cm('default', 'y'));
    await until('y cached', () => informer.store.size() === 2);
    assert.deepEqual(got, ['x']);
    ctl.abort();
    await run;
    await server.close();
  });

  it('resyncs every resyncMs on the injected clock, and waitForSync answers false when stopped first', async () => {
    const clock = createFakeClock();
    const objects = [cm('default', 'r')];
    objects[0]!.metadata!.resourceVersion = '5';
    const api = {
      list: async () => ({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '5' }, items: objects }),
      // A watch that stays open without events until its signal aborts, as the real client's does.
      watch: (o: { signal?: AbortSignal }) => ({
        async *[Symbol.asyncIterator]() {
          await new Promise((resolve) => o.signal?.addEventListener('abort', resolve, { once: true }));
        },
      }),
    };
    const informer = createInformer({ api: api as never, clock, resyncMs: 1000, initialList: 'paged' });
    const updates: string[] = [];
    informer.addEventHandler({ onUpdate: (a, b) => updates.push(`${a === b}@${clock.now()}`) });
    const ctl = new AbortController();
    void informer.run(ctl.signal);
    assert.equal(await informer.waitForSync(), true);
    await clock.advanceAsync(2500);
    assert.deepEqual(updates, ['true@1000', 'true@2000']);
    ctl.abort();
    await flushMicrotasks();
    assert.equal(clock.pendingTimers(), 0, 'the resync timer is cancelled on stop');

    const hangingList = (o: { signal?: AbortSignal }) =>
      new Promise((_, reject) => o.signal?.addEventListener('abort', () => reject(o.signal!.reason), { once: true }));
    const never = createInformer({ api: { ...api, list: hangingList } as never, clock, initialList: 'paged' });
    const c2 = new AbortController();
    const done = never.run(c2.signal);
    const waiting = never.waitForSync();
    c2.abort();
    await done;
    assert.equal(await waiting, false);
  });
});
