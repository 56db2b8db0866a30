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

test('a fresh start loads the CEL library only once a CRD with rules needs it', async () => {
  const testing = new URL('../../testing.js', import.meta.url).href;
  const loader = new URL('./load.js', import.meta.url).href;
  const script = `
    const { startTestServer } = await import(${JSON.stringify(testing)});
    const { celLoaded } = await import(${JSON.stringify(loader)});
    const t = await startTestServer();
    const states = { started: celLoaded() };
    const crd = (plural, rules) => ({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
      metadata: { name: plural + '.lazy.example.com' },
      spec: { group: 'lazy.example.com', scope: 'Namespaced', names: { kind: plural[0].toUpperCase() + plural.slice(1, -1), plural },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object',
          ...(rules ? { 'x-kubernetes-validations': [{ rule: 'true' }] } : {}), 'x-kubernetes-preserve-unknown-fields': true } } } } }] },
    });
    const plain = await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('plains', false));
    states.plainCrd = [plain.status, celLoaded()];
    const ruled = await t.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('ruleds', true));
    states.ruledCrd = [ruled.status, celLoaded()];
    console.log(JSON.stringify(states));
    process.exit(0);
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(stdout.trim().split('\n').pop()!), { started: false, plainCrd: [201, false], ruledCrd: [201, true] });
});

test('holdsCelRules finds x-kubernetes-validations at any depth, and only non-empty ones', () => {
  assert.equal(holdsCelRules({ versions: [{ schema: { openAPIV3Schema: { properties: { a: { items: { 'x-kubernetes-validations': [{ rule: 'true' }] } } } } } }] }), true);
  assert.equal(holdsCelRules({ versions: [{ schema: { openAPIV3Schema: { 'x-kubernetes-validations': [] } } }] }), false);
  assert.equal(holdsCelRules({ group: 'g', names: { kind: 'K' } }), false);
  assert.equal(holdsCelRules(undefined), false);
});
