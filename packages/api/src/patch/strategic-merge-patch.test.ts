import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { ApiError } from '../errors.js';
import type { SchemaDefinitions, SchemaObject } from '../schema.js';

const defs: SchemaDefinitions = {
  ObjectMeta: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
      ownerReferences: {
        type: 'array',
        items: { type: 'object', properties: { uid: { type: 'string' }, name: { type: 'string' } } },
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'uid',
      },
    },
  },
  Container: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      image: { type: 'string' },
      args: { type: 'array', items: { type: 'string' } },
      env: {
        type: 'array',
        items: { $ref: '#/components/schemas/EnvVar' },
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      },
    },
  },
  EnvVar: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } },
  Volume: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      emptyDir: { type: 'object', properties: { medium: { type: 'string' } } },
      configMap: { type: 'object', properties: { name: { type: 'string' } } },
    },
  },
  PodSpec: {
    type: 'object',
    properties: {
      containers: {
        type: 'array',
        items: { allOf: [{ $ref: '#/components/schemas/Container' }] },
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      },
      volumes: {
        type: 'array',
        items: { $ref: '#/components/schemas/Volume' },
        'x-kubernetes-patch-strategy': 'merge,retainKeys',
        'x-kubernetes-patch-merge-key': 'name',
      },
      tolerations: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' } } } },
      nodeSelector: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
  Pod: {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { allOf: [{ $ref: '#/components/schemas/ObjectMeta' }], description: 'meta' },
      spec: { $ref: '#/components/schemas/PodSpec' },
      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
};
const schema: SchemaObject = { $ref: '#/components/schemas/Pod' };

function pod(): Record<string, any> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'web', tier: 'front' }, finalizers: ['a.io/x'] },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
        { name: 'sidecar', image: 'side:1' },
      ],
      tolerations: [{ key: 'x' }, { key: 'y' }],
    },
  };
}

const smp = (doc: unknown, patch: unknown) => applyStrategicMergePatch(doc, patch, schema, defs) as Record<string, any>;

test('patches one container by name and keeps the others', () => {
  const orig = pod();
  const out = smp(orig, { spec: { containers: [{ name: 'app', image: 'app:2' }] } });
  assert.deepEqual(out.spec.containers, [
    { name: 'app', image: 'app:2', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
    { name: 'sidecar', image: 'side:1' },
  ]);
  assert.equal(orig.spec.containers[0].image, 'app:1', 'input not mutated');
});

test('merges env entries by name inside a container', () => {
  const out = smp(pod(), { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: 'two' }, { name: 'C', value: '3' }] }] } });
  assert.deepEqual(out.spec.containers[0].env, [
    { name: 'A', value: '1' },
    { name: 'B', value: 'two' },
    { name: 'C', value: '3' },
  ]);
});

test('new list items come before server-only items, as in Kubernetes', () => {
  const out = smp(pod(), { spec: { containers: [{ name: 'new', image: 'n:1' }] } });
  assert.deepEqual(out.spec.containers.map((c: any) => c.name), ['new', 'app', 'sidecar']);
});

test('$setElementOrder/containers orders the result', () => {
  const out = smp(pod(), {
    spec: {
      '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }, { name: 'third' }],
      containers: [{ name: 'third', image: 't:1' }],
    },
  });
  assert.deepEqual(out.spec.containers.map((c: any) => c.name), ['sidecar', 'app', 'third']);
  assert.equal('$setElementOrder/containers' in out.spec, false);
});

test('$setElementOrder for a list absent from the patch reorders the live list', () => {
  const out = smp(pod(), { metadata: { '$setElementOrder/finalizers': ['b.io/y', 'a.io/x'], finalizers: ['b.io/y'] } });
  assert.deepEqual(out.metadata.finalizers, ['b.io/y', 'a.io/x']);
});

test('deletes a container with $patch: delete', () => {
  const out = smp(pod(), { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } });
  assert.deepEqual(out.spec.containers.map((c: any) => c.name), ['app']);
});

test('$patch: replace in a list replaces the whole list', () => {
  const out = smp(pod(), { spec: { containers: [{ name: 'only', image: 'o' }, { $patch: 'replace' }] } });
  assert.deepEqual(out.spec.containers, [{ name: 'only', image: 'o' }]);
});

test('$patch: replace and delete in maps', () => {
  const replaced = smp(pod(), { metadata: { labels: { $patch: 'replace', only: 'me' } } });
  assert.deepEqual(replaced.metadata.labels, { only: 'me' });
  const deleted = smp(pod(), { metadata: { labels: { $patch: 'delete' } } });
  assert.deepEqual(deleted.metadata.labels, {});
});

test('null removes a label; other labels stay', () => {
  const out = smp(pod(), { metadata: { labels: { tier: null, new: 'x' } } });
  assert.deepEqual(out.metadata.labels, { app: 'web', new: 'x' });
});

