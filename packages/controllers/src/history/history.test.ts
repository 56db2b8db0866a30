import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { labelSelectorFromObject, type KubeObject } from '@kplane/api';
import { ControllerRevisions, type ControllerRevision } from '@kplane/runtime';
import { createNamespace, startKplane, type TestKplane } from '../replicaset/test-support.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  controllerRevisionName,
  createControllerHistory,
  equalRevision,
  findEqualRevisions,
  fnv32,
  goJsonMarshal,
  hashControllerRevision,
  newControllerRevision,
  nextRevision,
  ownedOrOrphanRevisions,
  revisionsToTruncate,
  sortControllerRevisions,
} from './index.js';

const enc = (s: string) => new TextEncoder().encode(s);
const set: KubeObject = { metadata: { name: 'web', namespace: 'ns', uid: 'uid-web' } };
const parent = { object: set, apiVersion: 'apps/v1', kind: 'StatefulSet' };
const data = (image: string) => ({ spec: { template: { $patch: 'replace', metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } } } });
const rev = (name: string, revision: number, extra: Partial<ControllerRevision> = {}): ControllerRevision => ({
  metadata: { name, namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z', ...(extra.metadata ?? {}) },
  revision,
  data: extra.data ?? data(name),
});

describe('revision hash', () => {
  it('is FNV-32 (FNV-1), not FNV-1a', () => {
    assert.equal(fnv32(enc('')), 0x811c9dc5);
    assert.equal(fnv32(enc('a')), 0x050c5d7e);
    assert.equal(fnv32(enc('ab')), 0x70772d38);
    assert.equal(fnv32(enc('abc')), 0x439c2f4b);
  });

  it('writes JSON as Go does for a map: sorted keys, HTML characters escaped', () => {
    assert.equal(goJsonMarshal({ b: 1, a: { d: ['<x>', '&'], c: 'y\u2028' } }), '{"a":{"c":"y\\u2028","d":["\\u003cx\\u003e","\\u0026"]},"b":1}');
  });

  it('hashes the data bytes, then the collision count as decimal text', () => {
    const d = data('nginx');
    const bytes = enc(goJsonMarshal(d));
    const plain = fnv32(bytes);
    assert.equal(hashControllerRevision(d), [...String(plain)].map((c) => 'bcdfghjklmnpqrstvwxz2456789'[c.codePointAt(0)! % 27]).join(''));
    const withProbe = fnv32(enc('12'), plain);
    assert.equal(hashControllerRevision(d, 12), [...String(withProbe)].map((c) => 'bcdfghjklmnpqrstvwxz2456789'[c.codePointAt(0)! % 27]).join(''));
    assert.notEqual(hashControllerRevision(d, 0), hashControllerRevision(d));
    assert.equal(hashControllerRevision({ b: 1, a: 2 }), hashControllerRevision({ a: 2, b: 1 }));
  });

  it('gives the hashes Kubernetes gives the same revision data', () => {
    // A defaulted one-container template, as kube-controller-manager 1.32 (creationTimestamp null)
    // and 1.34 (no creationTimestamp) write it into a StatefulSet's revision, collision count 0.
    const template = {
      metadata: { annotations: { test: 'value' }, labels: { app: 'foo' } },
      spec: {
        containers: [{ image: 'test', imagePullPolicy: 'Always', name: 'test', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }],
        dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', schedulerName: 'default-scheduler', securityContext: {}, terminationGracePeriodSeconds: 30,
      },
    };
    const v132 = { spec: { template: { $patch: 'replace', ...template, metadata: { ...template.metadata, creationTimestamp: null } } } };
    const v134 = { spec: { template: { $patch: 'replace', ...template } } };
    assert.equal(hashControllerRevision(v132, 0), 'c77f6d978');
    assert.equal(hashControllerRevision(v134, 0), '776999688b');
  });

  it('names revisions <prefix>-<hash>, the prefix cut at 223 characters', () => {
    assert.equal(controllerRevisionName('web', 'abc'), 'web-abc');
    assert.equal(controllerRevisionName('x'.repeat(300), 'h').length, 225);
  });
});

describe('revisions', () => {
  it('are built with the template labels, the hash label and a controller reference', () => {
    const r = newControllerRevision(parent, { app: 'web' }, data('nginx'), 3, 0);
    const hash = hashControllerRevision(data('nginx'), 0);
    assert.equal(r.metadata?.name, `web-${hash}`);
    assert.deepEqual(r.metadata?.labels, { app: 'web', [CONTROLLER_REVISION_HASH_LABEL]: hash });
    assert.deepEqual(r.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true }]);
    assert.equal(r.revision, 3);
    // Keys in Go's order, as kube's raw bytes (kubectl compares them before a rollback).
    assert.equal(JSON.stringify(newControllerRevision(parent, {}, { b: { z: 1, a: 2 }, a: 0 }, 1).data), '{"a":0,"b":{"a":2,"z":1}}');
  });

  it('are equal by data, and unequal when numeric hash labels differ', () => {
    const a = rev('a', 1, { data: data('x') });
    const b = rev('b', 2, { data: data('x') });
    assert.ok(equalRevision(a, b));
    assert.ok(!equalRevision(a, rev('c', 1, { data: data('y') })));
    assert.ok(equalRevision(undefined, undefined));
    assert.ok(!equalRevision(a, undefined));
    const la = rev('a', 1, { data: data('x'), metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: '7' } } });
    const lb = rev('b', 1, { data: data('x'), metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: '8' } } });
    const lc = rev('c', 1, { data: data('x'), metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: 'bcd' } } });
    assert.ok(!equalRevision(la, lb));
    assert.ok(equalRevision(la, lc));
    assert.deepEqual(findEqualRevisions([a, rev('c', 3, { data: data('y') }), b], a).map((r) => r.metadata?.name), ['a', 'b']);
  });

  it('sort by revision, then creation time, then name', () => {
    const sorted = sortControllerRevisions([
      rev('z', 2),
      rev('b', 1, { metadata: { creationTimestamp: '2026-01-02T00:00:00Z' } }),
      rev('c', 1),
      rev('a', 1),
    ]);
    assert.deepEqual(sorted.map((r) => r.metadata?.name), ['a', 'c', 'b', 'z']);
    assert.equal(nextRevision(sorted), 3);
    assert.equal(nextRevision([]), 1);
  });

  it('truncate the oldest non-live revisions beyond the limit, never live ones', () => {
    const sorted = [1, 2, 3, 4, 5].map((n) => rev(`r${n}`, n));
    const names = (rs: ControllerRevision[]) => rs.map((r) => r.metadata?.name);
    assert.deepEqual(names(revisionsToTruncate(sorted, new Set(['r5']), 2)), ['r1', 'r2']);
    assert.deepEqual(names(revisionsToTruncate(sorted, new Set(['r1', 'r5']), 2)), ['r2']);
    assert.deepEqual(names(revisionsToTruncate(sorted, new Set(['r1', 'r2', 'r3', 'r4', 'r5']), 0)), []);
    assert.deepEqual(names(revisionsToTruncate(sorted, new Set(), 10)), []);
    assert.deepEqual(names(revisionsToTruncate(sorted, new Set(['r4']), 0)), ['r1', 'r2', 'r3', 'r5']);
  });

  it('owned or orphan: matching the selector, in the namespace, controlled by the parent or nobody', () => {
    const sel = labelSelectorFromObject({ matchLabels: { app: 'web' } });
    const mine = rev('mine', 1, { metadata: { labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'uid-web', controller: true }] } });
    const orphan = rev('orphan', 1, { metadata: { labels: { app: 'web' } } });
    const other = rev('other', 1, { metadata: { labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'x', uid: 'uid-x', controller: true }] } });
    const unlabeled = rev('unlabeled', 1);
    const elsewhere = { ...orphan, metadata: { ...orphan.metadata, namespace: 'other' } };
    assert.deepEqual(ownedOrOrphanRevisions(set, sel, [mine, orphan, other, unlabeled, elsewhere]).map((r) => r.metadata?.name), ['mine', 'orphan']);
  });
});

