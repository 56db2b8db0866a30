import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatUpStartup, kplaneBundleCurrent } from './up-startup-bench.js';

test('formatUpStartup reports the median start against the median node -e 0', () => {
  const lines = formatUpStartup({ upMs: [400, 300, 500], nodeStartMs: [50, 60, 40] }).split('\n');
  assert.match(lines[2]!, /^kplane up to \/readyz\s+400\.0\s+8\.00x\s+3 fresh processes, --storage memory \(target <= 5x\): 400\.0, 300\.0, 500\.0$/);
  assert.match(lines[3]!, /^node -e 0\s+50\.0\s+1\.00x/);
});

test('formatUpStartup adds the first start, the restart and the in-process start when measured', () => {
  const lines = formatUpStartup({ upMs: [400], nodeStartMs: [50], firstMs: [900], restartMs: [300], inProcessMs: [200] }).split('\n');
  assert.match(lines[3]!, /^first kplane up\s+900\.0\s+18\.00x\s+SQLite, a new data dir/);
  assert.match(lines[4]!, /^kplane up, restart\s+300\.0\s+6\.00x/);
  assert.match(lines[5]!, /^startControlPlane\(\)\s+200\.0\s+4\.00x/);
  assert.match(lines[6]!, /^node -e 0\s+50\.0\s+1\.00x/);
});

test('formatUpStartup adds the CPU times, as a ratio to the bare process', () => {
  const lines = formatUpStartup({ upMs: [400], nodeStartMs: [50], cpu: { up: [300, 500, 400], node: [100] } }).split('\n');
  assert.match(lines[4]!, /^CPU: kplane up\s+400\.0\s+4\.00x/);
  assert.match(lines[5]!, /^CPU: node -e 0\s+100\.0\s+1\.00x/);
});

test('formatUpStartup says when the kplane command ran without its bundle', () => {
  assert.match(formatUpStartup({ upMs: [400], nodeStartMs: [50], bundled: false }), /ran dist\/main\.js, not its bundle/);
  assert.doesNotMatch(formatUpStartup({ upMs: [400], nodeStartMs: [50], bundled: true }), /not its bundle/);
});

test('kplaneBundleCurrent: current while every stamped file keeps its mtime', async () => {
  const cli = await mkdtemp(join(tmpdir(), 'kplane-bundle-'));
  try {
    assert.equal(kplaneBundleCurrent(cli), false, 'no stamp');
    await writeFile(join(cli, 'tsconfig.tsbuildinfo'), '{}');
    await mkdir(join(cli, 'dist', 'bundle'), { recursive: true });
    const { mtimeMs } = await stat(join(cli, 'tsconfig.tsbuildinfo'));
    await writeFile(join(cli, 'dist', 'bundle', 'stamp.json'), JSON.stringify({ built: { 'tsconfig.tsbuildinfo': mtimeMs } }));
    assert.equal(kplaneBundleCurrent(cli), true);
    await utimes(join(cli, 'tsconfig.tsbuildinfo'), new Date(), new Date(mtimeMs + 5000));
    assert.equal(kplaneBundleCurrent(cli), false, 'rebuilt since');
  } finally {
    await rm(cli, { recursive: true, force: true });
  }
});
