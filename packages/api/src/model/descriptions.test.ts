import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DESCRIPTIONS, fieldDescription, typeDescription } from './descriptions.js';
import { modelType } from './index.js';

test('every description names a type and a field of the model', () => {
  const stale: string[] = [];
  for (const [name, described] of Object.entries(DESCRIPTIONS)) {
    const model = modelType(name);
    if (!model || model.type.protoOnly) {
      stale.push(name);
      continue;
    }
    for (const field of Object.keys(described.fields ?? {})) if (!model.type.fields?.[field]) stale.push(`${name}.${field}`);
  }
  assert.deepEqual(stale, []);
});

test('descriptions are single lines of text', () => {
  for (const [name, described] of Object.entries(DESCRIPTIONS)) {
    for (const text of [described.type, ...Object.values(described.fields ?? {})]) {
      if (text === undefined) continue;
      assert.ok(text.trim() === text && text.length > 0 && !text.includes('\n'), `${name}: ${JSON.stringify(text)}`);
    }
  }
});

test('kinds and lists of the model get the common descriptions; listed ones win', () => {
  const pod = modelType('io.k8s.api.core.v1.Pod')!;
  const field = (name: string) => pod.type.fields![name]!;
  assert.match(fieldDescription(pod.name, pod.type, 'apiVersion', field('apiVersion'))!, /versioned schema/);
  assert.match(fieldDescription(pod.name, pod.type, 'kind', field('kind'))!, /REST kind/);
  assert.match(fieldDescription(pod.name, pod.type, 'metadata', field('metadata'))!, /Standard object metadata/);
  assert.equal(fieldDescription(pod.name, pod.type, 'spec', field('spec')), DESCRIPTIONS['io.k8s.api.core.v1.Pod']!.fields!.spec);
  const list = modelType('io.k8s.api.batch.v1.JobList')!;
  assert.equal(typeDescription(list.name, list.type), 'JobList is a list of Job objects.');
  assert.equal(fieldDescription(list.name, list.type, 'items', list.type.fields!.items!), 'The Job objects.');
  assert.match(fieldDescription(list.name, list.type, 'metadata', list.type.fields!.metadata!)!, /Standard list metadata/);
  const template = modelType('io.k8s.api.core.v1.PodTemplateSpec')!;
  assert.equal(fieldDescription(template.name, template.type, 'metadata', template.type.fields!.metadata!), DESCRIPTIONS[template.name]!.fields!.metadata);
  const notAKind = { fields: { kind: { type: 'string' } } };
  assert.equal(fieldDescription('io.k8s.api.demo.v1.Reference', notAKind, 'kind', notAKind.fields.kind, {}), undefined, 'not a kind: nothing derived');
  const aKind = { ...notAKind, gvk: [{ group: 'demo', version: 'v1', kind: 'Reference' }] };
  assert.match(fieldDescription('io.k8s.api.demo.v1.Reference', aKind, 'kind', aKind.fields.kind, {})!, /REST kind/);
});
