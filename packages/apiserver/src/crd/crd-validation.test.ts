import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, SchemaObject, StatusCause } from '@kplane/api';
import { crdResource } from '../kinds/crd.js';
import { validateCustomResourceDefinition } from './crd-validation.js';
import { validateStructural } from './structural.js';
import { estimateCost, costErrorMessage } from './cel/cost.js';
import { compileRules } from './cel/rules.js';
import { greetingCRD } from './greeting.fixture.js';
import { loadCel } from './cel/load.js';

// Entry points load the CEL library before the synchronous code these tests call.
await loadCel();

const texts = (causes: StatusCause[]) => causes.map((c) => `${c.field}: ${c.message}`);

/** Defaults a CRD as the store would, then validates it. */
function validate(crd: KubeObject, old?: KubeObject): string[] {
  crdResource().strategy.defaults!(crd);
  return texts(validateCustomResourceDefinition(crd, old));
}

function withSchema(schema: SchemaObject): KubeObject {
  const crd = greetingCRD();
  (crd.spec as any).versions[0].schema.openAPIV3Schema = schema;
  (crd.spec as any).versions[0].subresources = undefined;
  (crd.spec as any).versions[0].selectableFields = undefined;
  return crd;
}

const specRules = (crd: KubeObject) => (crd.spec as any).versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'];

test("the seed's Greeting CRD is valid", () => {
  assert.deepEqual(validate(greetingCRD()), []);
});

test("cost: the seed's concatenation messageExpression is rejected, its format() form accepted", () => {
  const crd = greetingCRD();
  specRules(crd)[1].messageExpression = "'a public application needs at least 2 replicas, got ' + string(self.replicas)";
  assert.deepEqual(validate(crd), [
    'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].messageExpression: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
    'spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
  ]);
  specRules(crd)[1].messageExpression = "'got ' + string(self.replicas) == 'x' ? 'a' : 'b'";
  assert.equal(validate(crd).length, 3);
  specRules(crd)[1].messageExpression = 'string(self.replicas)';
  assert.deepEqual(validate(crd), [], 'string() alone is cheap');
});

test('cost: per-rule estimates follow the schema bounds and the cardinality of lists', () => {
  const unbounded: SchemaObject = { type: 'array', items: { type: 'string' } };
  const rule = { rule: "self.all(x, x.matches('^[a-z]+$'))" };
  const [c] = compileRules({ ...unbounded, 'x-kubernetes-validations': [rule] });
  assert.ok(c!.maxCost > 1e9, `unbounded list of unbounded strings: ${c!.maxCost}`);
  const bounded: SchemaObject = { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } };
  const [b] = compileRules({ ...bounded, 'x-kubernetes-validations': [rule] });
  assert.ok(b!.maxCost < 200, `bounded: ${b!.maxCost}`);
  const crd = withSchema({ type: 'object', properties: { spec: { type: 'object', properties: { names: { ...unbounded, 'x-kubernetes-validations': [rule] } } } } });
  assert.deepEqual(validate(crd), [
    'spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    'spec.validation.openAPIV3Schema.properties[spec].properties[names]: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
    'spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
  ].map((t, i) => (i === 1 ? t.replace('properties[names]:', 'properties[names].x-kubernetes-validations[0].rule:') : t)));
  assert.equal(costErrorMessage('estimated rule cost', 12_000_000, 10_000_000), 'estimated rule cost exceeds budget by factor of 1.200000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)');
  assert.ok(estimateCost({ op: 'value', args: true } as never, { type: 'object' }) === 0);
});

