import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer, type TestServer } from '../../../testing.js';
import type { MutatingStep } from '../../types.js';

const AR = '/apis/admissionregistration.k8s.io/v1alpha1';
const CMS = '/api/v1/namespaces/default/configmaps';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';

async function withServer(fn: (s: TestServer) => Promise<void>, extraSteps: MutatingStep[] = []): Promise<void> {
  const s = await startTestServer({ admission: { extraSteps } });
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

const cmRules = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] };

function policy(name: string, spec: object, matchConstraints: object = cmRules) {
  return { apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints, ...spec } };
}
function binding(name: string, policyName: string, spec: object = {}) {
  return { apiVersion: 'admissionregistration.k8s.io/v1alpha1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, ...spec } };
}
const applyConfig = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });
function configMap(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
}
async function create(s: TestServer, path: string, body: object): Promise<Record<string, any>> {
  const r = await s.call('POST', path, body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

test('an ApplyConfiguration mutation adds a label; a JSONPatch one sets a default; the stored object has both', () =>
  withServer(async (s) => {
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('add-label', { mutations: [applyConfig('Object{metadata: Object.metadata{labels: {"mutated-by": "policy"}}}')] }));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('add-label', 'add-label'));
    await create(
      s,
      `${AR}/mutatingadmissionpolicies`,
      policy('default-color', {
        matchConditions: [{ name: 'no-color', expression: "!has(object.data) || !('color' in object.data)" }],
        mutations: [jsonPatch('has(object.data) ? [JSONPatch{op: "add", path: "/data/color", value: "blue"}] : [JSONPatch{op: "add", path: "/data", value: {"color": "blue"}}]')],
      }),
    );
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('default-color', 'default-color'));
    const made = await create(s, CMS, configMap('a', { app: 'x' }, { size: 'L' }));
    assert.deepEqual(made.metadata.labels, { app: 'x', 'mutated-by': 'policy' });
    assert.deepEqual(made.data, { size: 'L', color: 'blue' });
    const kept = await create(s, CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { color: 'red' } });
    assert.deepEqual(kept.data, { color: 'red' });
    const bare = await create(s, CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
    assert.deepEqual(bare.data, { color: 'blue' });
    assert.deepEqual((await s.call('GET', `${CMS}/a`)).body.metadata.labels, { app: 'x', 'mutated-by': 'policy' });
    // Other kinds are not matched.
    const secret = await create(s, '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } });
    assert.equal(secret.metadata.labels, undefined);
  }));

test('apply configurations merge lists by their keys and may not set atomic lists', () =>
  withServer(async (s) => {
    const deployRules = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] };
    const pull = 'Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: object.spec.template.spec.containers.map(c, Object.spec.template.spec.containers{name: c.name, imagePullPolicy: "Always"})}}}}';
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('pull', { mutations: [applyConfig(pull)] }, deployRules));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('pull', 'pull'));
    const containers = [
      { name: 'a', image: 'nginx' },
      { name: 'b', image: 'redis', imagePullPolicy: 'Never' },
    ];
    const d = await create(s, DEPLOYS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers } } } });
    assert.deepEqual(
      d.spec.template.spec.containers.map((c: { name: string; image: string; imagePullPolicy: string }) => [c.name, c.image, c.imagePullPolicy]),
      [
        ['a', 'nginx', 'Always'],
        ['b', 'redis', 'Always'],
      ],
    );
    // spec.selector.matchLabels is a granular map but the selector's matchExpressions an atomic list.
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('atomic', { mutations: [applyConfig('Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{tolerations: [Object.spec.template.spec.tolerations{key: "k", operator: "Exists"}]}}}}')] }, deployRules));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('atomic', 'atomic'));
    const r = await s.call('POST', DEPLOYS, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'e' }, spec: { selector: { matchLabels: { app: 'e' } }, template: { metadata: { labels: { app: 'e' } }, spec: { containers } } } });
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.equal(r.body.reason, 'Invalid');
    assert.match(r.body.message, /^policy 'atomic' with binding 'atomic' denied request: .*may not mutate atomic arrays, maps or structs: \.spec\.template\.spec\.tolerations$/);
  }));

