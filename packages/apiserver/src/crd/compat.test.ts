/**
 * Small CRDs shaped like the ones well-known operators install, each reproducing one thing
 * kube-apiserver accepts: escaped property names in rules, `metadata` required at the root,
 * RE2-only pattern syntax.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '@kplane/api/testing';
import type { KubeObject } from '@kplane/api';
import { startTestServer, type JsonAnswer, type TestServer } from '../testing.js';

let t: TestServer;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const causes = (r: JsonAnswer) => (r.body.details?.causes ?? []).map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);

before(async () => {
  t = await startTestServer();
  await t.call('POST', '/api/v1/namespaces', { metadata: { name: 'demo' } });
});

after(async () => {
  await t.close();
});

/** A namespaced CRD `<plural>.compat.example.com` with one version v1 and this schema. */
function crd(plural: string, kind: string, schema: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.compat.example.com` },
    spec: {
      group: 'compat.example.com',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}

/** Creates a CRD and waits (up to 1 s) until its resource is served. */
async function install(c: KubeObject): Promise<string> {
  const created = await t.call('POST', CRDS, c);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const path = `/apis/compat.example.com/v1/namespaces/demo/${(c.spec as { names: { plural: string } }).names.plural}`;
  await until(`${path} served`, async () => (await t.call('GET', path)).status === 200, { intervalMs: 0 });
  return path;
}

const obj = (kind: string, name: string, spec: unknown) => ({ apiVersion: 'compat.example.com/v1', kind, metadata: { name }, spec });

test('rules name properties that are CEL reserved words or hold - . / __ by their escapes', async () => {
  const parentRef = {
    type: 'object',
    required: ['name'],
    properties: {
      group: { type: 'string', maxLength: 253 },
      kind: { type: 'string', maxLength: 63 },
      name: { type: 'string', maxLength: 253 },
      namespace: { type: 'string', maxLength: 63 },
      sectionName: { type: 'string', maxLength: 253 },
      port: { type: 'integer', format: 'int32' },
    },
  };
  const sameParent =
    "p1.name == p2.name && (((!has(p1.__namespace__) || p1.__namespace__ == '') && (!has(p2.__namespace__) || p2.__namespace__ == '')) || (has(p1.__namespace__) && has(p2.__namespace__) && p1.__namespace__ == p2.__namespace__))";
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          parentRefs: {
            type: 'array',
            maxItems: 32,
            items: parentRef,
            'x-kubernetes-validations': [
              {
                message: 'sectionName must be unique when parentRefs includes 2 or more references to the same parent',
                rule: `self.all(p1, self.exists_one(p2, ${sameParent} && (((!has(p1.sectionName) || p1.sectionName == '') && (!has(p2.sectionName) || p2.sectionName == '')) || (has(p1.sectionName) && has(p2.sectionName) && p1.sectionName == p2.sectionName))))`,
              },
            ],
          },
          labels: {
            type: 'object',
            properties: {
              'app.kubernetes.io/name': { type: 'string', maxLength: 63 },
              'max-surge': { type: 'integer' },
              if: { type: 'boolean' },
              a__b: { type: 'string', maxLength: 10 },
              '1st': { type: 'string' },
            },
            'x-kubernetes-validations': [
              { rule: "!has(self.app__dot__kubernetes__dot__io__slash__name) || self.app__dot__kubernetes__dot__io__slash__name != 'forbidden'", message: 'forbidden name' },
              { rule: '!has(self.max__dash__surge) || self.max__dash__surge < 10', message: 'max-surge too big' },
              { rule: '!has(self.__if__) || self.__if__', message: 'if must be true' },
              { rule: "!has(self.a__underscores__b) || self.a__underscores__b == 'ok'", message: 'a__b must be ok' },
            ],
          },
        },
      },
    },
  };
  const path = await install(crd('routes', 'Route', schema));
  const ref = (name: string, namespace?: string, sectionName?: string) => ({ name, ...(namespace ? { namespace } : {}), ...(sectionName ? { sectionName } : {}) });
  const ok = await t.call('POST', path, obj('Route', 'ok', { parentRefs: [ref('gw', 'infra', 'http'), ref('gw', 'infra', 'https'), ref('gw', 'other')], labels: { 'app.kubernetes.io/name': 'web', 'max-surge': 2, if: true, a__b: 'ok', '1st': 'x' } }));
  assert.equal(ok.status, 201, JSON.stringify(ok.body));

  const dup = await t.call('POST', path, obj('Route', 'dup', { parentRefs: [ref('gw', 'infra'), ref('gw', 'infra')] }));
  assert.equal(dup.status, 422);
  assert.deepEqual(causes(dup), ['spec.parentRefs: Invalid value: sectionName must be unique when parentRefs includes 2 or more references to the same parent']);
  const bad = await t.call('POST', path, obj('Route', 'bad', { labels: { 'app.kubernetes.io/name': 'forbidden', 'max-surge': 10, if: false, a__b: 'no' } }));
  assert.deepEqual(causes(bad), [
    'spec.labels: Invalid value: forbidden name',
    'spec.labels: Invalid value: max-surge too big',
    'spec.labels: Invalid value: if must be true',
    'spec.labels: Invalid value: a__b must be ok',
  ]);
});

test('a rule naming a property by another name than its escape does not compile', async () => {
  const c = crd('plains', 'Plain', {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { 'max-surge': { type: 'integer' }, '1st': { type: 'string' } },
        'x-kubernetes-validations': [{ rule: 'self.max_surge > 0' }],
      },
    },
  });
  const refused = await t.call('POST', CRDS, c);
  assert.equal(refused.status, 422);
  assert.match(refused.body.message, /undefined field 'max_surge'/);
});

test("a schema listing metadata (and apiVersion, kind) as required at the root accepts objects, as kube-apiserver does", async () => {
  const path = await install(
    crd('settings', 'Setting', { type: 'object', required: ['apiVersion', 'kind', 'metadata', 'spec'], properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } }),
  );
  const created = await t.call('POST', path, obj('Setting', 's', { x: 'y' }));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const missing = await t.call('POST', path, { apiVersion: 'compat.example.com/v1', kind: 'Setting', metadata: { name: 't' } });
  assert.deepEqual(causes(missing), ['spec: Required value']);
});

test('patterns are RE2: inline flags, \\z and named groups are accepted and enforced; invalid RE2 is refused with Go’s message', async () => {
  const path = await install(
    crd('hosts', 'Host', {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            scheme: { type: 'string', pattern: '(?i)^https?$' },
            name: { type: 'string', pattern: '^[a-z]+\\z' },
            version: { type: 'string', pattern: '^v(?P<major>[0-9]+)$' },
          },
        },
      },
    }),
  );
  assert.equal((await t.call('POST', path, obj('Host', 'a', { scheme: 'HTTPS', name: 'abc', version: 'v1' }))).status, 201);
  const bad = await t.call('POST', path, obj('Host', 'b', { scheme: 'ftp', name: 'abc\n', version: 'v' }));
  assert.deepEqual(causes(bad), [
    `spec.scheme: Invalid value: "ftp": spec.scheme in body should match '(?i)^https?$'`,
    `spec.name: Invalid value: "abc\\n": spec.name in body should match '^[a-z]+\\z'`,
    `spec.version: Invalid value: "v": spec.version in body should match '^v(?P<major>[0-9]+)$'`,
  ]);
  const invalid = await t.call('POST', CRDS, crd('lookarounds', 'Lookaround', { type: 'object', properties: { spec: { type: 'string', pattern: '^(?!x)' } } }));
  assert.equal(invalid.status, 422);
  assert.deepEqual(causes(invalid), [
    "spec.validation.openAPIV3Schema.properties[spec].pattern: Invalid value: \"^(?!x)\": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `(?!`",
  ]);
});