test('structural schema rules with Kubernetes messages', () => {
  const errs = (s: SchemaObject) => texts(validateStructural(s, 'spec.validation.openAPIV3Schema'));
  assert.deepEqual(errs({ type: 'object', properties: { a: {}, b: { type: 'array' } } }), [
    'spec.validation.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields',
    'spec.validation.openAPIV3Schema.properties[b].items: Required value: must be specified',
  ]);
  assert.deepEqual(errs({ type: 'string' }), ['spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root']);
  assert.deepEqual(errs({ type: 'object', properties: { a: { type: 'string', anyOf: [{ type: 'string', description: 'x' }] } } }), [
    'spec.validation.openAPIV3Schema.properties[a].anyOf[0].description: Forbidden: must be empty to be structural',
    'spec.validation.openAPIV3Schema.properties[a].anyOf[0].type: Forbidden: must be empty to be structural',
  ]);
  assert.deepEqual(errs({ type: 'object', properties: { a: { type: 'object' } }, allOf: [{ properties: { b: { minLength: 1 } } }] }), [
    'spec.validation.openAPIV3Schema.properties[b]: Required value: because it is defined in spec.validation.openAPIV3Schema.allOf[0].properties[b]',
  ]);
  assert.deepEqual(errs({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } }), [
    'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
  ]);
  assert.deepEqual(errs({ type: 'object', additionalProperties: { type: 'string' } }), ['spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root']);
  assert.deepEqual(errs({ type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } }), []);
  assert.deepEqual(errs({ type: 'object', properties: { t: { type: 'string', 'x-kubernetes-embedded-resource': true } } }), [
    'spec.validation.openAPIV3Schema.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
    'spec.validation.openAPIV3Schema.properties[t].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true',
  ]);
});

test('schema keywords, list and map types, defaults and rules on the CRD', () => {
  const crd = withSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          u: { type: 'array', uniqueItems: true, items: { type: 'string' } },
          m: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } },
          t: { type: 'string', 'x-kubernetes-map-type': 'atomic' },
          d: { type: 'integer', minimum: 1, default: 0 },
          p: { type: 'string', 'x-kubernetes-preserve-unknown-fields': false } as SchemaObject,
          r: { type: 'object', properties: { y: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'self.x == 1' }, { rule: 'true', reason: 'Nope' }] },
          s: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.x == 1' }] },
          l: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } },
        },
      },
    },
  });
  assert.deepEqual(validate(crd), [
    'spec.validation.openAPIV3Schema.properties[spec].properties[d].default: Invalid value: 0: spec.d in body should be greater than or equal to 1',
    'spec.validation.openAPIV3Schema.properties[spec].properties[u].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    'spec.validation.openAPIV3Schema.properties[spec].properties[m].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
    'spec.validation.openAPIV3Schema.properties[spec].properties[t].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified',
    'spec.validation.openAPIV3Schema.properties[spec].properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined',
    'spec.validation.openAPIV3Schema.properties[spec].properties[r].x-kubernetes-validations[1].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
  ]);
  delete (crd.spec as any).versions[0].schema.openAPIV3Schema.properties.spec.properties.d;
  for (const k of ['u', 'm', 't', 'p']) delete (crd.spec as any).versions[0].schema.openAPIV3Schema.properties.spec.properties[k];
  (crd.spec as any).versions[0].schema.openAPIV3Schema.properties.spec.properties.r['x-kubernetes-validations'].pop();
  assert.deepEqual(validate(crd), [
    'spec.validation.openAPIV3Schema.properties[spec].properties[r].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.x == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field \'x\'\n | self.x == 1\n | ....^',
    'spec.validation.openAPIV3Schema.properties[spec].properties[s].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.x == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: type \'string\' does not support field selection\n | self.x == 1\n | ....^',
    'spec.validation.openAPIV3Schema.properties[spec].properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[l]',
  ]);
});