describe('controller history against the API', () => {
  let kp: TestKplane;
  before(async () => {
    kp = await startKplane();
    await createNamespace(kp.client, 'ns');
  });
  after(() => kp.close());

  it('creates, finds an existing equal revision, and counts collisions', async () => {
    const api = kp.client.resource<ControllerRevision>(ControllerRevisions);
    const history = createControllerHistory(api);
    const r = newControllerRevision(parent, { app: 'web' }, data('nginx'), 1, 0);
    const first = await history.create(set, r, 0);
    assert.equal(first.collisionCount, 0);
    assert.equal(first.revision.metadata?.name, r.metadata?.name);
    // The same data again: the existing revision, no collision.
    const again = await history.create(set, r, 0);
    assert.equal(again.collisionCount, 0);
    assert.equal(again.revision.metadata?.uid, first.revision.metadata?.uid);
    // Other data under the name the next revision wants: a collision moves it to count 1.
    const r2 = newControllerRevision(parent, { app: 'web' }, data('httpd'), 2, 0);
    await api.create({ ...r2, data: data('squatter'), metadata: { ...r2.metadata, ownerReferences: [] } }, { namespace: 'ns' });
    const second = await history.create(set, r2, 0);
    assert.equal(second.collisionCount, 1);
    assert.equal(second.revision.metadata?.name, `web-${hashControllerRevision(data('httpd'), 1)}`);
    // The hash label keeps the value computed when the revision was built, as kube's does.
    assert.equal(second.revision.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL], hashControllerRevision(data('httpd'), 0));

    const renumbered = await history.update(first.revision, 5);
    assert.equal(renumbered.revision, 5);
    // A stale copy: re-read after the conflict, then written.
    const again5 = await history.update({ ...first.revision }, 6);
    assert.equal(again5.revision, 6);

    await history.delete(second.revision);
    await history.delete(second.revision);
    await assert.rejects(api.get(second.revision.metadata!.name!, { namespace: 'ns' }), /not found/);
  });

  it('adopts orphans, refuses owned revisions, and releases', async () => {
    const api = kp.client.resource<ControllerRevision>(ControllerRevisions);
    const history = createControllerHistory(api);
    const orphan = await api.create({ metadata: { name: 'orphan-1', namespace: 'ns', labels: { app: 'web' } }, revision: 1, data: data('a') }, { namespace: 'ns' });
    const adopted = await history.adopt(parent, orphan);
    assert.equal(adopted.metadata?.ownerReferences?.[0]?.uid, 'uid-web');
    await assert.rejects(history.adopt({ ...parent, object: { metadata: { name: 'x', namespace: 'ns', uid: 'uid-x' } } }, adopted), /attempt to adopt revision owned by/);
    assert.equal(await history.release(set, adopted), true);
    const released = await api.get('orphan-1', { namespace: 'ns' });
    assert.deepEqual(released.metadata?.ownerReferences ?? [], []);
    assert.equal(await history.release(set, released), false);
  });
});