test('an expression that errors follows failurePolicy: Fail refuses with kube\'s message, Ignore admits unchanged', () =>
  withServer(async (s) => {
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('broken', { mutations: [jsonPatch('[JSONPatch{op: "add", path: "/data/x", value: object.data.nothere}]')] }));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('broken-binding', 'broken'));
    const r = await s.call('POST', CMS, configMap('a', {}, { k: 'v' }));
    assert.equal(r.status, 403);
    assert.equal(r.body.reason, 'Invalid');
    assert.equal(r.body.message, `policy 'broken' with binding 'broken-binding' denied request: expression '[JSONPatch{op: "add", path: "/data/x", value: object.data.nothere}]' resulted in error: no such key: nothere`);
    assert.deepEqual(r.body.details, { name: 'a', kind: 'configmaps', causes: [{ message: r.body.message }] });
    const p = (await s.call('GET', `${AR}/mutatingadmissionpolicies/broken`)).body;
    assert.equal(p.spec.failurePolicy, 'Fail');
    assert.equal(p.spec.reinvocationPolicy, 'Never');
    assert.equal((await s.call('PUT', `${AR}/mutatingadmissionpolicies/broken`, { ...p, spec: { ...p.spec, failurePolicy: 'Ignore' } })).status, 200);
    const ok = await create(s, CMS, configMap('a', {}, { k: 'v' }));
    assert.deepEqual(ok.data, { k: 'v' });
  }));

test('params and variables: a ConfigMap gives the value; a missing param with Deny refuses', () =>
  withServer(async (s) => {
    await create(
      s,
      `${AR}/mutatingadmissionpolicies`,
      policy('owner', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        variables: [{ name: 'owner', expression: 'params.data.owner' }],
        matchConditions: [{ name: 'not-the-param', expression: "object.metadata.name != 'settings'" }],
        mutations: [applyConfig('Object{metadata: Object.metadata{annotations: {"owner": variables.owner}}}')],
      }),
    );
    await create(s, CMS, configMap('settings', {}, { owner: 'team-a' }));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('owner', 'owner', { paramRef: { name: 'settings', namespace: 'default', parameterNotFoundAction: 'Deny' } }));
    const made = await create(s, CMS, configMap('x'));
    assert.deepEqual(made.metadata.annotations, { owner: 'team-a' });
    assert.equal((await s.call('DELETE', `${CMS}/settings`)).status, 200);
    const r = await s.call('POST', CMS, configMap('y'));
    assert.equal(r.status, 403);
    assert.match(r.body.message, /denied request: no params found for policy binding with `Deny` parameterNotFoundAction$/);
  }));

test('reinvocationPolicy IfNeeded runs a policy again after a later one changed the object', () =>
  withServer(async (s) => {
    // "a-count" runs first (policies in name order) and records how many labels it saw.
    const count = 'Object{metadata: Object.metadata{annotations: {"labels-seen": string(size(object.metadata.labels))}}}';
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('a-count', { reinvocationPolicy: 'IfNeeded', mutations: [applyConfig(count)] }));
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('b-label', { mutations: [applyConfig('Object{metadata: Object.metadata{labels: {"b": "yes"}}}')] }));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('a', 'a-count'));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('b', 'b-label'));
    const made = await create(s, CMS, configMap('x', { one: '1' }));
    assert.equal(made.metadata.annotations['labels-seen'], '2');
    const p = (await s.call('GET', `${AR}/mutatingadmissionpolicies/a-count`)).body;
    assert.equal((await s.call('PUT', `${AR}/mutatingadmissionpolicies/a-count`, { ...p, spec: { ...p.spec, reinvocationPolicy: 'Never' } })).status, 200);
    const once = await create(s, CMS, configMap('y', { one: '1' }));
    assert.equal(once.metadata.annotations['labels-seen'], '1');
  }));

