import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHttpsTransport } from '@kplane/client';
import { processCpuMs, runInChild, startChild } from './child.js';

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
  // Work until the reading has grown by 30 ms of CPU (on a busy machine that takes longer than
  // 30 ms of wall time); a reading that never grows fails at the 10 s bound.
  const bound = Date.now() + 10_000;
  let now = before;
  while (now < before + 30 && Date.now() < bound) {
    for (let i = 0; i < 100_000; i++) Math.sqrt(Math.random());
    now = processCpuMs(process.pid)!;
  }
  assert.ok(now >= before + 30, `CPU time grew by ${now - before} ms only`);
  assert.equal(processCpuMs(2 ** 30), undefined);
});

/** Writes a child entry that imports child.js (by absolute URL) and runs `body`. */
async function entry(dir: string, name: string, body: string): Promise<URL> {
  const file = join(dir, name);
  const childModule = pathToFileURL(join(import.meta.dirname, 'child.js')).href;
  await writeFile(file, `import { reportFromChild } from ${JSON.stringify(childModule)};\n${body}\n`);
  return pathToFileURL(file);
}

test('runInChild returns what the child reports, with its arguments and Node flags', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-child-'));
  const ok = await entry(dir, 'ok.mjs', 'await reportFromChild(async () => ({ args: process.argv.slice(2), gc: typeof globalThis.gc, pid: process.pid }));');
  const r = await runInChild<{ args: string[]; gc: string; pid: number }>(ok, ['a', 'b'], { execArgv: ['--expose-gc'] });
  assert.deepEqual(r.args, ['a', 'b']);
  assert.equal(r.gc, 'function');
  assert.notEqual(r.pid, process.pid);
  // The child exits even with an open handle left behind.
  const open = await entry(dir, 'open.mjs', 'setInterval(() => {}, 1000);\nawait reportFromChild(async () => 7);');
  assert.equal(await runInChild<number>(open), 7);
  await rm(dir, { recursive: true, force: true });
});

test('runInChild rejects with the child error, a missing result, or a timeout', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bench-child-'));
  const fails = await entry(dir, 'fails.mjs', "await reportFromChild(async () => { throw new Error('boom'); });");
  await assert.rejects(runInChild(fails), /failed: Error: boom/);
  const silent = await entry(dir, 'silent.mjs', 'process.exit(3);');
  await assert.rejects(runInChild(silent), /exited with code 3 without a result/);
  const slow = await entry(dir, 'slow.mjs', 'await new Promise((r) => setTimeout(r, 10_000));');
  await assert.rejects(runInChild(slow, [], { timeoutMs: 300 }), /did not finish within 300 ms/);
  await rm(dir, { recursive: true, force: true });
});
