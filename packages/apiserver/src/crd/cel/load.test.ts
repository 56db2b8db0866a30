/**
 * The CEL library stays off the start path: no module but the loader imports it, and a fresh
 * process starting an API server loads it only once something needs CEL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { holdsCelRules } from './load.js';

/** A module specifier of the CEL library, quoted as an import or a require names it (comments aside). */
const LIBRARY = /['"]@marcbachmann\/cel-js(?:\/[^'"]*)?['"]/;

/** The built modules of the package (tests aside), relative to its dist directory. */
function builtModules(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...builtModules(join(dir, e.name), `${prefix}${e.name}/`));
    else if (e.name.endsWith('.js') && !e.name.endsWith('.test.js')) out.push(`${prefix}${e.name}`);
  }
  return out;
}

test('only the loader imports the CEL library (every other import of it is of types)', () => {
  const dist = fileURLToPath(new URL('../../', import.meta.url));
  const importers = builtModules(dist).filter((f) => LIBRARY.test(readFileSync(join(dist, f), 'utf8')));
  assert.deepEqual(importers, ['crd/cel/load.js']);
});

/** Runs an ES module script in a fresh Node process (from the package's directory); resolves with the JSON of its last line. */
async function inFreshProcess(script: string): Promise<unknown> {
  const cwd = fileURLToPath(new URL('../../../', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

const TESTING = JSON.stringify(new URL('../../testing.js', import.meta.url).href);
const SERVER = JSON.stringify(new URL('../../index.js', import.meta.url).href);
const LOADER = JSON.stringify(new URL('./load.js', import.meta.url).href);

/** A CRD `<plural>.lazy.example.com` (script text), with a rule on spec.size when `rules`. */
const CRD = `(plural, rules) => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: plural + '.lazy.example.com' },
  spec: { group: 'lazy.example.com', scope: 'Namespaced',
    names: { kind: plural[0].toUpperCase() + plural.slice(1, -1), plural, singular: plural.slice(0, -1), listKind: plural[0].toUpperCase() + plural.slice(1, -1) + 'List' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object',
      properties: { size: { type: 'integer' } }, ...(rules ? { 'x-kubernetes-validations': [{ rule: 'self.size < 10', message: 'size must be under 10' }] } : {}) } } } } }] },
})`;

test('a fresh start loads the CEL library only once a CRD with rules needs it', async () => {
  const states = await inFreshProcess(`
    const { startTestServer } = await import(${TESTING});
    const { celLoaded } = await import(${LOADER});
    const crd = ${CRD};
    const t = await startTestServer();
    const states = { started: celLoaded() };
    const plain = await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('plains', false));
    states.plainCrd = [plain.status, celLoaded()];
    const ruled = await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('ruleds', true));
    states.ruledCrd = [ruled.status, celLoaded()];
    console.log(JSON.stringify(states));
    process.exit(0);
  `);
  assert.deepEqual(states, { started: false, plainCrd: [201, false], ruledCrd: [201, true] });
});

test('a start over a stored CRD with rules loads the library as it serves it, and its rules apply', async () => {
  const result = await inFreshProcess(`
    const { createMemoryBackend } = await import('@kplane/storage');
    const { createApiServer } = await import(${SERVER});
    const { celLoaded } = await import(${LOADER});
    const crd = (${CRD})('sizeds', true);
    const now = new Date().toISOString().replace(/\\.\\d+Z$/, 'Z');
    crd.metadata = { ...crd.metadata, uid: 'u1', creationTimestamp: now, generation: 1 };
    crd.status = { acceptedNames: crd.spec.names, storedVersions: ['v1'], conditions: [
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: now },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: now } ] };
    const backend = createMemoryBackend();
    await backend.create('/registry/apiextensions.k8s.io/customresourcedefinitions/' + crd.metadata.name, JSON.stringify(crd));
    const server = createApiServer({ backend });
    await server.start();
    const loaded = celLoaded();
    const r = await server.handle({ method: 'POST', path: '/apis/lazy.example.com/v1/namespaces/default/sizeds', query: {}, headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ apiVersion: 'lazy.example.com/v1', kind: 'Sized', metadata: { name: 'big' }, spec: { size: 12 } })) });
    console.log(JSON.stringify({ loaded, status: r.status, body: JSON.parse(Buffer.from(r.body).toString()).message }));
    process.exit(0);
  `);
  assert.deepEqual(result, { loaded: true, status: 422, body: 'Sized.lazy.example.com "big" is invalid: spec: Invalid value: size must be under 10' });
});

test('a start over a stored policy and binding loads the library for the first request they check', async () => {
  const result = await inFreshProcess(`
    const { createMemoryBackend } = await import('@kplane/storage');
    const { createApiServer } = await import(${SERVER});
    const { celLoaded } = await import(${LOADER});
    const now = new Date().toISOString().replace(/\\.\\d+Z$/, 'Z');
    const meta = (name) => ({ name, uid: 'u-' + name, creationTimestamp: now, generation: 1 });
    const policy = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: meta('small'), spec: { failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: 'size(object.data) < 2', message: 'too many keys' }] } };
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: meta('small'), spec: { policyName: 'small', validationActions: ['Deny'] } };
    const backend = createMemoryBackend();
    await backend.create('/registry/validatingadmissionpolicies/small', JSON.stringify(policy));
    await backend.create('/registry/validatingadmissionpolicybindings/small', JSON.stringify(binding));
    const server = createApiServer({ backend });
    await server.start();
    const post = (name, data) => server.handle({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', query: {}, headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data })) });
    const denied = await post('big', { a: '1', b: '2' });
    const allowed = await post('small', { a: '1' });
    console.log(JSON.stringify({ loaded: celLoaded(), denied: [denied.status, JSON.parse(Buffer.from(denied.body).toString()).message], allowed: allowed.status }));
    process.exit(0);
  `);
  assert.deepEqual(result, {
    loaded: true,
    denied: [422, `configmaps "big" is forbidden: ValidatingAdmissionPolicy 'small' with binding 'small' denied request: too many keys`],
    allowed: 201,
  });
});

test('holdsCelRules finds x-kubernetes-validations at any depth, and only non-empty ones', () => {
  assert.equal(holdsCelRules({ versions: [{ schema: { openAPIV3Schema: { properties: { a: { items: { 'x-kubernetes-validations': [{ rule: 'true' }] } } } } } }] }), true);
  assert.equal(holdsCelRules({ versions: [{ schema: { openAPIV3Schema: { 'x-kubernetes-validations': [] } } }] }), false);
  assert.equal(holdsCelRules({ group: 'g', names: { kind: 'K' } }), false);
  assert.equal(holdsCelRules(undefined), false);
});