test('names, group approval, versions, columns, subresources, selectable fields, conversion', () => {
  const crd = greetingCRD();
  const spec = crd.spec as any;
  crd.metadata!.name = 'greetings.demo.k8s.io';
  spec.group = 'demo.k8s.io';
  spec.names.shortNames = ['Gr'];
  spec.versions[0].storage = false;
  spec.versions[0].additionalPrinterColumns[0].type = 'text';
  spec.versions[0].subresources.scale.specReplicasPath = '.status.x';
  spec.versions[0].selectableFields = [{ jsonPath: '.spec.nothing' }, { jsonPath: '.metadata.name' }];
  spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://conv.example.com/convert' }, conversionReviewVersions: ['v2'] } };
  assert.deepEqual(validate(crd), [
    'spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{...}: must have exactly one version marked as storage version',
    'spec.subresources.scale.specReplicasPath: Invalid value: ".status.x": should be a json path under .spec',
    'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
    'spec.selectableFields[0].jsonPath: Invalid value: ".spec.nothing": is an invalid path: does not refer to a valid field',
    'spec.selectableFields[1].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field',
    'spec.names.shortNames[0]: Invalid value: "Gr": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    'spec.conversion.webhookClientConfig.url: Invalid value: "http://conv.example.com/convert": \'https\' is the only allowed URL scheme',
    'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
    'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
    'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
  ]);
  const approved = greetingCRD();
  approved.metadata = { name: 'greetings.demo.k8s.io', annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/1111' } };
  (approved.spec as any).group = 'demo.k8s.io';
  assert.deepEqual(validate(approved), []);
  approved.metadata.annotations!['api-approved.kubernetes.io'] = 'maybe';
  assert.match(validate(approved)[0]!, /with either a URL or a reason starting with "unapproved"/);
});

test('a conversion webhook by service: name, namespace, port and path checked as kube does, the port defaulted to 443', () => {
  const crd = greetingCRD();
  const spec = crd.spec as any;
  spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { service: { name: '', port: 70000, path: '/convert//Bad_' } }, conversionReviewVersions: ['v1'] } };
  assert.deepEqual(validate(crd), [
    'spec.conversion.webhookClientConfig.service.name: Required value: service name is required',
    'spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required',
    'spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
    'spec.conversion.webhookClientConfig.service.path: Invalid value: "/convert//Bad_": segment[1] may not be empty',
    'spec.conversion.webhookClientConfig.service.path: Invalid value: "/convert//Bad_": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
  ]);
  spec.conversion.webhook.clientConfig.service = { namespace: 'default', name: 'conv', path: '/convert' };
  crdResource().strategy.defaults!(crd);
  assert.equal(spec.conversion.webhook.clientConfig.service.port, 443);
  assert.deepEqual(validate(crd), []);
});

test('updates: group and plural never change, scope and kind not once established', () => {
  const old = greetingCRD();
  crdResource().strategy.defaults!(old);
  old.status = { ...(old.status as object), conditions: [{ type: 'Established', status: 'True' }] };
  const next = structuredClone(old);
  (next.spec as any).scope = 'Cluster';
  (next.spec as any).names.kind = 'Hello';
  (next.spec as any).names.listKind = 'HelloList';
  assert.deepEqual(texts(validateCustomResourceDefinition(next, old)), [
    'spec.scope: Invalid value: "Cluster": field is immutable',
    'spec.names.kind: Invalid value: "Hello": field is immutable',
  ]);
  const versions = structuredClone(old);
  (versions.spec as any).versions[0].storage = false;
  (versions.spec as any).versions.push({ ...(versions.spec as any).versions[0], name: 'v2', storage: true, selectableFields: undefined, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } });
  crdResource().strategy.defaults!(versions);
  assert.deepEqual((versions.status as any).storedVersions, ['v1', 'v2']);
  assert.deepEqual(texts(validateCustomResourceDefinition(versions, old)), []);
  (versions.spec as any).versions.shift();
  assert.deepEqual(texts(validateCustomResourceDefinition(versions, old)), [
    'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
  ]);
});

test('cost limits as kube-apiserver applies them: just under 10,000,000 per rule is accepted, just over refused', () => {
  // self.matches('^[a-z]+$') on a string of maxLength L costs 1 + ceil((4L + 1) / 10) × 2.
  const rule = { rule: "self.matches('^[a-z]+$')" };
  const withLength = (maxLength: number) => withSchema({ type: 'object', properties: { spec: { type: 'object', properties: { s: { type: 'string', maxLength, 'x-kubernetes-validations': [rule] } } } } });
  assert.deepEqual(validate(withLength(12_499_997)), [], 'estimated 9,999,999');
  assert.deepEqual(validate(withLength(12_499_998)), [
    'spec.validation.openAPIV3Schema.properties[spec].properties[s].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 1.000000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
  ]);
});

