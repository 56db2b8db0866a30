/**
 * Request bodies and patch results of built-in kinds: wrong JSON types, depth, int64, YAML
 * aliases, duplicate fields, __proto__ keys and size limits answer as kube-apiserver does, and
 * a refused write leaves the stored object as it was.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_NESTING_DEPTH } from '@kplane/api';
import { startTestServer, type TestServer } from '../testing.js';

const CM = '/api/v1/namespaces/default/configmaps';
const SECRETS = '/api/v1/namespaces/default/secrets';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const SVC = '/api/v1/namespaces/default/services';
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSONPATCH = { 'content-type': 'application/json-patch+json' };

function deployment(name: string, replicas: unknown = 1): string {
  return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"},"spec":{"replicas":${String(replicas)},"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`;
}

/** `{"a":{"a":...1...}}`: `depth` nested objects. */
function nested(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

describe('body and patch decoding of built-in kinds', () => {
  let t: TestServer;
  let stored: any;
  before(async () => {
    t = await startTestServer();
    const r = await t.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', labels: { app: 'x' }, finalizers: ['example.com/hold'] }, data: { k: 'v' } });
    assert.equal(r.status, 201);
    stored = r.body;
  });
  after(async () => {
    // Let the held object go so the server can close cleanly.
    await t.call('PATCH', `${CM}/keep`, { metadata: { finalizers: null } }, MERGE);
    await t.close();
  });

  async function assertUnchanged(): Promise<void> {
    const now = await t.call('GET', `${CM}/keep`);
    assert.equal(now.status, 200);
    assert.deepEqual(now.body, stored);
  }

  it('refuses wrongly typed metadata and data with the Go decoder message (400)', async () => {
    const cases: [unknown, string][] = [
      [{ metadata: { name: [false] } }, 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.name of type string'],
      [{ metadata: { name: 'x', labels: ['a'] } }, 'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string'],
      [{ metadata: { name: 'x' }, data: { a: { b: 1 } } }, 'json: cannot unmarshal object into Go struct field ConfigMap.data of type string'],
      [{ metadata: { name: 'x', finalizers: 'abc' } }, 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string'],
      [{ metadata: { name: 'x', ownerReferences: {} } }, 'json: cannot unmarshal object into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference'],
      [{ metadata: { name: 'x', managedFields: 'm' } }, 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry'],
      [{ metadata: { name: 'x', annotations: { a: 1 } } }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type string'],
      [{ metadata: 'x' }, 'json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta'],
    ];
    for (const [body, msg] of cases) {
      const r = await t.call('POST', CM, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.reason, 'BadRequest');
      assert.equal(r.body.message, `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${msg}`);
    }
    // The same values sent to the stored object: refused by PUT (400) and by every patch type (422).
    const bad: [string, unknown][] = [['name', [false]], ['labels', ['a']], ['finalizers', 'abc'], ['ownerReferences', {}], ['managedFields', 'm']];
    for (const [field, value] of bad) {
      if (field !== 'name') {
        const put = await t.call('PUT', `${CM}/keep`, { ...stored, metadata: { ...stored.metadata, [field]: value } });
        assert.equal(put.status, 400, field);
      }
      const merge = await t.call('PATCH', `${CM}/keep`, { metadata: { [field]: value } }, MERGE);
      assert.ok(merge.status === 422 || (field === 'name' && merge.status === 400), `${field}: ${merge.status}`);
      const smp = await t.call('PATCH', `${CM}/keep`, { metadata: { [field]: value } }, SMP);
      assert.ok(smp.status === 422 || smp.status === 400, `${field}: ${smp.status}`);
      const jp = await t.call('PATCH', `${CM}/keep`, [{ op: 'add', path: `/metadata/${field}`, value }], JSONPATCH);
      assert.ok(jp.status === 422 || (field === 'name' && jp.status === 400), `${field}: ${jp.status}`);
    }
    const data = await t.call('PATCH', `${CM}/keep`, { data: { k: { b: 1 } } }, MERGE);
    assert.equal(data.status, 422);
    await assertUnchanged();
  });

  it('checks int32 ranges and types deep in a Deployment; int-or-string and quantities pass', async () => {
    assert.equal((await t.call('POST', DEPLOY, deployment('kept'))).status, 201);
    const kept = (await t.call('GET', `${DEPLOY}/kept`)).body;
    for (const [headers, patch] of [
      [MERGE, '{"spec":{"replicas":18446744073709551616}}'],
      [SMP, '{"spec":{"replicas":18446744073709551616}}'],
      [JSONPATCH, '[{"op":"replace","path":"/spec/replicas","value":18446744073709551616}]'],
      [MERGE, '{"spec":{"replicas":2147483648}}'],
      [SMP, '{"spec":{"replicas":-2147483649}}'],
    ] as const) {
      const r = await t.call('PATCH', `${DEPLOY}/kept`, patch, headers);
      assert.ok(r.status === 400 || r.status === 422, patch);
    }
    assert.deepEqual((await t.call('GET', `${DEPLOY}/kept`)).body, kept);
    const big = await t.call('POST', DEPLOY, deployment('big', '18446744073709551616'));
    assert.equal(big.status, 400);
    assert.equal(big.body.message, 'json: cannot unmarshal number 18446744073709551616 into Go struct field .spec.replicas of type int64');
    const over = await t.call('POST', DEPLOY, deployment('over', 3000000000));
    assert.equal(over.status, 400);
    assert.equal(over.body.message, 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32');
    const frac = await t.call('POST', DEPLOY, deployment('frac', 1.5));
    assert.match(frac.body.message, /cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32$/);
    const ok = JSON.parse(deployment('ok'));
    ok.spec.strategy = { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } };
    ok.spec.template.spec.containers[0].resources = { limits: { cpu: '100m', memory: 1024 }, requests: { cpu: 0.05 } };
    assert.equal((await t.call('POST', DEPLOY, ok)).status, 201);
    const name = JSON.parse(deployment('n'));
    name.spec.template.spec.containers[0].name = 5;
    assert.match((await t.call('POST', DEPLOY, name)).body.message, /Go struct field Container\.spec\.template\.spec\.containers\.name of type string$/);
    const surge = JSON.parse(deployment('s'));
    surge.spec.strategy = { rollingUpdate: { maxSurge: true } };
    assert.match((await t.call('POST', DEPLOY, surge)).body.message, /: json: cannot unmarshal bool into Go value of type int32$/);
    const qty = JSON.parse(deployment('q'));
    qty.spec.template.spec.containers[0].resources = { limits: { cpu: 'lots' } };
    assert.match((await t.call('POST', DEPLOY, qty)).body.message, /: quantities must match the regular expression/);
    const scale = await t.call('PATCH', `${DEPLOY}/ok/scale`, { spec: { replicas: 'x' } }, MERGE);
    assert.equal(scale.status, 422);
    assert.match(scale.body.message, /cannot unmarshal string into Go struct field ScaleSpec\.spec\.replicas of type int32$/);
    assert.equal((await t.call('GET', `${DEPLOY}/ok`)).body.spec.replicas, 1);
  });

  it('pods/binding: a wrongly typed Binding is 400 and the pod is not touched', async () => {
    const PODS = '/api/v1/namespaces/default/pods';
    assert.equal((await t.call('POST', PODS, { metadata: { name: 'bp' }, spec: { containers: [{ name: 'c', image: 'i' }] } })).status, 201);
    const before = (await t.call('GET', `${PODS}/bp`)).body;
    const binding = (meta: unknown, target: unknown) => ({ apiVersion: 'v1', kind: 'Binding', metadata: meta, target });
    const ann = await t.call('POST', `${PODS}/bp/binding`, binding({ name: 'bp', annotations: { a: { b: 1 } } }, { name: 'n1' }));
    assert.equal(ann.status, 400);
    assert.equal(ann.body.message, 'Binding in version "v1" cannot be handled as a Binding: json: cannot unmarshal object into Go struct field ObjectMeta.metadata.annotations of type string');
    const target = await t.call('POST', `${PODS}/bp/binding`, binding({ name: 'bp' }, { name: ['n1'] }));
    assert.equal(target.status, 400);
    assert.match(target.body.message, /Go struct field ObjectReference\.target\.name of type string$/);
    assert.deepEqual((await t.call('GET', `${PODS}/bp`)).body, before);
    const ok = await t.call('POST', `${PODS}/bp/binding`, binding({ name: 'bp', annotations: { a: 'b' } }, { name: 'n1' }));
    assert.equal(ok.status, 201);
    assert.equal((await t.call('GET', `${PODS}/bp`)).body.spec.nodeName, 'n1');
  });

  it('CustomResourceDefinitions: the schema fields kplane reads are typed', async () => {
    const crd = (schema: unknown) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      },
    });
    const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const rules = await t.call('POST', CRDS, crd({ type: 'object', 'x-kubernetes-validations': [null, ['a']] }));
    assert.equal(rules.status, 400);
    assert.match(rules.body.message, /cannot unmarshal array into Go struct field JSONSchemaProps\.spec\.versions\.schema\.openAPIV3Schema\.x-kubernetes-validations of type v1\.ValidationRule$/);
    const required = await t.call('POST', CRDS, crd({ type: 'object', properties: { a: { type: 'array', items: { type: 'object', required: {} } } } }));
    assert.equal(required.status, 400);
    assert.match(required.body.message, /Go struct field JSONSchemaProps\.spec\.versions\.schema\.openAPIV3Schema\.properties\.items\.required of type \[\]string$/);
    const addl = await t.call('POST', CRDS, crd({ type: 'object', additionalProperties: 5 }));
    assert.equal(addl.status, 400);
    assert.match(addl.body.message, /: boolean or JSON schema expected$/);
  });

  it('a strategic merge patch that does not decode is 422 and changes nothing (finalizers: {})', async () => {
    const r = await t.call('PATCH', `${CM}/keep`, { metadata: { finalizers: {} } }, SMP);
    assert.equal(r.status, 422);
    assert.equal(r.body.reason, 'Invalid');
    assert.equal(r.body.message, ' "" is invalid: patch: Invalid value: "map[metadata:map[finalizers:map[]]]": cannot restore slice from map');
    assert.deepEqual(r.body.details.causes, [{ reason: 'FieldValueInvalid', field: 'patch', message: 'Invalid value: "map[metadata:map[finalizers:map[]]]": cannot restore slice from map' }]);
    const data = await t.call('PATCH', `${CM}/keep`, { data: { k: 5 } }, SMP);
    assert.equal(data.status, 422);
    assert.match(data.body.message, /: cannot convert int64 to string$/);
    await assertUnchanged();
  });

  it('merge and JSON patches that do not decode are 422 naming the patched object', async () => {
    const merge = await t.call('PATCH', `${CM}/keep`, { metadata: { labels: ['x'] } }, MERGE);
    assert.equal(merge.status, 422);
    assert.match(merge.body.message, /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",.*\}": json: cannot unmarshal array into Go struct field ObjectMeta\.metadata\.labels of type map\[string\]string$/);
    const jp = await t.call('PATCH', `${CM}/keep`, [{ op: 'replace', path: '/metadata/finalizers', value: 'x' }], JSONPATCH);
    assert.equal(jp.status, 422);
    assert.match(jp.body.message, /cannot unmarshal string into Go struct field ObjectMeta\.metadata\.finalizers of type \[\]string$/);
    const mf = await t.call('PATCH', `${CM}/keep`, { metadata: { managedFields: 'x' } }, MERGE);
    assert.equal(mf.status, 422);
    await assertUnchanged();
  });

  it('__proto__, constructor and prototype keys are stored as data by every patch type', async () => {
    await t.call('POST', CM, { metadata: { name: 'proto' }, data: {} });
    const merge = await t.call('PATCH', `${CM}/proto`, '{"data":{"__proto__":"m","constructor":"c"}}', MERGE);
    assert.equal(merge.status, 200);
    const smp = await t.call('PATCH', `${CM}/proto`, '{"data":{"__proto__":"s","prototype":"p"}}', SMP);
    assert.equal(smp.status, 200);
    const jp = await t.call('PATCH', `${CM}/proto`, [{ op: 'add', path: '/data/constructor', value: 'j' }], JSONPATCH);
    assert.equal(jp.status, 200);
    const polluting = await t.call('PATCH', `${CM}/proto`, '{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}', MERGE);
    assert.equal(polluting.status, 422);
    const got = await t.call('GET', `${CM}/proto`);
    assert.deepEqual(got.body.data, JSON.parse('{"__proto__":"s","constructor":"j","prototype":"p"}'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });

  it('nesting is bounded for bodies and for the results of every patch type', async () => {
    const svc = (inner: string) => `{"metadata":{"name":"deep"},"spec":{"ports":[{"port":80}],"sessionAffinityConfig":${inner}}}`;
    // The service body and its spec are the 2 levels above sessionAffinityConfig's value.
    const room = MAX_NESTING_DEPTH - 2;
    const created = await t.call('POST', SVC, svc(nested(room)));
    assert.equal(created.status, 201, JSON.stringify(created.body).slice(0, 200));
    const tooDeep = await t.call('POST', SVC, svc(nested(room + 1)).replace('"deep"', '"deeper"'));
    assert.equal(tooDeep.status, 400);
    assert.equal(tooDeep.body.message, `json: exceeded max depth of ${MAX_NESTING_DEPTH}`);
    for (const [headers, body] of [
      [MERGE, `{"spec":{"sessionAffinityConfig":${nested(room)}}}`],
      [SMP, `{"spec":{"sessionAffinityConfig":${nested(room)}}}`],
    ] as const) {
      const r = await t.call('PATCH', `${SVC}/deep`, body, headers);
      assert.equal(r.status, 200);
    }
    // The result of a JSON patch is checked too (the unknown fields above were dropped on write).
    const jp = await t.call('PATCH', `${SVC}/deep`, [{ op: 'add', path: '/spec/sessionAffinityConfig', value: JSON.parse(nested(room + 1)) }], JSONPATCH);
    assert.equal(jp.status, 400);
    assert.equal(jp.body.message, `json: exceeded max depth of ${MAX_NESTING_DEPTH}`);
    for (const depth of [3000, 20000]) {
      const deep = await t.call('POST', CM, `{"metadata":{"name":"d"},"x":${'['.repeat(depth)}${']'.repeat(depth)}}`);
      assert.equal(deep.status, 400);
      const patched = await t.call('PATCH', `${CM}/keep`, `{"data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`, MERGE);
      assert.equal(patched.status, 400);
    }
    await assertUnchanged();
  });

  it('YAML bodies: excessive aliasing and deep nesting are 400', async () => {
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: lol}', 'x:', '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [i, c] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) {
      const prev = 'abcdefghi'[i];
      lines.push(`  ${c}: &${c} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const lol = await t.call('POST', CM, lines.join('\n') + '\n', { 'content-type': 'application/yaml' });
    assert.equal(lol.status, 400);
    assert.equal(lol.body.message, 'yaml: document contains excessive aliasing');
    const deep = await t.call('POST', CM, `metadata: {name: y}\nx: ${'['.repeat(3000)}${']'.repeat(3000)}\n`, { 'content-type': 'application/yaml' });
    assert.equal(deep.status, 400);
    assert.equal(deep.body.message, `yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`);
    const ok = await t.call('POST', CM, 'metadata: {name: anchors}\ndata:\n  a: &v shared\n  b: *v\n', { 'content-type': 'application/yaml' });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.data, { a: 'shared', b: 'shared' });
  });

  it('duplicate fields: a warning by default, 400 under Strict, 422 for a patch under Strict', async () => {
    const warn = await t.call('POST', CM, '{"metadata":{"name":"dup1","name":"dup2"},"data":{"a":"1","a":"2"}}');
    assert.equal(warn.status, 201);
    assert.equal(warn.body.metadata.name, 'dup2');
    assert.equal(warn.headers.warning, '299 - "duplicate field \\"metadata.name\\"", 299 - "duplicate field \\"data.a\\""');
    const strict = await t.call('POST', `${CM}?fieldValidation=Strict`, '{"metadata":{"name":"dup3","name":"dup4"}}');
    assert.equal(strict.status, 400);
    assert.equal(strict.body.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name"');
    const yaml = await t.call('POST', `${CM}?fieldValidation=Strict`, 'metadata:\n  name: dupy\ndata:\n  a: "1"\n  a: "2"\n', { 'content-type': 'application/yaml' });
    assert.equal(yaml.status, 400);
    assert.match(yaml.body.message, /strict decoding error: duplicate field "data\.a"$/);
    const ignore = await t.call('POST', `${CM}?fieldValidation=Ignore`, '{"metadata":{"name":"dup5","name":"dup6"}}');
    assert.equal(ignore.status, 201);
    assert.equal(ignore.headers.warning, undefined);
    const put = await t.call('PUT', `${CM}/dup2?fieldValidation=Strict`, '{"metadata":{"name":"dup2"},"data":{"b":"1","b":"2"}}');
    assert.equal(put.status, 400);
    assert.match(put.body.message, /strict decoding error: duplicate field "data\.b"$/);
    const patch = await t.call('PATCH', `${CM}/keep?fieldValidation=Strict`, '{"data":{"q":"1","q":"2"}}', MERGE);
    assert.equal(patch.status, 422);
    assert.match(patch.body.message, /: strict decoding error: duplicate field "data\.q"$/);
    const unknown = await t.call('PATCH', `${CM}/keep?fieldValidation=Strict`, { datta: {} }, SMP);
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.message, ' "" is invalid: patch: Invalid value: "map[datta:map[]]": strict decoding error: unknown field "datta"');
    await assertUnchanged();
  });

  it('ConfigMap and Secret data over 1 MiB and annotations over 256 KiB are 422', async () => {
    const mib = 1024 * 1024;
    const cm = await t.call('POST', CM, { metadata: { name: 'huge' }, data: { a: 'x'.repeat(mib - 10) }, binaryData: { b: Buffer.alloc(11).toString('base64') } });
    assert.equal(cm.status, 422);
    assert.equal(cm.body.message, 'ConfigMap "huge" is invalid: []: Too long: must have at most 1048576 bytes');
    assert.equal((await t.call('POST', CM, { metadata: { name: 'fits' }, data: { a: 'x'.repeat(mib - 10) }, binaryData: { b: Buffer.alloc(10).toString('base64') } })).status, 201);
    const secret = await t.call('POST', SECRETS, { metadata: { name: 'huge' }, data: { a: Buffer.alloc(mib + 1).toString('base64') } });
    assert.equal(secret.status, 422);
    assert.equal(secret.body.message, 'Secret "huge" is invalid: data: Too long: must have at most 1048576 bytes');
    const viaString = await t.call('POST', SECRETS, { metadata: { name: 'huge2' }, stringData: { a: 'x'.repeat(mib + 1) } });
    assert.equal(viaString.status, 422);
    const badB64 = await t.call('POST', SECRETS, { metadata: { name: 'b64' }, data: { a: 'not base64!' } });
    assert.equal(badB64.status, 400);
    assert.equal(badB64.body.message, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3');
    const ann = await t.call('PATCH', `${CM}/keep`, { metadata: { annotations: { big: 'x'.repeat(256 * 1024) } } }, MERGE);
    assert.equal(ann.status, 422);
    assert.equal(ann.body.message, 'ConfigMap "keep" is invalid: metadata.annotations: Too long: must have at most 262144 bytes');
    await assertUnchanged();
  });
});