test('lists without merge strategy are replaced', () => {
  const out = smp(pod(), { spec: { tolerations: [{ key: 'z' }] } });
  assert.deepEqual(out.spec.tolerations, [{ key: 'z' }]);
  const args = smp({ spec: { containers: [{ name: 'app', args: ['a', 'b'] }] } }, { spec: { containers: [{ name: 'app', args: ['c'] }] } });
  assert.deepEqual(args.spec.containers[0].args, ['c']);
});

test('primitive lists with merge strategy are united; $deleteFromPrimitiveList removes', () => {
  const out = smp(pod(), { metadata: { finalizers: ['b.io/y', 'a.io/x'] } });
  assert.deepEqual(out.metadata.finalizers, ['b.io/y', 'a.io/x']);
  const removed = smp({ metadata: { finalizers: ['a.io/x', 'b.io/y', 'c.io/z'] } }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b.io/y'] } });
  assert.deepEqual(removed.metadata.finalizers, ['a.io/x', 'c.io/z']);
});

test('$retainKeys clears fields not listed', () => {
  const doc = { spec: { volumes: [{ name: 'v', emptyDir: {} }] } };
  const out = smp(doc, { spec: { volumes: [{ name: 'v', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }] } });
  assert.deepEqual(out.spec.volumes, [{ name: 'v', configMap: { name: 'cm' } }]);
  assert.throws(() => smp(doc, { spec: { volumes: [{ name: 'v', $retainKeys: ['name'], configMap: { name: 'cm' } }] } }), {
    code: 400,
    message: 'invalid patch format of retainKeys',
  });
});

test('unknown schema behaves like a merge patch', () => {
  const doc = { spec: { list: [1, 2], m: { a: 1, b: 2 } }, extra: { items: [{ name: 'a' }] } };
  const patch = { spec: { list: [3], m: { a: null, c: 3 } }, extra: { items: [{ name: 'b' }] } };
  assert.deepEqual(applyStrategicMergePatch(doc, patch, undefined, {}), { spec: { list: [3], m: { b: 2, c: 3 } }, extra: { items: [{ name: 'b' }] } });
  assert.deepEqual(smp(doc, { extra: { items: [{ name: 'b' }] } }).extra, { items: [{ name: 'b' }] });
});

test('errors are client errors with Kubernetes wording', () => {
  const catchErr = (patch: unknown): ApiError => {
    try {
      smp(pod(), patch);
    } catch (e) {
      assert.ok(e instanceof ApiError);
      return e;
    }
    assert.fail('expected an error');
  };
  const noKey = catchErr({ spec: { containers: [{ image: 'x' }] } });
  assert.equal(noKey.code, 400);
  assert.equal(noKey.message, 'map: map[image:x] does not contain declared merge key: name');
  assert.equal(catchErr({ metadata: { labels: { $patch: 'bogus' } } }).message, 'unknown patch type: bogus in map: map[$patch:bogus]');
  assert.equal(catchErr({ spec: { containers: [{ $patch: 'merge' }] } }).message, 'merging lists cannot yet be specified in the patch');
  const lol = catchErr({ metadata: { finalizers: [['x']] } });
  assert.equal(lol.code, 422);
  assert.equal(lol.reason, 'Invalid');
  assert.throws(() => applyStrategicMergePatch({}, [1], schema, defs), { code: 400, message: 'invalid JSON document' });
});

test('new keys are added without directives or nulls', () => {
  const out = smp({ metadata: { name: 'p' } }, { spec: { containers: [{ name: 'a', image: 'x', env: null }], nodeSelector: { a: 'b', c: null } } });
  assert.deepEqual(out.spec, { containers: [{ name: 'a', image: 'x' }], nodeSelector: { a: 'b' } });
});

test('__proto__, constructor and prototype keys stay data and never reach prototypes', () => {
  const patch = JSON.parse('{"metadata":{"labels":{"__proto__":"a","constructor":"b"}},"__proto__":{"polluted":1},"extra":{"__proto__":{"x":1},"prototype":{"y":2}},"spec":{"nodeSelector":{"__proto__":"z"},"$setElementOrder/__proto__":[]}}');
  const out = smp(pod(), patch);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.keys(out.metadata.labels), ['app', 'tier', '__proto__', 'constructor']);
  assert.equal(Object.getOwnPropertyDescriptor(out, '__proto__')?.value.polluted, 1);
  assert.equal(Object.getPrototypeOf(out.extra), Object.prototype);
  assert.deepEqual(JSON.parse(JSON.stringify(out.extra)), JSON.parse('{"__proto__":{"x":1},"prototype":{"y":2}}'));
  assert.equal(Object.getOwnPropertyDescriptor(out.spec.nodeSelector, '__proto__')?.value, 'z');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  // A second patch merges into the existing own __proto__ key.
  const again = smp(out, JSON.parse('{"extra":{"__proto__":{"w":3}}}'));
  assert.deepEqual(JSON.parse(JSON.stringify(again.extra)).__proto__, { x: 1, w: 3 });
});