test('cost: a rule runs as often as its node can occur: maxItems, or what fits in a request when unbounded', () => {
  const item = (extra: SchemaObject) => ({ type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 63 } }, 'x-kubernetes-validations': [{ rule: "self.name.startsWith('a')" }], ...extra }) as SchemaObject;
  const list = (maxItems?: number) => withSchema({ type: 'object', properties: { spec: { type: 'object', properties: { items: { type: 'array', ...(maxItems === undefined ? {} : { maxItems }), items: item({}) } } } } });
  // The rule costs 3; bounded by maxItems it runs at most 3,333,333 times (9,999,999).
  assert.deepEqual(validate(list(3_333_333)), []);
  assert.equal(validate(list(3_333_334)).length, 1);
  // Unbounded: an item is at least 12 bytes ({"name":""}), so 3 MiB / 13 = 241,979 of them (725,937).
  assert.deepEqual(validate(list()), []);
  const prop = (): SchemaObject => ({ type: 'string', maxLength: 12_499_997, 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')" }] });
  const props = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`p${i}`, prop()]));
  const errs = validate(withSchema({ type: 'object', properties: { spec: { type: 'object', properties: props } } }));
  assert.equal(errs.length, 5, errs.join('\n'));
  assert.equal(
    errs[4],
    'spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.100000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
  );
  assert.match(errs[0]!, /x-kubernetes-validations\[0\]\.rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema$/);
});

test("cost: the cases of Kubernetes' CRD validation tests refuse and accept the same schemas, with the same fields", () => {
  const fields = (spec: Record<string, SchemaObject>) =>
    validate(withSchema({ type: 'object', properties: spec }))
      .map((e) => `${e.split(': ')[0]}: ${e.includes('contributed') ? 'contributed' : e.includes('total for entire') ? 'total' : e.includes('estimated rule cost exceeds') ? 'rule' : e}`)
      .sort();
  const P = 'spec.validation.openAPIV3Schema';
  const nested = (rule: string, key: SchemaObject, maxItems?: number, maxProperties?: number): Record<string, SchemaObject> => ({
    value: {
      type: 'array',
      ...(maxItems === undefined ? {} : { maxItems }),
      items: { type: 'object', ...(maxProperties === undefined ? {} : { maxProperties }), additionalProperties: { type: 'object', required: ['key'], properties: { key } } },
      'x-kubernetes-validations': [{ rule }],
    },
  });
  const rule = 'self.all(x, x.all(y, x[y].key == x[y].key))';
  const refused = [`${P}.properties[value].x-kubernetes-validations[0].rule: contributed`, `${P}.properties[value].x-kubernetes-validations[0].rule: rule`, `${P}: total`];
  assert.deepEqual(fields(nested(rule, { type: 'string' })), refused, 'no limit set');
  assert.deepEqual(fields(nested(rule, { type: 'string', maxLength: 10 })), refused, 'one limit set');
  assert.deepEqual(fields(nested(rule, { type: 'string', maxLength: 10 }, 10, 10)), [], 'three limits set');
  assert.deepEqual(fields(nested(rule, { type: 'number' }, 4)), [], 'one limit set on the outermost array');
  const keyword = (): SchemaObject => ({ type: 'string', maxLength: 5000, 'x-kubernetes-validations': [{ rule: "self.contains('keyword')" }] });
  assert.deepEqual(
    fields({
      list: { type: 'array', maxItems: 100_000, items: keyword() },
      map: { type: 'object', maxProperties: 1000, additionalProperties: keyword() },
      field: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 50 && self < 100' }] },
    }),
    [
      `${P}.properties[list].items.x-kubernetes-validations[0].rule: contributed`,
      `${P}.properties[list].items.x-kubernetes-validations[0].rule: rule`,
      `${P}.properties[map].additionalProperties.x-kubernetes-validations[0].rule: contributed`,
      `${P}: total`,
    ],
    'the total over 100,000,000; the map rule (2,001,000) contributes without exceeding its own limit',
  );
});
