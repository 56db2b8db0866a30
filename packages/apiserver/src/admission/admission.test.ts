import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forbidden } from '@kplane/api';
import { startTestServer } from '../testing.js';
import { createAdmissionChain } from './chain.js';
import type { AdmissionAttributes, AdmissionStep } from './types.js';

const pod = (name: string, tolerations?: unknown[]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...(tolerations ? { tolerations } : {}) },
});

test('the chain runs every mutating step, then every validating one, each only for its operations', async () => {
  const seen: string[] = [];
  const steps: AdmissionStep[] = [
    { name: 'A', operations: ['CREATE'], admit: () => void seen.push('admit A') },
    { name: 'B', operations: ['CREATE', 'UPDATE'], admit: () => void seen.push('admit B'), validate: () => void seen.push('validate B') },
    { name: 'C', operations: ['DELETE'], validate: () => void seen.push('validate C') },
  ];
  const chain = createAdmissionChain(steps);
  const attrs = { operation: 'CREATE' } as AdmissionAttributes;
  await chain.admit(attrs);
  await chain.validate(attrs);
  assert.deepEqual(seen, ['admit A', 'admit B', 'validate B']);
});

test('steps that answer at once are not awaited: a phase of twenty of them settles within a few microtask turns; a step\'s promise is awaited', async () => {
  const seen: string[] = [];
  const sync = Array.from({ length: 20 }, (_, i): AdmissionStep => ({ name: `S${i}`, operations: ['CREATE'], admit: () => void seen.push(`admit ${i}`), validate: () => void seen.push(`validate ${i}`) }));
  const chain = createAdmissionChain(sync);
  const attrs = { operation: 'CREATE' } as AdmissionAttributes;
  for (const phase of ['admit', 'validate'] as const) {
    let settled = false;
    void chain[phase](attrs).then(() => (settled = true));
    for (let i = 0; i < 3; i++) await Promise.resolve();
    assert.ok(settled, `${phase}: 20 sync steps took more than 3 microtask turns`);
  }
  assert.equal(seen.length, 40);
  // An async step holds the phase until it settles, and its rejection refuses the request.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const order: string[] = [];
  const asyncChain = createAdmissionChain([
    { name: 'Async', operations: ['CREATE'], validate: () => held.then(() => void order.push('async')) },
    { name: 'After', operations: ['CREATE'], validate: () => void order.push('after') },
  ]);
  const running = asyncChain.validate(attrs);
  await Promise.resolve();
  assert.deepEqual(order, []);
  release();
  await running;
  assert.deepEqual(order, ['async', 'after']);
  const refusing = createAdmissionChain([{ name: 'No', operations: ['CREATE'], validate: () => Promise.reject(forbidden('', 'pods', 'p', 'no')) }]);
  await assert.rejects(refusing.validate(attrs), /no/);
});

test('a step that asks for reinvocation runs once more, even wrapped, only when a later step changed its output', async () => {
  const runs: boolean[] = [];
  const asker: AdmissionStep = {
    name: 'Asker',
    operations: ['CREATE'],
    admit(attrs) {
      runs.push(attrs.reinvocation?.isReinvoke ?? false);
      attrs.reinvocation?.requestReinvocation();
    },
  };
  // A wrapper (as metrics wrap steps) passes the attributes on.
  const wrapped: AdmissionStep = { name: 'Asker', operations: ['CREATE'], admit: (attrs) => (asker as { admit(a: AdmissionAttributes): void }).admit(attrs) };
  const labeller = (value: string): AdmissionStep => ({
    name: 'Labeller',
    operations: ['CREATE'],
    admit(attrs) {
      attrs.object!.metadata = { ...attrs.object!.metadata, labels: { late: value } };
    },
  });
  const attrs = () => ({ operation: 'CREATE', object: { metadata: { labels: { late: 'x' } } } }) as unknown as AdmissionAttributes;
  await createAdmissionChain([wrapped, labeller('y')]).admit(attrs());
  assert.deepEqual(runs, [false, true]);
  runs.length = 0;
  await createAdmissionChain([wrapped, labeller('x')]).admit(attrs());
  assert.deepEqual(runs, [false], 'the later step left the object as it was');
});

