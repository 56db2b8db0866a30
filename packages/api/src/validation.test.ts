import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  finalizerWarnings,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
} from './validation.js';
import type { ObjectMeta, OwnerReference } from './types.js';
import { invalid } from './errors.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

test('isDNS1123Subdomain accepts valid names and explains invalid ones', () => {
  assert.deepEqual(isDNS1123Subdomain('example.com'), []);
  assert.deepEqual(isDNS1123Subdomain('a'), []);
  assert.deepEqual(isDNS1123Subdomain('Bad_Name'), [subdomainMsg]);
  assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
  assert.deepEqual(isDNS1123Subdomain('-a'), [subdomainMsg]);
});

test('isDNS1123Label reports dots separately', () => {
  assert.deepEqual(isDNS1123Label('my-name'), []);
  assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  assert.equal(isDNS1123Label('a'.repeat(64))[0], 'must be no more than 63 characters');
  assert.match(isDNS1123Label('A')[0]!, /^a lowercase RFC 1123 label must consist of .* \(e\.g\. 'my-name',  or '123-abc', regex used/);
});

test('isQualifiedName checks prefix and name parts', () => {
  assert.deepEqual(isQualifiedName('app'), []);
  assert.deepEqual(isQualifiedName('example.com/MyName'), []);
  assert.deepEqual(isQualifiedName('/x'), ['prefix part must be non-empty']);
  assert.equal(isQualifiedName('Ex.com/x')[0]!.startsWith('prefix part a lowercase RFC 1123 subdomain'), true);
  assert.deepEqual(isQualifiedName('a/'), [
    'name part must be non-empty',
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  assert.match(isQualifiedName('a/b/c')[0]!, /^a qualified name must consist .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  assert.equal(isQualifiedName('x'.repeat(64))[0], 'name part must be no more than 63 characters');
});

test('isValidLabelValue allows empty and rejects bad characters', () => {
  assert.deepEqual(isValidLabelValue(''), []);
  assert.deepEqual(isValidLabelValue('my_value-1.2'), []);
  assert.equal(isValidLabelValue('a b').length, 1);
  assert.match(isValidLabelValue('a b')[0]!, /^a valid label must be an empty string/);
  assert.deepEqual(isValidLabelValue('x'.repeat(64)).slice(0, 1), ['must be no more than 63 characters']);
});

test('validateObjectMeta: name required unless generateName on create', () => {
  const causes = validateObjectMeta({ namespace: 'default' }, { namespaced: true, isCreate: true });
  assert.deepEqual(causes, [{ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }]);
  assert.deepEqual(validateObjectMeta({ generateName: 'web-', namespace: 'default' }, { namespaced: true, isCreate: true }), []);
  assert.equal(validateObjectMeta({ generateName: 'web-', namespace: 'default' }, { namespaced: true, isCreate: false }).length, 1);
});

test('validateObjectMeta: invalid name produces the Kubernetes message', () => {
  const causes = validateObjectMeta({ name: 'Bad_Name', namespace: 'default' }, { namespaced: true, isCreate: true });
  assert.deepEqual(causes, [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "Bad_Name": ${subdomainMsg}` }]);
  const err = invalid('', 'ConfigMap', 'Bad_Name', causes);
  assert.equal(err.message, `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${subdomainMsg}`);
  assert.equal(validateObjectMeta({ name: 'a.b' }, { namespaced: false, nameIsDNSLabel: true, isCreate: true })[0]!.message, 'Invalid value: "a.b": must not contain dots');
});

test('validateObjectMeta: namespace by scope', () => {
  assert.deepEqual(validateObjectMeta({ name: 'a' }, { namespaced: true, isCreate: true }), [
    { reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' },
  ]);
  assert.deepEqual(validateObjectMeta({ name: 'a', namespace: 'x' }, { namespaced: false, isCreate: true }), [
    { reason: 'FieldValueForbidden', field: 'metadata.namespace', message: 'Forbidden: not allowed on this type' },
  ]);
});

test('validateObjectMeta: labels and annotations', () => {
  const causes = validateObjectMeta(
    { name: 'a', labels: { 'bad key': 'v', ok: 'bad value' }, annotations: { 'x/y/z': '1' } },
    { namespaced: false, isCreate: true },
  );
  assert.deepEqual(
    causes.map((c) => [c.field, c.reason, c.message!.slice(0, 28)]),
    [
      ['metadata.labels', 'FieldValueInvalid', 'Invalid value: "bad key": na'],
      ['metadata.labels', 'FieldValueInvalid', 'Invalid value: "bad value": '],
      ['metadata.annotations', 'FieldValueInvalid', 'Invalid value: "x/y/z": a qu'],
    ],
  );
  // Annotation keys are case-insensitive.
  assert.deepEqual(validateObjectMeta({ name: 'a', annotations: { 'Example.COM/Key': 'v' } }, { namespaced: false, isCreate: true }), []);
  const big = validateObjectMeta({ name: 'a', annotations: { k: 'x'.repeat(262144) } }, { namespaced: false, isCreate: true });
  assert.deepEqual(big, [{ reason: 'FieldValueTooLong', field: 'metadata.annotations', message: 'Too long: must have at most 262144 bytes' }]);
});

test('validateObjectMeta: ownerReferences', () => {
  const causes = validateObjectMeta(
    {
      name: 'a',
      ownerReferences: [
        { apiVersion: '', kind: '', name: '', uid: '' },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r1', uid: 'u1', controller: true },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r2', uid: 'u2', controller: true },
      ],
    },
    { namespaced: false, isCreate: true },
  );
  assert.deepEqual(causes.slice(0, 4).map((c) => `${c.field}: ${c.message}`), [
    'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
    'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
    'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
    'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
  ]);
  assert.equal(causes.length, 5);
  assert.match(causes[4]!.message!, /Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/r1 and ReplicaSet\/r2$/);
});

test('validateObjectMeta: finalizers', () => {
  const opts = { namespaced: false, isCreate: true };
  assert.deepEqual(validateObjectMeta({ name: 'a', finalizers: ['kubernetes', 'orphan', 'example.com/x', 'kubernetes.io/pv-protection'] }, opts), []);
  assert.deepEqual(validateObjectMeta({ name: 'a', finalizers: ['ok.io/a', 'custom'] }, opts), [
    { reason: 'FieldValueInvalid', field: 'metadata.finalizers[1]', message: 'Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified' },
  ]);
  // Custom resources only get a warning.
  assert.deepEqual(validateObjectMeta({ name: 'a', finalizers: ['custom'] }, { ...opts, customResource: true }), []);
  assert.deepEqual(finalizerWarnings(['custom', 'a.io/b', 'orphan']), [
    'metadata.finalizers: "custom": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers',
  ]);
  // Only the finalizers a write adds, sorted, once each.
  assert.deepEqual(finalizerWarnings(['zz', 'custom', 'zz', 'b.example.com'], ['custom']), [
    'metadata.finalizers: "b.example.com": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers',
    'metadata.finalizers: "zz": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers',
  ]);
  assert.deepEqual(finalizerWarnings(['custom'], ['custom']), []);
  // Duplicates are allowed; orphan + foregroundDeletion are not.
  assert.deepEqual(validateObjectMeta({ name: 'a', finalizers: ['a.io/x', 'a.io/x'] }, opts), []);
  assert.deepEqual(validateObjectMeta({ name: 'a', finalizers: ['orphan', 'foregroundDeletion'] }, opts), [
    {
      reason: 'FieldValueInvalid',
      field: 'metadata.finalizers',
      message: 'Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
    },
  ]);
  assert.equal(validateObjectMeta({ name: 'a', finalizers: ['a.io/b/c'] }, opts)[0]!.field, 'metadata.finalizers');
});

test('validateObjectMetaUpdate: immutable fields', () => {
  const old = { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: '2024-01-02T03:04:05Z', generation: 2 };
  assert.deepEqual(validateObjectMetaUpdate({ ...old, labels: { x: 'y' }, generation: 3 }, old), []);
  const causes = validateObjectMetaUpdate({ ...old, name: 'b', uid: 'u2', creationTimestamp: '2025-01-01T00:00:00Z', generation: 1 }, old);
  assert.deepEqual(causes.map((c) => `${c.field}: ${c.message}`), [
    'metadata.generation: Invalid value: 1: must not be decremented',
    'metadata.name: Invalid value: "b": field is immutable',
    'metadata.uid: Invalid value: "u2": field is immutable',
    'metadata.creationTimestamp: Invalid value: 2025-01-01 00:00:00 +0000 UTC: field is immutable',
  ]);
});

test('validateObjectMetaUpdate: deletion timestamp and finalizers while deleting', () => {
  const old = { name: 'a', deletionTimestamp: '2024-01-02T03:04:05Z', finalizers: ['a.io/x'] };
  assert.deepEqual(validateObjectMetaUpdate({ ...old, finalizers: [] }, old), []);
  assert.deepEqual(validateObjectMetaUpdate({ ...old, finalizers: ['a.io/x', 'x', 'b.io/y'] }, old), [
    {
      reason: 'FieldValueForbidden',
      field: 'metadata.finalizers',
      message: 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y", "x"}',
    },
  ]);
  const cleared = validateObjectMetaUpdate({ name: 'a', finalizers: ['a.io/x'] }, old);
  assert.deepEqual(cleared.map((c) => `${c.field}: ${c.message}`), ['metadata.deletionTimestamp: Invalid value: null: field is immutable']);
  // Adding finalizers before deletion is fine.
  assert.deepEqual(validateObjectMetaUpdate({ name: 'a', finalizers: ['n.io/x'] }, { name: 'a' }), []);
});

test('name rules for other kinds', async () => {
  const { nameIsPathSegment, nameIsDNS1035Label } = await import('./validation.js');
  assert.deepEqual(nameIsPathSegment('..', false), ["may not be '..'"]);
  assert.deepEqual(nameIsPathSegment('a/b%', false), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(nameIsPathSegment('a/b%', true), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(nameIsPathSegment('system:admin', false), []);
  assert.deepEqual(nameIsDNS1035Label('web-1', false), []);
  assert.match(nameIsDNS1035Label('1web', false)[0]!, /^a DNS-1035 label must consist of/);
  // generateName may end with '-'.
  assert.deepEqual(validateObjectMeta({ generateName: 'web-' }, { namespaced: false, isCreate: true }), []);
  assert.equal(validateObjectMeta({ generateName: 'Web-' }, { namespaced: false, isCreate: true })[0]!.field, 'metadata.generateName');
});

test('metadata of the wrong type never throws (objects stored before type checks)', () => {
  const bad = { name: 'x', namespace: 'ns', labels: ['a'], annotations: 'x', finalizers: 'abc', ownerReferences: {}, managedFields: 'm' } as unknown as ObjectMeta;
  assert.deepEqual(validateObjectMeta(bad, { namespaced: true, isCreate: true }), []);
  const deleting = '2024-01-01T00:00:00Z';
  assert.deepEqual(validateObjectMetaUpdate({ name: 'x', namespace: 'ns', deletionTimestamp: deleting }, { ...bad, deletionTimestamp: deleting }), []);
  assert.deepEqual(validateOwnerReferences([null, 5] as unknown as OwnerReference[]).length, 8);
  assert.deepEqual(finalizerWarnings({} as unknown as string[]), []);
});
