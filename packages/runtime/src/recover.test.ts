import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '@kplane/api';
import { TerminalError } from './controller/action.js';
import { flushMicrotasks } from './clock.js';
import { watchProcessFailures } from './testing/process-failures.js';
import { RecoveredPanic, catchRejection, isPanic, reportPanic } from './recover.js';

describe('recover', () => {
  it('classifies programming errors and thrown non-Errors as panics, other errors as reconcile errors', () => {
    for (const p of [new TypeError('x'), new RangeError('x'), new ReferenceError('x'), new SyntaxError('x'), 'a string', undefined, { code: 1 }]) {
      assert.equal(isPanic(p), true, String(p));
    }
    for (const e of [new Error('x'), new ApiError(409, 'Conflict', 'x'), new TerminalError('x'), new DOMException('aborted', 'AbortError')]) {
      assert.equal(isPanic(e), false, String(e));
    }
  });

  it('names the callback and its context, keeping what was thrown as cause', () => {
    const thrown = new TypeError("Cannot read properties of undefined (reading 'spec')");
    const p = new RecoveredPanic('predicate', thrown, { controller: 'web', key: 'default/a' });
    assert.equal(p.message, `panic: Cannot read properties of undefined (reading 'spec') [recovered] in predicate (controller="web" key="default/a")`);
    assert.equal(p.cause, thrown);
    assert.equal(p.callback, 'predicate');
    assert.equal(isPanic(p), true);
  });

  it('reportPanic survives a handler that throws, and an object whose toString throws', () => {
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    let p: RecoveredPanic;
    try {
      const hostile = { toString: () => { throw new Error('no string'); } };
      p = reportPanic(() => { throw new Error('handler broken'); }, 'map', hostile, { key: 'k' });
    } finally {
      console.error = original;
    }
    assert.equal(p.message, 'panic: [object Object] [recovered] in map (key="k")');
    assert.equal(logged.length, 2, 'the panic and the broken handler are both logged');
  });

  it('catchRejection routes a rejection to its handler, ignores plain values, and survives a throwing handler', async () => {
    const watch = watchProcessFailures();
    const seen: unknown[] = [];
    catchRejection(Promise.reject(new Error('late')), (e) => seen.push(e));
    catchRejection(undefined, () => seen.push('never'));
    catchRejection(42, () => seen.push('never'));
    catchRejection(Promise.reject(new Error('again')), () => {
      throw new Error('handler broken');
    });
    catchRejection({ then: () => { throw new Error('bad thenable'); } }, () => seen.push('never'));
    await flushMicrotasks();
    assert.deepEqual(seen.map(String), ['Error: late']);
    assert.deepEqual(await watch.stop(), []);
  });
});
