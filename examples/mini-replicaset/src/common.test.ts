import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { desiredCount, messages, parseOptions, podFor, statusOf, statusPatch, surplus } from './common.js';

describe('mini-replicaset common parts', () => {
  it('parses the command line; French with --lang fr or LANG=fr', () => {
    assert.deepEqual(parseOptions([], {}), { namespace: 'default', status: false, leaderElect: false, proxy: 'http://127.0.0.1:8001', lang: 'en' });
    assert.deepEqual(parseOptions(['ch36', '--status', '--leader-elect', '--proxy', 'http://127.0.0.1:8011/'], { LANG: 'C.UTF-8' }), {
      namespace: 'ch36', status: true, leaderElect: true, proxy: 'http://127.0.0.1:8011', lang: 'en',
    });
    assert.equal(parseOptions([], { LANG: 'fr_FR.UTF-8' }).lang, 'fr');
    assert.equal(parseOptions(['--lang', 'en'], { LANG: 'fr_FR.UTF-8' }).lang, 'en');
    assert.throws(() => parseOptions(['--lang', 'de'], {}), /--lang: en or fr, not de/);
    assert.throws(() => parseOptions(['a', 'b'], {}), /one namespace at most/);
  });

  it('prints the course lines in both languages', () => {
    assert.match(messages('en').creating('vitrine', 0, 3, 'vitrine-w7d7l'), /^\d\d:\d\d:\d\d vitrine: 0 pod\(s\) for 3 wanted, creating vitrine-w7d7l$/);
    assert.match(messages('fr').creating('vitrine', 0, 3, 'vitrine-w7d7l'), /^\d\d:\d\d:\d\d vitrine : 0 Pod\(s\) pour 3 voulus, je crée vitrine-w7d7l$/);
    assert.match(messages('fr').deleting('vitrine', 3, 1, 'vitrine-rw4fb'), /^\d\d:\d\d:\d\d vitrine : 3 Pod\(s\) pour 1 voulus, je supprime vitrine-rw4fb$/);
    assert.match(messages('fr').status('vitrine', '3/3'), /^\d\d:\d\d:\d\d vitrine : statut 3\/3$/);
    assert.equal(messages('fr').started('ch36'), 'contrôleur démarré dans ch36');
  });

  it('makes pods owned by the ConfigMap, and picks the newest as surplus', () => {
    const pod = podFor({ metadata: { name: 'vitrine', uid: 'u1' } });
    assert.equal(pod.metadata.generateName, 'vitrine-');
    assert.deepEqual(pod.metadata.labels, { 'cours/proprietaire': 'vitrine' });
    assert.deepEqual(pod.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'vitrine', uid: 'u1', controller: true, blockOwnerDeletion: true }]);
    const at = (name: string, t: string) => ({ metadata: { name, creationTimestamp: t } });
    const pods = [at('c', '2026-01-01T00:00:02Z'), at('a', '2026-01-01T00:00:00Z'), at('d', '2026-01-01T00:00:02Z'), at('b', '2026-01-01T00:00:01Z')];
    assert.deepEqual(surplus(pods, 1).map((p) => p.metadata.name), ['b', 'c', 'd']);
    assert.deepEqual(surplus(pods, 4), []);
  });

  it('reads the desired count and computes the status', () => {
    assert.equal(desiredCount({ data: { repliques: '3' } }), 3);
    assert.equal(desiredCount({}), 0);
    assert.throws(() => desiredCount({ data: { repliques: 'trois' } }), /data\.repliques is not a number of pods: "trois"/);
    const ready = { status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    assert.equal(statusOf([ready, {}, ready], 4), '2/4');
    assert.equal(statusPatch({ metadata: { annotations: { 'cours/pods': '2/4' } } }, '2/4'), undefined);
    assert.deepEqual(statusPatch({ metadata: {} }, '2/4'), { metadata: { annotations: { 'cours/pods': '2/4' } } });
  });

  it('the bare version imports nothing but Node built-ins (and these shared parts)', async () => {
    for (const file of ['bare.js', 'common.js']) {
      const text = await readFile(new URL(`./${file}`, import.meta.url), 'utf8');
      const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      assert.ok(specifiers.length > 0, file);
      assert.deepEqual(specifiers.filter((s) => !s.startsWith('node:') && s !== './common.js'), [], file);
    }
  });
});