test('the kinds validate as kube-apiserver does and print their Table columns', () =>
  withServer(async (s) => {
    const empty = await s.call('POST', `${AR}/mutatingadmissionpolicies`, policy('p', {}));
    assert.equal(empty.status, 422);
    assert.match(empty.body.message, /spec.mutations: Required value: mutations must contain at least one item/);
    const del = await s.call('POST', `${AR}/mutatingadmissionpolicies`, policy('p', { mutations: [jsonPatch('[]')] }, { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }] }));
    assert.equal(del.status, 422);
    assert.match(del.body.message, /spec.matchConstraints.resourceRules\[0\].operations\[0\]: Unsupported value: "DELETE"/);
    const bad = await s.call('POST', `${AR}/mutatingadmissionpolicies`, policy('p', { mutations: [applyConfig('Object{spec: ')] }));
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /spec.mutations\[0\].applyConfiguration.expression: Invalid value: "Object\{spec: ": compilation failed: ERROR: <input>:1:/);
    const mixed = await s.call('POST', `${AR}/mutatingadmissionpolicies`, policy('p', { mutations: [{ patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } }] }));
    assert.equal(mixed.status, 422);
    assert.match(mixed.body.message, /spec.mutations\[0\].applyConfiguration: Forbidden/);
    const vars = await s.call('POST', `${AR}/mutatingadmissionpolicies`, policy('p', { variables: [{ name: 'in', expression: '1' }, { name: 'x', expression: ' ' }], mutations: [jsonPatch('[]')] }));
    assert.equal(vars.status, 422);
    assert.match(vars.body.message, /spec.variables\[0\].name: Invalid value: "in": name is not a valid CEL identifier/);
    assert.match(vars.body.message, /spec.variables\[1\].expression: Required value: expression is not specified/);
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('p', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [jsonPatch('[]'), jsonPatch('[]')] }));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('b', 'p', { paramRef: { selector: { matchLabels: { a: 'b' } }, parameterNotFoundAction: 'Allow' } }));
    const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    assert.deepEqual((await s.call('GET', `${AR}/mutatingadmissionpolicies`, undefined, table)).body.rows[0].cells.slice(0, 3), ['p', 2, 'v1/ConfigMap']);
    assert.deepEqual((await s.call('GET', `${AR}/mutatingadmissionpolicybindings`, undefined, table)).body.rows[0].cells.slice(0, 3), ['b', 'p', 'a=b']);
    const groups = (await s.call('GET', '/apis/admissionregistration.k8s.io')).body;
    assert.equal(groups.preferredVersion.version, 'v1');
    assert.deepEqual(groups.versions.map((v: { version: string }) => v.version), ['v1', 'v1alpha1']);
  }));

test('a failed JSONPatch test leaves the object as it was; an added container gets its defaults; unknown fields are refused', () =>
  withServer(async (s) => {
    const deployRules = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] };
    const sidecar = '[JSONPatch{op: "test", path: "/metadata/labels/sidecar", value: "yes"}, JSONPatch{op: "add", path: "/spec/template/spec/containers/-", value: Object.spec.template.spec.containers{name: "log", image: "busybox"}}]';
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('sidecar', { mutations: [jsonPatch(sidecar)] }, deployRules));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('sidecar', 'sidecar'));
    const deployment = (name: string, labels: Record<string, string>) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, labels },
      spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    });
    const without = await create(s, DEPLOYS, deployment('plain', {}));
    assert.deepEqual(without.spec.template.spec.containers.map((c: { name: string }) => c.name), ['app']);
    const withSidecar = await create(s, DEPLOYS, deployment('logged', { sidecar: 'yes' }));
    const log = withSidecar.spec.template.spec.containers[1];
    assert.deepEqual([log.name, log.imagePullPolicy, log.terminationMessagePath], ['log', 'Always', '/dev/termination-log']);

    await create(s, `${AR}/mutatingadmissionpolicies`, policy('typo', { mutations: [applyConfig('Object{spec: Object.spec{replicaz: 2}}')] }, deployRules));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('typo', 'typo'));
    const r = await s.call('POST', DEPLOYS, deployment('x', {}));
    assert.equal(r.status, 403);
    assert.match(r.body.message, /^policy 'typo' with binding 'typo' denied request: error applying patch: failed to convert patch object to typed object: \.spec\.replicaz: field not declared in schema$/);
  }));

