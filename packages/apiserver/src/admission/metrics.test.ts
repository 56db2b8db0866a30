import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAdmissionChain } from './chain.js';
import { instrumentChain, instrumentSteps, type AdmissionMetrics } from './metrics.js';
import type { AdmissionAttributes, AdmissionStep } from './types.js';

/** Metrics that record what they are told. */
function recording(): { metrics: AdmissionMetrics; seen: string[] } {
  const seen: string[] = [];
  const metrics = {
    observeStep: (type: string, operation: string, rejected: boolean) => void seen.push(`step ${type} ${operation} ${rejected}`),
    observeController: (name: string, type: string, operation: string, rejected: boolean) => void seen.push(`${name} ${type} ${operation} ${rejected}`),
  } as unknown as AdmissionMetrics;
  return { metrics, seen };
}

const attrs = { operation: 'CREATE' } as AdmissionAttributes;

test('instrumented steps report each run with its outcome: at once when sync, when settled when async', async () => {
  const { metrics, seen } = recording();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const steps: AdmissionStep[] = [
    { name: 'Sync', operations: ['CREATE'], admit: () => {}, validate: () => {} },
    { name: 'Async', operations: ['CREATE'], validate: () => held },
    { name: 'Refuses', operations: ['CREATE'], validate: () => { throw new Error('no'); } },
  ];
  const [sync, slow, refuses] = instrumentSteps(steps, metrics) as Array<{ admit?(a: AdmissionAttributes): unknown; validate(a: AdmissionAttributes): unknown }>;
  assert.equal(sync!.admit!(attrs), undefined);
  assert.equal(sync!.validate(attrs), undefined);
  assert.deepEqual(seen, ['Sync admit CREATE false', 'Sync validate CREATE false']);
  const pending = slow!.validate(attrs) as Promise<void>;
  assert.equal(seen.length, 2);
  release();
  await pending;
  assert.equal(seen[2], 'Async validate CREATE false');
  assert.throws(() => refuses!.validate(attrs), /no/);
  assert.equal(seen[3], 'Refuses validate CREATE true');
});

test('an instrumented chain of sync steps settles within two microtask turns, and a refusal is a rejection', async () => {
  const { metrics, seen } = recording();
  const chain = instrumentChain(createAdmissionChain(instrumentSteps([{ name: 'Sync', operations: ['CREATE'], admit: () => {} }], metrics)), metrics);
  let settled = false;
  void chain.admit(attrs).then(() => (settled = true));
  for (let i = 0; i < 2; i++) await Promise.resolve();
  assert.ok(settled);
  assert.deepEqual(seen, ['Sync admit CREATE false', 'step admit CREATE false']);
  // A chain that throws at once (not an async function) still answers with a rejected promise.
  const throwing = instrumentChain({ steps: [], admit: () => { throw new Error('at once'); }, validate: () => Promise.reject(new Error('later')) } as never, metrics);
  const refused = throwing.admit(attrs);
  assert.ok(refused instanceof Promise);
  await assert.rejects(refused, /at once/);
  await assert.rejects(throwing.validate(attrs), /later/);
  assert.deepEqual(seen.slice(2), ['step admit CREATE true', 'step validate CREATE true']);
});
