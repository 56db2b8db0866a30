import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHttpsTransport } from '@kplane/client';
import { processCpuMs, startChild } from './child.js';

test('startChild runs the bare server in another process and stops it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-child-'));
  const bodyFile = join(dir, 'body.json');
  await writeFile(bodyFile, '{"ok":true}');
  const child = await startChild<{ url: string }>(new URL('./server-bare.js', import.meta.url), ['http', bodyFile]);
  try {
    assert.notEqual(child.pid, process.pid);
    const t = createHttpsTransport({ server: child.info.url });
    const r = await t({ method: 'GET', path: '/' });
    t.close();
    assert.equal(Buffer.from(r.body!).toString(), '{"ok":true}');
  } finally {
    await child.stop();
  }
  assert.throws(() => process.kill(child.pid, 0), /ESRCH/);
  await rm(dir, { recursive: true, force: true });
});

test('startChild rejects when the child fails to start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-child-'));
  const entry = join(dir, 'fail.mjs');
  const childModule = pathToFileURL(join(import.meta.dirname, 'child.js')).href;
  await writeFile(entry, `import { serveInChild } from ${JSON.stringify(childModule)};\nawait serveInChild(async () => { throw new Error('no port'); });\n`);
  await assert.rejects(startChild(pathToFileURL(entry)), /failed to start: Error: no port/);
  await rm(dir, { recursive: true, force: true });
});

test('processCpuMs reads a process CPU time that grows with work', () => {
  const before = processCpuMs(process.pid)!;
  assert.equal(typeof before, 'number');
  const until = Date.now() + 60;
  while (Date.now() < until) Math.sqrt(Math.random());
  assert.ok(processCpuMs(process.pid)! >= before + 30);
  assert.equal(processCpuMs(2 ** 30), undefined);
});
