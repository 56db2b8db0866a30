import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'kplane.js');

/** Runs a copy of the bin and resolves with what it printed. */
function run(bin: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => execFile(process.execPath, [bin], { env: { ...process.env, ...env } }, (err, stdout) => (err ? reject(err) : resolve(stdout))));
}

it('runs the bundle while the packages it was made from are as built then, dist/main.js otherwise', async () => {
  const root = await mkdtemp(join(tmpdir(), 'kplane-bin-'));
  try {
    // A package as the build leaves it: dist/main.js, dist/bundle/ and the stamp of a build info file.
    const pkg = join(root, 'cli');
    await mkdir(join(pkg, 'bin'), { recursive: true });
    await mkdir(join(pkg, 'dist', 'bundle'), { recursive: true });
    await copyFile(BIN, join(pkg, 'bin', 'kplane.js'));
    await writeFile(join(pkg, 'dist', 'main.js'), "process.stdout.write('dist');\n");
    await writeFile(join(pkg, 'dist', 'bundle', 'main.js'), "process.stdout.write('bundle');\n");
    const info = join(root, 'api', 'tsconfig.tsbuildinfo');
    await mkdir(dirname(info), { recursive: true });
    await writeFile(info, '{}');
    const stamp = (mtimeMs: number) => writeFile(join(pkg, 'dist', 'bundle', 'stamp.json'), JSON.stringify({ built: { '../api/tsconfig.tsbuildinfo': mtimeMs } }));
    await stamp((await stat(info)).mtimeMs);
    const bin = join(pkg, 'bin', 'kplane.js');
    assert.equal(await run(bin), 'bundle');
    assert.equal(await run(bin, { KPLANE_NO_BUNDLE: '1' }), 'dist');
    // The package built again since: the bundle is stale.
    await utimes(info, new Date(), new Date(Date.now() + 5000));
    assert.equal(await run(bin), 'dist');
    // A build info file gone (an installed package has none): stale too.
    await stamp((await stat(info)).mtimeMs);
    assert.equal(await run(bin), 'bundle');
    await rm(info);
    assert.equal(await run(bin), 'dist');
    await rm(join(pkg, 'dist', 'bundle'), { recursive: true });
    assert.equal(await run(bin), 'dist');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