test('DefaultTolerationSeconds adds the not-ready and unreachable tolerations to a pod without them', async () => {
  const s = await startTestServer();
  try {
    const r = await s.call('POST', '/api/v1/namespaces/default/pods', pod('p'));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.spec.tolerations, [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  } finally {
    await s.close();
  }
});

test('DefaultTolerationSeconds keeps a pod’s own toleration and honours the flags', async () => {
  const s = await startTestServer({ admission: { notReadySeconds: 7, unreachableSeconds: 9 } });
  try {
    const own = { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 };
    const r = await s.call('POST', '/api/v1/namespaces/default/pods', pod('p', [own]));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.spec.tolerations, [own, { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 7 }]);
    // A toleration of every taint (no key, no effect) covers both.
    const all = await s.call('POST', '/api/v1/namespaces/default/pods', pod('q', [{ operator: 'Exists' }]));
    assert.deepEqual(all.body.spec.tolerations, [{ operator: 'Exists' }]);
  } finally {
    await s.close();
  }
});

test('a validating step sees kube’s attributes after the strategy’s validation and refuses with its ApiError', async () => {
  const seen: AdmissionAttributes[] = [];
  const refuse: AdmissionStep = {
    name: 'Refuse',
    operations: ['CREATE', 'UPDATE', 'DELETE'],
    validate(attrs) {
      seen.push(attrs);
      if (attrs.resource.resource === 'configmaps' && attrs.name === 'no') throw forbidden('', 'configmaps', 'no', 'refused by Refuse');
    },
  };
  const s = await startTestServer({ admission: { extraSteps: [refuse] } });
  try {
    const bad = await s.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'Bad_Name' } });
    assert.equal(bad.status, 422, 'the strategy refuses first');
    assert.equal(seen.filter((a) => a.resource.resource === 'configmaps').length, 0);
    const no = await s.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'no' } });
    assert.equal(no.status, 403);
    assert.match(no.body.message, /refused by Refuse/);
    assert.equal((await s.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'yes' } })).status, 201);
    assert.equal((await s.call('PATCH', '/api/v1/namespaces/default/configmaps/yes', { data: { a: 'b' } }, { 'content-type': 'application/merge-patch+json' })).status, 200);
    assert.equal((await s.call('DELETE', '/api/v1/namespaces/default/configmaps/yes', undefined, {}, { dryRun: 'All' })).status, 200);
    const cm = seen.filter((a) => a.resource.resource === 'configmaps' && a.name === 'yes');
    assert.deepEqual(cm.map((a) => a.operation), ['CREATE', 'UPDATE', 'DELETE']);
    assert.deepEqual(cm[1]!.oldObject?.data, undefined);
    assert.deepEqual(cm[1]!.object?.data, { a: 'b' });
    assert.equal(cm[2]!.object, undefined);
    assert.equal(cm[2]!.dryRun, true);
    assert.deepEqual(cm[0]!.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.equal(cm[0]!.namespace, 'default');
  } finally {
    await s.close();
  }
});

test('pods/binding passes the chain as a CREATE of a Binding on the pods/binding subresource', async () => {
  const seen: AdmissionAttributes[] = [];
  const record: AdmissionStep = { name: 'Record', operations: ['CREATE'], validate: (a) => void seen.push(a) };
  const s = await startTestServer({ admission: { extraSteps: [record] } });
  try {
    assert.equal((await s.call('POST', '/api/v1/namespaces/default/pods', pod('b'))).status, 201);
    const r = await s.call('POST', '/api/v1/namespaces/default/pods/b/binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'b' }, target: { kind: 'Node', name: 'n1' } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const binding = seen.find((a) => a.subresource === 'binding');
    assert.deepEqual(binding?.kind, { group: '', version: 'v1', kind: 'Binding' });
    assert.deepEqual(binding?.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal(binding?.name, 'b');
    assert.equal((binding?.object as { target?: { name?: string } }).target?.name, 'n1');
  } finally {
    await s.close();
  }
});
