/**
 * generated.ts must be the rendering of the model of the built-in API. With
 * KPLANE_UPDATE_GENERATED=1 the test rewrites it instead (then rebuild).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { MODEL_PACKAGES, modelKind, renderTypes, typeNames } from '@kplane/api/model';
import { builtinDescriptors } from '../descriptors.js';
import { REGENERATE_COMMAND, RUNTIME_TYPES_OPTIONS } from './render-options.js';

// dist/kinds/builtin/ → src/kinds/builtin/generated.ts
const SOURCE = fileURLToPath(new URL('../../../src/kinds/builtin/generated.ts', import.meta.url));

/** The first line where two texts differ, for a readable failure. */
function firstDifference(actual: string, expected: string): string {
  const a = actual.split('\n');
  const e = expected.split('\n');
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    if (a[i] !== e[i]) return `line ${i + 1}: checked in ${JSON.stringify(a[i] ?? null)}, rendered ${JSON.stringify(e[i] ?? null)}`;
  }
  return 'none';
}

test('generated.ts is the rendering of the model (KPLANE_UPDATE_GENERATED=1 rewrites it)', async () => {
  const rendered = renderTypes(MODEL_PACKAGES, RUNTIME_TYPES_OPTIONS);
  if (process.env['KPLANE_UPDATE_GENERATED'] === '1') {
    await writeFile(SOURCE, rendered);
    return;
  }
  const current = await readFile(SOURCE, 'utf8');
  assert.ok(
    current === rendered,
    `src/kinds/builtin/generated.ts differs from the rendering of the model (${firstDifference(current, rendered)}); ` +
      `rewrite it with KPLANE_UPDATE_GENERATED=1: ${REGENERATE_COMMAND}`,
  );
});

test('every kind the runtime has a descriptor for is generated from the model, with its literal apiVersion and kind', async () => {
  const current = await readFile(SOURCE, 'utf8');
  const names = typeNames(MODEL_PACKAGES, RUNTIME_TYPES_OPTIONS.names);
  assert.ok(builtinDescriptors.length > 0);
  for (const { apiVersion, kind } of builtinDescriptors) {
    const type = modelKind(apiVersion, kind);
    assert.ok(type, `${apiVersion} ${kind} is in the model`);
    const name = names.get(type.name)!;
    const start = current.indexOf(`export interface ${name} extends KubeObject {\n`);
    assert.ok(start >= 0, `${name} (${apiVersion} ${kind}) is declared as a KubeObject`);
    const block = current.slice(start, current.indexOf('\n}', start));
    assert.ok(block.includes(`\n  apiVersion?: '${apiVersion}';\n`), block);
    assert.ok(block.includes(`\n  kind?: '${kind}';\n`), block);
  }
});

test('the runtime itself never loads the model: only tests import @kplane/api/model', async () => {
  const dist = fileURLToPath(new URL('../../', import.meta.url));
  const files = (await readdir(dist, { recursive: true })).filter((f) => f.endsWith('.js') && !f.endsWith('.test.js'));
  assert.ok(files.includes('index.js') && files.some((f) => f.endsWith('generated.js')), `${dist} holds the built runtime`);
  const loading: string[] = [];
  for (const file of files) {
    if (/@kplane\/api\/model/.test(await readFile(dist + file, 'utf8'))) loading.push(file);
  }
  assert.deepEqual(loading, []);
});
