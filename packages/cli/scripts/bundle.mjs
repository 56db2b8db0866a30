// Bundles the built kplane command (dist/main.js and the components worker, with every module of
// the workspace packages and libraries they import) into dist/bundle/: a few files load much
// faster than the ~300 modules they come from, most of a fresh `kplane up`'s time to ready being
// Node's loading of modules. Run after `tsc -b` (the root `build` and `prepare` do). bin/kplane.js
// runs the bundle while every package it was made from is as it was then (the stamp below), and
// dist/main.js otherwise. Modules loaded through createRequire (optional and CommonJS libraries)
// stay outside the bundle, loaded from node_modules on first use as before.
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(cli, 'dist', 'bundle');
rmSync(out, { recursive: true, force: true });
// esbuild is a development dependency: without it (npm ci --omit=dev) the command runs unbundled.
const esbuild = await import('esbuild').catch(() => undefined);
if (!esbuild) {
  console.warn('kplane: esbuild is not installed; the kplane command runs unbundled (dist/main.js)');
  process.exit(0);
}
const { build } = esbuild;
// The X.509 and ASN.1 libraries (about 225 CommonJS modules, which a first start loads to make
// its PKI) bundled into one CommonJS file beside the chunks, loaded on first use as before.
const PECULIAR = ['reflect-metadata', '@peculiar/x509', '@peculiar/asn1-schema', '@peculiar/asn1-csr', '@peculiar/asn1-x509'];
await build({
  absWorkingDir: cli,
  stdin: {
    contents: PECULIAR.map((name) => `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get: () => require(${JSON.stringify(name)}) });`).join('\n'),
    resolveDir: cli,
    loader: 'js',
  },
  outfile: join(out, 'peculiar-libs.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
// apiserver's loader of those libraries (auth/peculiar.js) reads them from that file.
const LOADER = 'const load = createRequire(import.meta.url);';
const peculiarLoader = {
  name: 'peculiar-loader',
  setup(b) {
    b.onLoad({ filter: /[\\/]auth[\\/]peculiar\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(LOADER)) {
        console.warn(`kplane bundle: ${args.path} has no "${LOADER}"; its libraries load from node_modules`);
        return undefined;
      }
      const bundled = `const fromNodeModules = createRequire(import.meta.url); let bundledLibs; const load = (name) => (bundledLibs ??= fromNodeModules('./peculiar-libs.cjs'))[name] ?? fromNodeModules(name);`;
      return { contents: source.replace(LOADER, bundled), loader: 'js' };
    });
  },
};
const ENTRY_POINTS = { main: 'dist/main.js', 'components-worker': 'dist/worker/components-worker.js' };
const result = await build({
  plugins: [peculiarLoader],
  absWorkingDir: cli,
  entryPoints: ENTRY_POINTS,
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The CommonJS libraries bundled call require(): the ES module's own.
  banner: { js: "import { createRequire as __kplaneCreateRequire } from 'node:module'; const require = __kplaneCreateRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
});

// Libraries loaded on first need through a dynamic import (the CEL library: apiserver
// crd/cel/load.js) must stay in chunks only a dynamic import reaches, or every start pays them.
const LAZY = ['@marcbachmann/cel-js'];
const outputs = result.metafile.outputs;
const reached = new Set();
const reach = (file) => {
  if (reached.has(file)) return;
  reached.add(file);
  for (const i of outputs[file]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) reach(i.path);
};
// From the command's entry points (a chunk a dynamic import loads is an entry point of its own).
const entries = new Set(Object.values(ENTRY_POINTS));
for (const [file, o] of Object.entries(outputs)) if (o.entryPoint && entries.has(o.entryPoint)) reach(file);
for (const file of reached) {
  const lazy = LAZY.filter((name) => Object.keys(outputs[file]?.inputs ?? {}).some((input) => input.includes(`node_modules/${name}/`)));
  if (lazy.length) console.warn(`kplane bundle: ${lazy.join(', ')} reached by a static import (in ${relative(cli, resolve(cli, file))}): a start loads it`);
}

// The stamp: the build info file of each workspace package bundled, with its time then.
const built = {};
for (const input of Object.keys(result.metafile.inputs)) {
  const abs = resolve(cli, input);
  const m = /^(.*)[\\/]dist[\\/]/.exec(abs);
  if (!m || abs.split(sep).includes('node_modules')) continue;
  const info = join(m[1], 'tsconfig.tsbuildinfo');
  if (existsSync(info)) built[relative(cli, info).split(sep).join('/')] = statSync(info).mtimeMs;
}
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'stamp.json'), JSON.stringify({ built }, null, 2) + '\n');