test('the chain runs an IfNeeded policy again when a later admission step changed the object it produced', async () => {
  // A step after the policies (as a mutating webhook is) labels every ConfigMap.
  const labeller: MutatingStep = {
    name: 'Labeller',
    operations: ['CREATE'],
    admit(attrs) {
      if (attrs.resource.resource !== 'configmaps' || !attrs.object) return;
      const meta = (attrs.object.metadata ??= {});
      meta.labels = { ...(meta.labels as Record<string, string> | undefined), late: 'yes' };
    },
  };
  await withServer(async (s) => {
    const count = 'Object{metadata: Object.metadata{annotations: {"labels-seen": string(size(object.metadata.labels))}}}';
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('count', { reinvocationPolicy: 'IfNeeded', mutations: [applyConfig(count)] }));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('count', 'count'));
    const again = await create(s, CMS, configMap('x', { one: '1' }));
    assert.deepEqual(again.metadata.labels, { one: '1', late: 'yes' });
    assert.equal(again.metadata.annotations['labels-seen'], '2');
    const p = (await s.call('GET', `${AR}/mutatingadmissionpolicies/count`)).body;
    assert.equal((await s.call('PUT', `${AR}/mutatingadmissionpolicies/count`, { ...p, spec: { ...p.spec, reinvocationPolicy: 'Never' } })).status, 200);
    const once = await create(s, CMS, configMap('y', { one: '1' }));
    assert.equal(once.metadata.annotations['labels-seen'], '1');
  }, [labeller]);
});

test('constructed objects are named by their field path and a mutation returns the type its patchType asks for', () =>
  withServer(async (s) => {
    const mismatch = 'Object{metadata: Object.metadata{labels: {"a": "b"}}, spec: Object.wrong{}}';
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('wrong', { mutations: [applyConfig(mismatch)] }));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('wrong', 'wrong'));
    const r = await s.call('POST', CMS, configMap('a'));
    assert.equal(r.status, 403);
    assert.equal(r.body.message, `policy 'wrong' with binding 'wrong' denied request: type mismatch: unexpected type name "Object.wrong", expected "Object.spec", which matches field name path from root Object type`);
    const p = (await s.call('GET', `${AR}/mutatingadmissionpolicies/wrong`)).body;
    const plain = { ...p, spec: { ...p.spec, mutations: [jsonPatch('[{"op": "add", "path": "/data", "value": {}}]')] } };
    assert.equal((await s.call('PUT', `${AR}/mutatingadmissionpolicies/wrong`, plain)).status, 200);
    const r2 = await s.call('POST', CMS, configMap('a'));
    assert.match(r2.body.message, /denied request: type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch$/);
  }));

test('a null in an apply configuration removes the field', () =>
  withServer(async (s) => {
    await create(s, `${AR}/mutatingadmissionpolicies`, policy('drop', { mutations: [applyConfig('Object{metadata: Object.metadata{labels: {"drop-me": null}}}')] }));
    await create(s, `${AR}/mutatingadmissionpolicybindings`, binding('drop', 'drop'));
    const made = await create(s, CMS, configMap('a', { 'drop-me': 'x', keep: 'y' }));
    assert.deepEqual(made.metadata.labels, { keep: 'y' });
  }));
