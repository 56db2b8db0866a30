import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '@kplane/api/testing';
import type { RawResponse } from '@kplane/api';
import { createMemoryBackend } from '@kplane/storage';
import { readEvents, startTestServer, type TestServer } from '../testing.js';
import { holdReadsOf } from './edge.fixture.js';
import { VirtualTimers } from '../registry/timers.js';
import { typedListQuery } from './options.js';
import { createApiServer } from './server.js';

const CM = '/api/v1/namespaces/default/configmaps';

function cm(name: string, data: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data };
}

describe('API handler', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t.close();
  });

  it('creates the system namespaces at start', async () => {
    const r = await t.call('GET', '/api/v1/namespaces');
    assert.equal(r.status, 200);
    const names = r.body.items.map((n: any) => n.metadata.name).sort();
    assert.deepEqual(names, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    assert.equal(r.body.items[0].status.phase, 'Active');
  });

  it('creates, reads, and refuses duplicates and stale updates', async () => {
    const created = await t.call('POST', CM, cm('a', { k: '1' }));
    assert.equal(created.status, 201);
    assert.match(created.body.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(created.body.metadata.creationTimestamp, /Z$/);
    const dup = await t.call('POST', CM, cm('a'));
    assert.equal(dup.status, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');
    assert.equal(dup.body.message, 'configmaps "a" already exists');
    const rv = created.body.metadata.resourceVersion;
    const up = await t.call('PUT', `${CM}/a`, { ...created.body, data: { k: '2' } });
    assert.equal(up.status, 200);
    assert.ok(Number(up.body.metadata.resourceVersion) > Number(rv));
    const stale = await t.call('PUT', `${CM}/a`, { ...created.body, data: { k: '3' } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    assert.equal(stale.body.message, 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again');
    const missing = await t.call('GET', `${CM}/zz`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'configmaps "zz" not found');
  });

  it('answers a create with the JSON it stored, as a GET of the object then serves it', async () => {
    // The body's fields in another order than the stored form's (apiVersion, kind, metadata first).
    const body = JSON.stringify({ data: { k: 'v' }, metadata: { labels: { a: 'b' }, name: 'stored-json' }, kind: 'ConfigMap', apiVersion: 'v1' });
    const created = await t.server.handle({ method: 'POST', path: CM, query: {}, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) });
    assert.equal(created.status, 201);
    assert.equal(created.headers['content-type'], 'application/json');
    const got = await t.server.handle({ method: 'GET', path: `${CM}/stored-json`, query: {}, headers: {} });
    assert.equal(Buffer.from(created.body!).toString(), Buffer.from(got.body!).toString());
    const obj = JSON.parse(Buffer.from(created.body!).toString());
    assert.deepEqual(Object.keys(obj), ['apiVersion', 'kind', 'metadata', 'data']);
    assert.match(obj.metadata.resourceVersion, /^[0-9]+$/);
    assert.equal(obj.metadata.managedFields[0].operation, 'Update');
    // A table or metadata-only answer of a create is built from the object, as before.
    const meta = await t.call('POST', CM, cm('stored-json-meta'), { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' });
    assert.equal(meta.status, 201);
    assert.equal(meta.body.kind, 'PartialObjectMetadata');
    assert.equal(meta.body.metadata.name, 'stored-json-meta');
  });

  it('answers 400 for malformed bodies and wrong kinds, 404 for unknown resources and namespaces', async () => {
    assert.equal((await t.call('POST', CM, '{"kind": ')).status, 400);
    const wrongKind = await t.call('POST', CM, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    assert.equal(wrongKind.status, 400);
    assert.equal(wrongKind.body.reason, 'BadRequest');
    assert.equal((await t.call('GET', '/api/v1/namespaces/default/widgets')).status, 404);
    const noNs = await t.call('POST', '/api/v1/namespaces/nope/configmaps', cm('x'));
    assert.equal(noNs.status, 404);
    assert.equal(noNs.body.message, 'namespaces "nope" not found');
  });

  it('validates names with field causes', async () => {
    const r = await t.call('POST', CM, cm('Bad_Name'));
    assert.equal(r.status, 422);
    assert.equal(r.body.reason, 'Invalid');
    assert.equal(r.body.details.causes[0].field, 'metadata.name');
  });

  it('rejects unknown fields under Strict, warns under Warn', async () => {
    const strict = await t.call('POST', `${CM}?fieldValidation=Strict`, { ...cm('s'), datta: {} });
    assert.equal(strict.status, 400);
    assert.equal(strict.body.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datta"');
    const warn = await t.call('POST', `${CM}?fieldValidation=Warn`, { ...cm('w'), datta: {} });
    assert.equal(warn.status, 201);
    assert.match(warn.headers.warning ?? '', /unknown field \\"datta\\"/);
    assert.equal(warn.body.datta, undefined);
  });

  it('does not store anything under dryRun=All', async () => {
    const r = await t.call('POST', `${CM}?dryRun=All`, cm('dry'));
    assert.equal(r.status, 201);
    assert.equal((await t.call('GET', `${CM}/dry`)).status, 404);
  });

  it('keeps an object with finalizers until they are removed', async () => {
    await t.call('POST', CM, cm('garde', { a: '1' }, { finalizers: ['cours.exemple/archivage'] }));
    // kube-apiserver answers 200 with the object; 202 only for orphanDependents=false.
    const del = await t.call('DELETE', `${CM}/garde`);
    assert.equal(del.status, 200);
    assert.ok(del.body.metadata.deletionTimestamp);
    const cur = await t.call('GET', `${CM}/garde`);
    assert.deepEqual(cur.body.metadata.finalizers, ['cours.exemple/archivage']);
    const add = await t.call('PATCH', `${CM}/garde`, { metadata: { finalizers: ['cours.exemple/archivage', 'x.io/y'] } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(add.status, 422);
    const rm = await t.call('PATCH', `${CM}/garde`, [{ op: 'remove', path: '/metadata/finalizers' }], { 'content-type': 'application/json-patch+json' });
    assert.equal(rm.status, 200);
    assert.equal((await t.call('GET', `${CM}/garde`)).status, 404);
  });

  it('lets a JSON patch test the resourceVersion, and pins a patch that names one', async () => {
    const c = await t.call('POST', CM, cm('pinned', { a: '1' }));
    const rv = c.body.metadata.resourceVersion;
    const ok = await t.call('PATCH', `${CM}/pinned`, [{ op: 'test', path: '/metadata/resourceVersion', value: rv }, { op: 'replace', path: '/data/a', value: '2' }], { 'content-type': 'application/json-patch+json' });
    assert.equal(ok.status, 200);
    const stale = await t.call('PATCH', `${CM}/pinned`, [{ op: 'test', path: '/metadata/resourceVersion', value: rv }, { op: 'replace', path: '/data/a', value: '3' }], { 'content-type': 'application/json-patch+json' });
    assert.equal(stale.status, 422);
    const pinned = await t.call('PATCH', `${CM}/pinned`, { metadata: { resourceVersion: rv }, data: { a: '4' } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(pinned.status, 409);
    assert.equal((await t.call('GET', `${CM}/pinned`)).body.data.a, '2');
  });

  it('treats a uid in a patch as a precondition', async () => {
    const c = await t.call('POST', CM, cm('uidpre'));
    const bad = await t.call('PATCH', `${CM}/uidpre`, { metadata: { uid: 'other', labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(bad.status, 409);
    assert.match(bad.body.message, /Precondition failed: UID in precondition: other, UID in object meta: /);
    const ok = await t.call('PATCH', `${CM}/uidpre`, { metadata: { uid: c.body.metadata.uid, labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(ok.status, 200);
  });

  it('serves one store of Events through both core/v1 and events.k8s.io/v1', async () => {
    await t.call('POST', '/api/v1/namespaces/default/events', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'both' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'Started', message: 'hello', type: 'Normal', source: { component: 'kubelet' },
    });
    const v1 = await t.call('GET', '/apis/events.k8s.io/v1/namespaces/default/events/both');
    assert.equal(v1.status, 200);
    assert.equal(v1.body.note, 'hello');
    assert.equal(v1.body.regarding.name, 'p');
    const created = await t.call('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'newer' }, regarding: { kind: 'Pod', name: 'q', namespace: 'default' },
      reason: 'Killing', note: 'bye', type: 'Normal', action: 'Kill', reportingController: 'kplane/kubelet', reportingInstance: 'n1', eventTime: '2026-12-02T00:00:00.000000Z',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const core = await t.call('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dq');
    assert.deepEqual(core.body.items.map((e: any) => [e.apiVersion, e.message]), [['v1', 'bye']]);
  });

  it('omits empty metadata lists and maps, as Kubernetes does', async () => {
    const c = await t.call('POST', CM, cm('bare', {}, { labels: {}, finalizers: [], ownerReferences: [] }));
    assert.equal(c.status, 201);
    for (const k of ['labels', 'finalizers', 'ownerReferences']) assert.equal(c.body.metadata[k], undefined, k);
    await t.call('PATCH', `${CM}/bare`, { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    const r = await t.call('PATCH', `${CM}/bare`, [{ op: 'remove', path: '/metadata/labels/a' }], { 'content-type': 'application/json-patch+json' });
    assert.equal(r.body.metadata.labels, undefined);
  });

  it('answers a DELETE with the deleted object for the kinds kube-apiserver returns it for, else a Status', async () => {
    const svc = await t.call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'gone' }, spec: { ports: [{ port: 80 }] } });
    assert.equal(svc.status, 201, JSON.stringify(svc.body));
    const delSvc = await t.call('DELETE', '/api/v1/namespaces/default/services/gone');
    assert.deepEqual([delSvc.status, delSvc.body.kind, delSvc.body.metadata.name, delSvc.body.metadata.uid], [200, 'Service', 'gone', svc.body.metadata.uid]);
    await t.call('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gone' } });
    const delSa = await t.call('DELETE', '/api/v1/namespaces/default/serviceaccounts/gone');
    assert.deepEqual([delSa.status, delSa.body.kind, delSa.body.metadata.name], [200, 'ServiceAccount', 'gone']);
    await t.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going' } });
    const delNs = await t.call('DELETE', '/api/v1/namespaces/going');
    assert.deepEqual([delNs.status, delNs.body.kind, delNs.body.status.phase], [200, 'Namespace', 'Terminating']);
    const pvc = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'gone' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    assert.equal((await t.call('POST', '/api/v1/namespaces/default/persistentvolumeclaims', pvc)).status, 201);
    const delPvc = await t.call('DELETE', '/api/v1/namespaces/default/persistentvolumeclaims/gone');
    assert.deepEqual([delPvc.status, delPvc.body.kind], [200, 'PersistentVolumeClaim']);
    await t.call('POST', CM, cm('gone'));
    const delCm = await t.call('DELETE', `${CM}/gone`);
    assert.deepEqual([delCm.status, delCm.body.kind, delCm.body.status, delCm.body.details.name], [200, 'Status', 'Success', 'gone']);
    // Left in place by a finalizer: 200 with the object, 202 when orphanDependents=false was asked.
    await t.call('POST', CM, cm('held', {}, { finalizers: ['example.com/hold'] }));
    const held = await t.call('DELETE', `${CM}/held`, { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false });
    assert.deepEqual([held.status, held.body.kind], [202, 'ConfigMap']);
  });

  it('honours delete preconditions', async () => {
    const c = await t.call('POST', CM, cm('pre'));
    const bad = await t.call('DELETE', `${CM}/pre`, { preconditions: { uid: 'nope' } });
    assert.equal(bad.status, 409);
    assert.match(bad.body.message, /Precondition failed: UID in precondition: nope/);
    const ok = await t.call('DELETE', `${CM}/pre`, { preconditions: { uid: c.body.metadata.uid } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.status, 'Success');
  });

  it('pages a list with limit and continue over one snapshot', async () => {
    await t.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paged' } });
    for (let i = 0; i < 7; i++) await t.call('POST', '/api/v1/namespaces/paged/configmaps', cm(`c${i}`, {}, { labels: { even: String(i % 2 === 0) } }));
    const first = await t.call('GET', '/api/v1/namespaces/paged/configmaps?limit=3');
    assert.equal(first.body.items.length, 3);
    assert.ok(first.body.metadata.continue);
    await t.call('POST', '/api/v1/namespaces/paged/configmaps', cm('c9'));
    const second = await t.call('GET', `/api/v1/namespaces/paged/configmaps?limit=10&continue=${first.body.metadata.continue}`);
    assert.deepEqual(second.body.items.map((c: any) => c.metadata.name), ['c3', 'c4', 'c5', 'c6']);
    assert.equal(second.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
    const even = await t.call('GET', '/api/v1/namespaces/paged/configmaps?labelSelector=even%3Dtrue');
    assert.equal(even.body.items.length, 4);
    const byName = await t.call('GET', '/api/v1/namespaces/paged/configmaps?fieldSelector=metadata.name%3Dc2');
    assert.deepEqual(byName.body.items.map((c: any) => c.metadata.name), ['c2']);
    const badField = await t.call('GET', '/api/v1/namespaces/paged/configmaps?fieldSelector=spec.x%3Dy');
    assert.equal(badField.status, 400);
  });

  it('bumps generation on spec changes only, and serves scale', async () => {
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const path = '/apis/apps/v1/namespaces/default/deployments';
    const c = await t.call('POST', path, d);
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.equal(c.body.metadata.generation, 1);
    const l = await t.call('PATCH', `${path}/web`, { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(l.body.metadata.generation, 1);
    const s = await t.call('PATCH', `${path}/web/scale`, { spec: { replicas: 3 } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.equal(s.body.kind, 'Scale');
    assert.equal(s.body.spec.replicas, 3);
    const g = await t.call('GET', `${path}/web`);
    assert.equal(g.body.metadata.generation, 2);
    // Status writes through /status do not touch the spec or the generation.
    const st = await t.call('PUT', `${path}/web/status`, { ...g.body, spec: { ...g.body.spec, replicas: 9 }, status: { observedGeneration: 2, replicas: 3 } });
    assert.equal(st.status, 200, JSON.stringify(st.body));
    assert.equal(st.body.spec.replicas, 3);
    assert.equal(st.body.status.replicas, 3);
    assert.equal(st.body.metadata.generation, 2);
  });

  it('serves tables', async () => {
    const r = await t.call('GET', CM, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    assert.equal(r.body.kind, 'Table');
    assert.ok(r.body.columnDefinitions.length >= 3);
    assert.equal(r.body.rows[0].object.kind, 'PartialObjectMetadata');
  });

  it('watches from a resourceVersion and reports a too old one as 410', async () => {
    const list = await t.call('GET', CM);
    const rv = list.body.metadata.resourceVersion;
    const abort = new AbortController();
    const w = await t.raw('GET', CM, { watch: 'true', resourceVersion: rv }, {}, abort.signal);
    await t.call('POST', CM, cm('watched'));
    await t.call('DELETE', `${CM}/watched`);
    const events = await readEvents(w, 2);
    abort.abort();
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata?.name]), [
      ['ADDED', 'watched'],
      ['DELETED', 'watched'],
    ]);
  });

  it('streams a list (sendInitialEvents): every object as ADDED, page after page, then the initial-events-end bookmark, then changes', async () => {
    const own = await startTestServer();
    const NS = '/api/v1/namespaces/streamed/configmaps';
    try {
      await own.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'streamed' } });
      // More than one page of initial events (500 objects a page); one with non-ASCII data.
      for (let i = 0; i < 620; i++) await own.call('POST', NS, { ...cm(`s-${String(i).padStart(3, '0')}`, { v: i === 7 ? 'größe ✓' : String(i) }), metadata: { name: `s-${String(i).padStart(3, '0')}`, labels: { odd: String(i % 2) } } });
      const list = await own.call('GET', NS);
      const q = { watch: 'true', sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' };
      const refused = await own.call('GET', `${NS}?watch=true&sendInitialEvents=true`);
      assert.equal(refused.status, 422);
      const abort = new AbortController();
      const w = await own.raw('GET', NS, q, {}, abort.signal);
      const initial = await readEvents(w, 621, 10_000);
      abort.abort();
      assert.equal(initial.length, 621);
      assert.ok(initial.slice(0, 620).every((e) => e.type === 'ADDED'));
      assert.deepEqual(initial.slice(0, 620).map((e) => e.object), list.body.items, 'the initial events are the list, in order, with resourceVersions');
      assert.equal((initial[7]!.object as { data?: Record<string, string> }).data?.['v'], 'größe ✓');
      const end = initial[620]!;
      assert.equal(end.type, 'BOOKMARK');
      assert.deepEqual(end.object.metadata, { resourceVersion: list.body.metadata.resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } });

      // With a label selector (objects decoded and filtered), and changes after the bookmark.
      const ctl = new AbortController();
      const sel = await own.raw('GET', NS, { ...q, labelSelector: 'odd=1' }, {}, ctl.signal);
      const later = own.call('POST', NS, { ...cm('s-new'), metadata: { name: 's-new', labels: { odd: '1' } } });
      const events = await readEvents(sel, 312, 10_000);
      ctl.abort();
      await later;
      assert.equal(events.filter((e) => e.type === 'ADDED').length, 311);
      assert.equal(events[310]!.type, 'BOOKMARK');
      assert.deepEqual([events[311]!.type, events[311]!.object.metadata?.name], ['ADDED', 's-new']);
    } finally {
      await own.close();
    }
  });

  it('serves a watch older than the cache window from storage, and answers 410 once storage compacted it', async () => {
    const small = await startTestServer({ watchCacheCapacity: 3 });
    try {
      const first = await small.call('POST', CM, cm('w0'));
      for (let i = 1; i < 6; i++) await small.call('POST', CM, cm(`w${i}`));
      const replayed = await small.raw('GET', CM, { watch: 'true', resourceVersion: first.body.metadata.resourceVersion });
      const events = await readEvents(replayed, 5);
      assert.deepEqual(events.map((e) => [e.type, e.object.metadata?.name]), [1, 2, 3, 4, 5].map((i) => ['ADDED', `w${i}`]));
      await small.backend.compact(await small.backend.currentRevision());
      const old = await small.raw('GET', CM, { watch: 'true', resourceVersion: first.body.metadata.resourceVersion });
      const err = await readEvents(old, 1);
      assert.equal(err[0]?.type, 'ERROR');
      assert.equal((err[0]?.object as any).code, 410);
      assert.equal((err[0]?.object as any).reason, 'Expired');
      assert.match((err[0]?.object as any).message, /^too old resource version: \d+ \(\d+\)$/);
    } finally {
      await small.close();
    }
  });

  it('lists at an exact older resourceVersion', async () => {
    const c = await t.call('POST', CM, cm('exact', { v: '1' }));
    const rv = c.body.metadata.resourceVersion;
    await t.call('PATCH', `${CM}/exact`, { data: { v: '2' } }, { 'content-type': 'application/merge-patch+json' });
    const old = await t.call('GET', `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact&fieldSelector=metadata.name%3Dexact`);
    assert.equal(old.body.metadata.resourceVersion, rv);
    assert.equal(old.body.items[0].data.v, '1');
    const now = await t.call('GET', `${CM}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan&fieldSelector=metadata.name%3Dexact`);
    assert.equal(now.body.items[0].data.v, '2');
    const bad = await t.call('GET', `${CM}?resourceVersion=1&resourceVersionMatch=Sometimes`);
    assert.equal(bad.status, 422);
  });

  it('refuses annotations over 256 KiB', async () => {
    const r = await t.call('POST', CM, cm('annotated', {}, { annotations: { big: 'x'.repeat(256 * 1024) } }));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /metadata.annotations: Too long: must have at most 262144 bytes/);
  });

  it('sends bookmarks when asked and ends a watch after timeoutSeconds', async () => {
    const fast = await startTestServer({ bookmarkIntervalMs: 20 });
    try {
      const list = await fast.call('GET', CM);
      const w = await fast.raw('GET', CM, { watch: 'true', allowWatchBookmarks: 'true', resourceVersion: list.body.metadata.resourceVersion, timeoutSeconds: '1' });
      const events = await readEvents(w, 100, 3000);
      assert.ok(events.length >= 2, `got ${events.length} events`);
      assert.ok(events.every((e) => e.type === 'BOOKMARK'));
      assert.equal(events[0]!.object.kind, 'ConfigMap');
      assert.match(events[0]!.object.metadata!.resourceVersion!, /^\d+$/);
      // The stream ended by itself (timeoutSeconds=1), long before 100 events.
      assert.ok(events.length < 100);
    } finally {
      await fast.close();
    }
  });

  it('serves discovery, aggregated discovery and OpenAPI', async () => {
    const agg = await t.call('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
    assert.match(agg.headers['content-type']!, /apidiscovery.k8s.io;v=v2/);
    assert.ok(agg.body.items.some((g: any) => g.metadata.name === 'apps'));
    const core = await t.call('GET', '/api/v1');
    assert.ok(core.body.resources.some((r: any) => r.name === 'configmaps' && r.shortNames?.includes('cm')));
    const root = await t.call('GET', '/openapi/v3');
    const url = root.body.paths['api/v1'].serverRelativeURL as string;
    const doc = await t.call('GET', url.split('?')[0]!);
    assert.ok(doc.body.components.schemas['io.k8s.api.core.v1.Pod']);
  });
});

/** Everything a stray write could touch: namespaces, configmaps and secrets, with the store's revision. */
async function snapshot(t: TestServer): Promise<string> {
  const parts = await Promise.all(['/api/v1/namespaces', '/api/v1/configmaps', '/api/v1/secrets'].map((p) => t.call('GET', p)));
  return JSON.stringify(parts.map((p) => p.body));
}

function assertStatus(r: { status: number; body: any }, code: number, reason: string, message?: string | RegExp): void {
  assert.equal(r.status, code, JSON.stringify(r.body));
  assert.equal(r.body.kind, 'Status');
  assert.equal(r.body.apiVersion, 'v1');
  assert.equal(r.body.status, 'Failure');
  assert.equal(r.body.code, code);
  assert.equal(r.body.reason, reason);
  if (typeof message === 'string') assert.equal(r.body.message, message);
  else if (message) assert.match(r.body.message, message);
}

const NOT_ALLOWED = 'the server does not allow this method on the requested resource';
const NOT_FOUND = 'the server could not find the requested resource';

describe('request edge: paths, verbs and typed parameters', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    assert.equal((await t.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } })).status, 201);
    assert.equal((await t.call('POST', '/api/v1/namespaces/a/configmaps', cm('c', { k: 'v' }))).status, 201);
    assert.equal((await t.call('POST', '/api/v1/namespaces/a/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'dg==' } })).status, 201);
  });
  after(async () => {
    await t.close();
  });

  it('never normalises a path: . and .. and names with / or % are refused, nothing changes', async () => {
    const before = await snapshot(t);
    const A = '/api/v1/namespaces/a';
    const cases: [string, string, unknown, number, string, string][] = [
      ['DELETE', `${A}/configmaps/%2e%2e`, undefined, 400, 'BadRequest', `Name parameter invalid: "..": may not be '..'`],
      ['DELETE', `${A}/configmaps/%2E%2E`, undefined, 400, 'BadRequest', `Name parameter invalid: "..": may not be '..'`],
      ['DELETE', `${A}/configmaps/..`, undefined, 400, 'BadRequest', `Name parameter invalid: "..": may not be '..'`],
      ['DELETE', `${A}/configmaps/%2e`, undefined, 400, 'BadRequest', `Name parameter invalid: ".": may not be '.'`],
      ['DELETE', `${A}/secrets/%2e%2e/%2e%2e`, undefined, 404, 'NotFound', NOT_FOUND],
      ['PATCH', `${A}/configmaps/%2e%2e`, { metadata: { labels: { x: 'y' } } }, 400, 'BadRequest', `Name parameter invalid: "..": may not be '..'`],
      ['PUT', `${A}/configmaps/%2e%2e`, cm('..'), 400, 'BadRequest', `Name parameter invalid: "..": may not be '..'`],
      ['GET', `${A}/configmaps/%2e%2e/secrets/s`, undefined, 404, 'NotFound', NOT_FOUND],
      ['GET', `${A}/configmaps/%2e%2e%2fsecrets%2fs`, undefined, 404, 'NotFound', NOT_FOUND],
      ['GET', `${A}/configmaps/c%25`, undefined, 400, 'BadRequest', `Name parameter invalid: "c%": may not contain '%'`],
      ['DELETE', `${A}/configmaps/x%2F%25`, undefined, 404, 'NotFound', NOT_FOUND],
      ['DELETE', '/api/v1/namespaces/%2e%2e', undefined, 400, 'BadRequest', `Name parameter invalid: "..": may not be '..'`],
      ['DELETE', '/api/v1/namespaces/%2e%2e/configmaps', undefined, 400, 'BadRequest', `Namespace parameter invalid: "..": may not be '..'`],
      ['DELETE', '/api/v1/namespaces/a%2Fb/configmaps', undefined, 404, 'NotFound', NOT_FOUND],
      ['DELETE', `${A}//configmaps/c`, undefined, 404, 'NotFound', NOT_FOUND],
      ['DELETE', `${A}/configmaps//c`, undefined, 404, 'NotFound', NOT_FOUND],
      ['GET', `${A}/configmaps/%zz`, undefined, 400, 'BadRequest', 'invalid URL escape "%zz"'],
    ];
    for (const [method, path, body, code, reason, message] of cases) {
      const r = await t.call(method, path, body, method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {});
      assertStatus(r, code, reason, message);
    }
    // A trailing slash is ignored, as kube-apiserver does; the object is still there.
    assert.equal((await t.call('GET', `${A}/configmaps/c/`)).body.data.k, 'v');
    assert.equal(await snapshot(t), before);
  });

  it('routes each verb exactly and answers 405 with a Status for anything else', async () => {
    const before = await snapshot(t);
    const A = '/api/v1/namespaces/a';
    const refused: [string, string][] = [
      ['DELETE', '/api/v1/secrets'],
      ['DELETE', '/api/v1/configmaps'],
      ['POST', '/api/v1/configmaps'],
      ['PUT', '/api/v1/configmaps'],
      ['DELETE', '/api/v1/watch/namespaces'],
      ['DELETE', '/api/v1/watch/secrets'],
      ['DELETE', `/api/v1/watch/namespaces/a/configmaps`],
      ['DELETE', `/api/v1/watch/namespaces/a/configmaps/c`],
      ['POST', `/api/v1/watch/namespaces/a/configmaps`],
      ['PATCH', `/api/v1/watch/namespaces/a/configmaps/c`],
      ['DELETE', '/api/v1/namespaces'],
      ['PUT', `${A}/configmaps`],
      ['PATCH', `${A}/configmaps`],
      ['POST', `${A}/configmaps/c`],
      ['CONNECT', `${A}/configmaps/c`],
      ['CONNECT', `${A}/configmaps`],
      ['HEAD', `${A}/configmaps/c`],
      ['OPTIONS', `${A}/configmaps/c`],
      ['DELETE', '/api/v1/namespaces/a/status'],
      ['POST', '/api/v1/namespaces/a/status'],
      ['GET', '/api/v1/namespaces/a/finalize'],
      ['DELETE', '/api/v1/namespaces/a/finalize'],
      ['POST', '/apis/apps/v1/deployments'],
      ['DELETE', '/apis/apps/v1/deployments'],
    ];
    for (const [method, path] of refused) {
      const r = await t.call(method, path, method === 'GET' || method === 'DELETE' ? undefined : cm('c'));
      assertStatus(r, 405, 'MethodNotAllowed', NOT_ALLOWED);
      assert.deepEqual(r.body.details, {}, `${method} ${path}`);
    }
    // Unknown resources and subresources stay 404 whatever the method.
    assertStatus(await t.call('CONNECT', `${A}/widgets/x`), 404, 'NotFound', NOT_FOUND);
    assertStatus(await t.call('DELETE', `/api/v1/watch/namespaces/a/configmaps/c/status`), 404, 'NotFound', NOT_FOUND);
    for (const [method, path] of [['GET', '/api/v1/configmaps/c'], ['DELETE', '/api/v1/secrets/s'], ['GET', '/api/v1/watch/configmaps/c'], ['PUT', '/api/v1/pods/p/status']]) {
      assertStatus(await t.call(method!, path!), 404, 'NotFound', NOT_FOUND);
    }
    // The cluster-wide paths still serve list and watch.
    assert.deepEqual((await t.call('GET', '/api/v1/secrets')).body.items.map((s: any) => s.metadata.name), ['s']);
    const w = await t.raw('GET', '/api/v1/watch/configmaps', { timeoutSeconds: '1' });
    assert.equal(w.status, 200);
    assert.deepEqual((await readEvents(w, 1)).map((e) => e.object.metadata?.name), ['c']);
    assert.equal(await snapshot(t), before);
  });

  it('serves deletecollection on a collection of the resource\'s own scope', async () => {
    await t.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wipe' } });
    await t.call('POST', '/api/v1/namespaces/wipe/configmaps', cm('one'));
    const r = await t.call('DELETE', '/api/v1/namespaces/wipe/configmaps');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.items.map((i: any) => i.metadata.name), ['one']);
    // Only that namespace lost its configmaps.
    assert.equal((await t.call('GET', '/api/v1/namespaces/a/configmaps/c')).status, 200);
  });

  it('type-checks list and watch parameters as int64 and bools', async () => {
    const before = await snapshot(t);
    const L = '/api/v1/namespaces/a/configmaps';
    const bad: [string, string][] = [
      ['limit=abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
      ['limit=1e3', 'strconv.ParseInt: parsing "1e3": invalid syntax'],
      ['limit=', 'strconv.ParseInt: parsing "": invalid syntax'],
      ['limit=9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
      ['limit=99999999999999999999999', 'strconv.ParseInt: parsing "99999999999999999999999": value out of range'],
      ['watch=true&timeoutSeconds=1e100', 'strconv.ParseInt: parsing "1e100": invalid syntax'],
      ['watch=true&timeoutSeconds=1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
      ['watch=true&timeoutSeconds=-9223372036854775809', 'strconv.ParseInt: parsing "-9223372036854775809": value out of range'],
    ];
    for (const [qs, message] of bad) assertStatus(await t.call('GET', `${L}?${qs}`), 400, 'BadRequest', message);
    // A deletecollection with a bad limit deletes nothing.
    assertStatus(await t.call('DELETE', `${L}?limit=x`), 400, 'BadRequest', 'strconv.ParseInt: parsing "x": invalid syntax');
    // The largest int64 and a negative limit mean "no limit", as in kube-apiserver.
    for (const limit of ['9223372036854775807', '%2B9007199254740993', '-1']) {
      const r = await t.call('GET', `${L}?limit=${limit}`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.items.map((i: any) => i.metadata.name), ['c']);
      assert.equal(r.body.metadata.continue, undefined);
    }
    // Values a timer cannot hold are cut to the longest it can (about 24.8 days), not wrapped.
    assert.equal(typedListQuery({ timeoutSeconds: '9223372036854775807' }).timeoutSeconds, '2147483');
    assert.equal(typedListQuery({ timeoutSeconds: '30', limit: '-7', watch: '0', allowWatchBookmarks: '1' }).timeoutSeconds, '30');
    assert.deepEqual(typedListQuery({ limit: '-7', watch: '0', allowWatchBookmarks: 'True', sendInitialEvents: '' }), { limit: '0', watch: 'false', allowWatchBookmarks: 'true', sendInitialEvents: 'true' });
    assert.deepEqual(typedListQuery({ watch: 'FALSE', allowWatchBookmarks: 't', force: 'yes' }), { watch: 'false', allowWatchBookmarks: 'true', force: 'true' });
    // watch=0 / watch=false list; any other value watches.
    assert.equal((await t.call('GET', `${L}?watch=0`)).body.kind, 'ConfigMapList');
    assert.equal((await t.call('GET', `${L}?watch=FALSE`)).body.kind, 'ConfigMapList');
    const w = await t.raw('GET', L, { watch: 'yes', timeoutSeconds: '1' });
    assert.ok(w.stream);
    assert.equal((await readEvents(w, 1))[0]!.type, 'ADDED');
    assert.equal(await snapshot(t), before);
  });

  it('type-checks every DeleteOptions field, in the body and in the query', async () => {
    const before = await snapshot(t);
    const C = '/api/v1/namespaces/a/configmaps/c';
    const field = (f: string, json: string, type: string) => `json: cannot unmarshal ${json} into Go struct field DeleteOptions.${f} of type ${type}`;
    const bad: [unknown, string][] = [
      [{ gracePeriodSeconds: '0' }, field('gracePeriodSeconds', 'string', 'int64')],
      [{ gracePeriodSeconds: 1.5 }, field('gracePeriodSeconds', 'number 1.5', 'int64')],
      [{ gracePeriodSeconds: 1e100 }, field('gracePeriodSeconds', 'number 1e+100', 'int64')],
      [{ gracePeriodSeconds: true }, field('gracePeriodSeconds', 'bool', 'int64')],
      [{ orphanDependents: 'false' }, field('orphanDependents', 'string', 'bool')],
      [{ propagationPolicy: 1 }, field('propagationPolicy', 'number', 'string')],
      [{ dryRun: 'All' }, field('dryRun', 'string', '[]string')],
      [{ dryRun: [1] }, field('dryRun', 'number', 'string')],
      [{ preconditions: 'x' }, field('preconditions', 'string', 'v1.Preconditions')],
      [{ preconditions: { uid: 5 } }, field('preconditions.uid', 'number', 'string')],
      [{ preconditions: { resourceVersion: {} } }, field('preconditions.resourceVersion', 'object', 'string')],
      [{ kind: 7 }, field('kind', 'number', 'string')],
      [{ apiVersion: [] }, field('apiVersion', 'array', 'string')],
      [{ ignoreStoreReadErrorWithClusterBreakingPotential: 'yes' }, field('ignoreStoreReadErrorWithClusterBreakingPotential', 'string', 'bool')],
      [[], 'json: cannot unmarshal array into Go value of type v1.DeleteOptions'],
      ['"x"', 'json: cannot unmarshal string into Go value of type v1.DeleteOptions'],
    ];
    for (const [body, message] of bad) {
      assertStatus(await t.call('DELETE', C, body), 400, 'BadRequest', message);
      assertStatus(await t.call('DELETE', '/api/v1/namespaces/a/configmaps', body), 400, 'BadRequest', message);
    }
    for (const [qs, message] of [
      ['gracePeriodSeconds=abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
      ['gracePeriodSeconds=0x0', 'strconv.ParseInt: parsing "0x0": invalid syntax'],
      ['gracePeriodSeconds=9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
    ]) {
      assertStatus(await t.call('DELETE', `${C}?${qs}`), 400, 'BadRequest', message);
    }
    const invalid: [unknown, string][] = [
      [{ propagationPolicy: 'Sometimes' }, 'propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan"'],
      [{ dryRun: ['Some'] }, 'dryRun: Unsupported value: "Some": supported values: "All"'],
      [{ orphanDependents: true, propagationPolicy: 'Orphan' }, 'propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set'],
    ];
    for (const [body, message] of invalid) assertStatus(await t.call('DELETE', C, body), 422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: ${message}`);
    assertStatus(await t.call('DELETE', `${C}?dryRun=Some`), 422, 'Invalid', 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Some": supported values: "All"');
    assert.equal(await snapshot(t), before);
    // Well-typed options work: a dry run changes nothing, then a real delete with a null field.
    assert.equal((await t.call('DELETE', C, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], gracePeriodSeconds: 0 })).status, 200);
    assert.equal(await snapshot(t), before);
    await t.call('POST', '/api/v1/namespaces/a/configmaps', cm('gone'));
    assert.equal((await t.call('DELETE', '/api/v1/namespaces/a/configmaps/gone?gracePeriodSeconds=0', { gracePeriodSeconds: null, preconditions: null })).status, 200);
    assert.equal((await t.call('GET', '/api/v1/namespaces/a/configmaps/gone')).status, 404);
    assert.equal((await t.call('GET', C)).status, 200);
  });
});

describe('request edge: request timeout', () => {
  it('answers 504 Timeout after 60 s (virtual) or the shorter timeout parameter, and a bad timeout 400', async () => {
    const held = holdReadsOf(createMemoryBackend(), 'slow');
    const timers = new VirtualTimers();
    const server = createApiServer({ backend: held.backend, timers });
    await server.start();
    try {
      const call = (path: string, query: Record<string, string> = {}) => server.handle({ method: 'GET', path, query, headers: {} });
      const json = (r: RawResponse) => JSON.parse(Buffer.from(r.body!).toString('utf8'));
      const SLOW = '/api/v1/namespaces/default/configmaps/slow';
      const pending = call(SLOW);
      await until('the slow read held', () => held.waiting() === 1, { intervalMs: 0 });
      assert.deepEqual(timers.delays(), [60_000]);
      await timers.advance(59_999);
      assert.equal(held.waiting(), 1);
      await timers.advance(1);
      const r = await pending;
      assert.equal(r.status, 504);
      assert.deepEqual(json(r), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
        reason: 'Timeout',
        details: {},
        code: 504,
      });
      // The timeout parameter shortens the deadline, never lengthens it; 0 means the server's.
      for (const [timeout, ms] of [['5s', 5000], ['1m30s', 60_000], ['0s', 60_000], ['1.5ms', 1.5], ['-1s', 60_000]] as const) {
        const p = call(SLOW, { timeout });
        await until('the deadline timer set', () => timers.delays().length === 1, { intervalMs: 0 });
        assert.deepEqual(timers.delays(), [ms], timeout);
        await timers.advance(ms);
        assert.equal((await p).status, 504);
      }
      for (const [timeout, message] of [
        ['abc', 'invalid timeout specified in the request URL - time: invalid duration "abc"'],
        ['5', 'invalid timeout specified in the request URL - time: missing unit in duration "5"'],
        ['5y', 'invalid timeout specified in the request URL - time: unknown unit "y" in duration "5y"'],
      ]) {
        const bad = await call('/api/v1/namespaces', { timeout });
        assert.equal(bad.status, 400);
        assert.equal(json(bad).message, message);
      }
      // A request that finishes in time clears its timer; a watch gets none.
      assert.equal((await call('/api/v1/namespaces/default')).status, 200);
      const abort = new AbortController();
      const w = await server.handle({ method: 'GET', path: '/api/v1/namespaces', query: { watch: 'true' }, headers: {}, signal: abort.signal });
      assert.equal(w.status, 200);
      assert.ok(!timers.delays().includes(60_000), 'a watch has no request timeout');
      abort.abort();
      // The work behind the timed-out requests goes on to its end once storage answers.
      held.release();
      await until('the held reads to finish', () => held.waiting() === 0, { intervalMs: 0 });
    } finally {
      held.release();
      await server.close();
      await held.backend.close();
    }
  });
});
