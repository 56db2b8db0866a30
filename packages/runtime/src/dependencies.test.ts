import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('./', import.meta.url));
const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

test('the runtime depends on no server code: only the API types, the client and small libraries', () => {
  assert.deepEqual(Object.keys(pkg.dependencies ?? {}).sort(), ['@kplane/api', '@kplane/client', '@sinclair/typebox', 'prom-client']);
});

test('what the runtime ships (code and type declarations) imports only node built-ins and its dependencies', async () => {
  const shipped = (f: string): boolean => (f.endsWith('.js') && !f.endsWith('.test.js')) || (f.endsWith('.d.ts') && !f.endsWith('.test.d.ts'));
  const files = (await readdir(dist, { recursive: true })).filter(shipped);
  assert.ok(files.includes('index.js') && files.includes('index.d.ts') && files.includes('testing/index.js'), `${dist} holds the built runtime`);
  const allowed = new Set(Object.keys(pkg.dependencies ?? {}));
  const stray: string[] = [];
  for (const file of files) {
    const text = await readFile(dist + file, 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)) {
      const spec = m[1]!;
      if (spec.startsWith('.') || spec.startsWith('node:')) continue;
      if (!allowed.has(packageOf(spec))) stray.push(`${file}: ${spec}`);
    }
  }
  assert.deepEqual(stray, []);
});
