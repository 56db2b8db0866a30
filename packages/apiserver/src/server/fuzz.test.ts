import { it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkCanaries,
  createFuzzGenerator,
  discoverResources,
  fuzzSeed,
  plantCanaries,
  prototypeFingerprint,
  runFuzz,
  startTestServer,
} from '../testing.js';

const REQUESTS = Number(process.env.KPLANE_FUZZ_REQUESTS ?? 20_000);

it('the generator replays the same requests from the same seed, over every served kind', async () => {
  const t = await startTestServer();
  try {
    const resources = await discoverResources(t.server.handle);
    for (const kind of ['configmaps', 'secrets', 'pods', 'deployments', 'namespaces', 'clusterroles', 'customresourcedefinitions', 'leases']) {
      assert.ok(resources.some((r) => r.resource === kind), `discovery lists ${kind}`);
    }
    const a = createFuzzGenerator(resources, { seed: 42, namespace: 'fuzz' });
    const b = createFuzzGenerator(resources, { seed: 42, namespace: 'fuzz' });
    const c = createFuzzGenerator(resources, { seed: 43, namespace: 'fuzz' });
    // Enough requests for every kind to come up, however many kinds are served.
    const length = Math.max(3000, resources.length * 200);
    const seqA = Array.from({ length }, a);
    const seqB = Array.from({ length }, b);
    const seqC = Array.from({ length }, c);
    const key = (q: (typeof seqA)[number]) => `${q.method} ${q.path} ${JSON.stringify(q.query)} ${Buffer.from(q.body ?? []).toString('base64')}`;
    assert.deepEqual(seqA.map(key), seqB.map(key));
    assert.notDeepEqual(seqA.map(key), seqC.map(key));
    // Every kind, and every verb and patch type, shows up in those requests.
    // The resource of a path: the segment after /namespaces/NAME/ when there is one, else the first resource name.
    const resourceOf = (path: string) => {
      const segs = path.split('/').filter(Boolean);
      const ns = segs.indexOf('namespaces');
      if (ns >= 0 && segs.length > ns + 2) return segs[ns + 2];
      return segs.find((s) => resources.some((r) => r.resource === s));
    };
    const touched = new Set(seqA.map((q) => resourceOf(q.path)));
    for (const r of resources) assert.ok(touched.has(r.resource), `some request addresses ${r.resource}`);
    const labels = seqA.map((q) => q.label).join('\n');
    for (const l of ['create', 'update', 'get', 'list', 'deletecollection', 'delete', 'watch', 'subresource', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml', 'nesting', 'huge number', '__proto__', 'yaml aliases', 'duplicate']) {
      assert.ok(labels.includes(l), `some request tries ${l}`);
    }
    assert.ok(seqA.some((q) => q.path.includes('%2e%2e')), 'dot-segment path tricks');
    assert.ok(seqA.some((q) => q.path.includes('//')), 'double-slash path tricks');
    assert.ok(seqA.some((q) => q.query?.limit === '1e100' || q.query?.timeoutSeconds === '1e100'), 'bad query numbers');
  } finally {
    await t.close();
  }
});

it(`${REQUESTS} fuzzed requests over every kind and verb: no 5xx, no canary touched, still ready`, async () => {
  const seed = fuzzSeed();
  console.log(`fuzz seed ${seed} (replay with KPLANE_FUZZ_SEED=${seed})`);
  const t = await startTestServer();
  try {
    const fingerprint = prototypeFingerprint();
    const created = await t.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fuzz' } });
    assert.equal(created.status, 201);
    const snapshot = await plantCanaries(t.server.handle);
    const resources = await discoverResources(t.server.handle);
    // The server logs each internal error with its stack; the failures below name the requests.
    const consoleError = console.error;
    let errorLines = 0;
    console.error = () => void errorLines++;
    let report;
    try {
      report = await runFuzz({ handle: t.server.handle, resources, seed, count: REQUESTS, namespace: 'fuzz' });
    } finally {
      console.error = consoleError;
    }
    console.log(`fuzz seed ${seed}: ${report.requests} requests in ${(report.ms / 1000).toFixed(1)} s; answers ${JSON.stringify(report.statuses)}; server error log lines ${errorLines}`);
    assert.equal(report.requests, REQUESTS);
    assert.deepEqual(report.failures.slice(0, 10), [], `seed ${seed}: ${report.failures.length} requests answered 500 or more`);
    assert.deepEqual(await checkCanaries(t.server.handle, snapshot), [], `seed ${seed}: canaries changed`);
    assert.equal(prototypeFingerprint(), fingerprint, `seed ${seed}: a built-in prototype gained or lost a property`);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, `seed ${seed}: Object.prototype polluted`);
    const namespaces = await t.call('GET', '/api/v1/namespaces');
    assert.equal(namespaces.status, 200);
    assert.equal(namespaces.body.kind, 'NamespaceList');
  } finally {
    await t.close();
  }
});
