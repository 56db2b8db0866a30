import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Namespaces } from '@kplane/runtime';
import { startControlPlane } from './control-plane.js';

test('listening, in-process requests chained back to back leave the event loop turns for sockets and timers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-turns-'));
  const cp = await startControlPlane({ dataDir: dir, storage: 'memory', port: 0 });
  try {
    const chain = 100;
    let done = 0;
    let doneWhenTimerFired = -1;
    // A timer due now: it runs at the loop's next timers phase, which a chain of in-process
    // requests answered through promises alone would keep from coming until the chain ends.
    setTimeout(() => (doneWhenTimerFired = done), 0);
    for (let i = 0; i < chain; i++) {
      await cp.client.resource(Namespaces).get('default');
      done++;
    }
    assert.ok(doneWhenTimerFired >= 0 && doneWhenTimerFired < chain, `the timer fired after ${doneWhenTimerFired} of ${chain} requests`);
  } finally {
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('not listening, the in-process transport answers without waiting for a loop turn', async () => {
  const cp = await startControlPlane({ storage: 'memory', listen: false });
  try {
    let fired = false;
    setTimeout(() => (fired = true), 0);
    await cp.client.resource(Namespaces).get('default');
    assert.equal(fired, false);
  } finally {
    await cp.stop();
  }
});
