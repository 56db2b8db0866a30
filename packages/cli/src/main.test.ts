import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { friendlyMessage } from './errors.js';
import { UP_USAGE } from './commands/up.js';
import { APISERVER_USAGE } from './commands/apiserver.js';
import { SCHEDULER_USAGE } from './commands/scheduler.js';

const here = dirname(fileURLToPath(import.meta.url));
const PACKAGE = join(here, '..');
/** The bin npm links as node_modules/.bin/kplane. */
const BIN = join(PACKAGE, 'bin', 'kplane.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the kplane command with args and resolves with its exit code and output. */
function kplane(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? 1) : 0;
      resolve({ code: typeof code === 'number' ? code : 1, stdout, stderr });
    });
  });
}

describe('the kplane command', { concurrency: true }, () => {
  it('is a committed, executable bin outside dist/, so that npm links it before the build exists', async () => {
    const pkg = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    assert.deepEqual(pkg.bin, { kplane: 'bin/kplane.js' });
    assert.ok(((await stat(BIN)).mode & 0o111) !== 0, 'bin/kplane.js is executable');
    assert.match(await readFile(BIN, 'utf8'), /^#!\/usr\/bin\/env node\n/);
  });

  it('--version prints the version of its package.json', async () => {
    const { version } = JSON.parse(await readFile(join(here, '..', 'package.json'), 'utf8')) as { version: string };
    const run = await kplane('--version');
    assert.deepEqual(run, { code: 0, stdout: `kplane ${version}\n`, stderr: '' });
  });

  it('"help up" and "up --help" print the flags of up', async () => {
    const [help, flag] = await Promise.all([kplane('help', 'up'), kplane('up', '--help')]);
    assert.equal(help.code, 0);
    assert.equal(help.stdout, UP_USAGE);
    assert.equal(flag.stdout, UP_USAGE);
    assert.match(help.stdout, /--port N/);
    assert.match(help.stdout, /--data-dir DIR/);
  });

  it('"help apiserver" and "help scheduler" print their flags; both are listed', async () => {
    const [api, sched, list] = await Promise.all([kplane('help', 'apiserver'), kplane('scheduler', '--help'), kplane('help')]);
    assert.equal(api.stdout, APISERVER_USAGE);
    assert.match(api.stdout, /--storage URL/);
    assert.match(api.stdout, /--token-auth-file FILE/, 'the authentication flags of up');
    assert.equal(sched.stdout, SCHEDULER_USAGE);
    assert.match(list.stdout, /\n  apiserver +Run the API server alone/);
    assert.match(list.stdout, /\n  scheduler +Run the scheduler alone/);
  });

  it('help of an unknown command exits 2 with the list of commands', async () => {
    const run = await kplane('help', 'nope');
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^kplane: unknown command "nope"\n/);
    assert.match(run.stderr, /kubeconfig/);
  });

  it('a port already taken is one line, exit code 1, no stack trace', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const dir = await mkdtemp(join(tmpdir(), 'kplane-cli-'));
    try {
      const { port } = holder.address() as AddressInfo;
      const run = await kplane('up', '--port', String(port), '--storage', 'memory', '--nodes', '0', '--no-controllers', '--data-dir', join(dir, 'data'));
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.equal(
        run.stderr,
        `kplane: port ${port} on 127.0.0.1 is already in use (is kplane already running?): stop what holds it, ` +
          'or choose another port with --port N (--port 0 picks a free one)\n',
      );
    } finally {
      holder.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a data dir that cannot be made is one line, exit code 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kplane-cli-'));
    try {
      // A file where a folder should be: fails for root too, unlike a permission bit.
      await writeFile(join(dir, 'file'), '');
      const dataDir = join(dir, 'file', 'data');
      const run = await kplane('up', '--port', '0', '--nodes', '0', '--no-controllers', '--data-dir', dataDir);
      assert.equal(run.code, 1);
      assert.equal(run.stderr, `kplane: cannot write ${dataDir}: a part of the path is a file, not a folder; choose a writable folder with --data-dir DIR\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('friendlyMessage', () => {
  const systemError = (fields: Record<string, unknown>): Error => Object.assign(new Error('raw'), fields);

  it('names the folder that cannot be written and the flag to change it', () => {
    assert.equal(
      friendlyMessage(systemError({ code: 'EACCES', syscall: 'mkdir', path: '/srv/kplane' })),
      'cannot write /srv/kplane: permission denied; choose a writable folder with --data-dir DIR',
    );
    assert.match(friendlyMessage(systemError({ code: 'EROFS', syscall: 'open', path: '/srv/kplane/state.db' })), /read-only file system/);
  });

  it('says what to do about a port it may not bind', () => {
    assert.equal(
      friendlyMessage(systemError({ code: 'EACCES', syscall: 'listen', address: '127.0.0.1', port: 443 })),
      'not allowed to listen on port 443 on 127.0.0.1: choose a port above 1023 with --port N',
    );
  });

  it('keeps other errors to their first line', () => {
    assert.equal(friendlyMessage(new Error('--port: not a port number: x\nmore')), '--port: not a port number: x');
    assert.equal(friendlyMessage('plain'), 'plain');
  });
});
