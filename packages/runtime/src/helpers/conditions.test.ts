import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  findStatusCondition,
  formatTime,
  isStatusConditionFalse,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
} from './conditions.js';

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0, 750);
const T1 = T0 + 60_000;

test('formatTime: metav1.Time is RFC 3339 with whole seconds', () => {
  assert.equal(formatTime(T0), '2026-01-01T00:00:00Z');
  assert.equal(formatTime(new Date(T1)), '2026-01-01T00:01:00Z');
});

test('setStatusCondition: adds, and moves lastTransitionTime only on a status change', () => {
  const conds: Condition[] = [];
  assert.equal(setStatusCondition(conds, { type: 'Ready', status: 'False', reason: 'Starting', message: 'wait' }, T0), true);
  assert.deepEqual(conds, [{ type: 'Ready', status: 'False', reason: 'Starting', message: 'wait', lastTransitionTime: '2026-01-01T00:00:00Z' }]);

  assert.equal(setStatusCondition(conds, { type: 'Ready', status: 'False', reason: 'Starting', message: 'wait' }, T1), false, 'no change');
  assert.equal(setStatusCondition(conds, { type: 'Ready', status: 'False', reason: 'Pulling', message: 'image', observedGeneration: 2 }, T1), true);
  assert.equal(conds[0]!.lastTransitionTime, '2026-01-01T00:00:00Z', 'reason/message/generation changes keep the transition time');
  assert.equal(conds[0]!.observedGeneration, 2);

  assert.equal(setStatusCondition(conds, { type: 'Ready', status: 'True', reason: 'Running', message: '', observedGeneration: 2 }, T1), true);
  assert.deepEqual(conds[0], { type: 'Ready', status: 'True', reason: 'Running', message: '', observedGeneration: 2, lastTransitionTime: '2026-01-01T00:01:00Z' });

  // An explicit lastTransitionTime is used when the status changes, ignored otherwise.
  setStatusCondition(conds, { type: 'Ready', status: 'True', reason: 'Running', message: '', observedGeneration: 2, lastTransitionTime: '2020-01-01T00:00:00Z' }, T1);
  assert.equal(conds[0]!.lastTransitionTime, '2026-01-01T00:01:00Z');
  setStatusCondition(conds, { type: 'Ready', status: 'Unknown', reason: 'Lost', message: '', observedGeneration: 2, lastTransitionTime: '2020-01-01T00:00:00Z' }, T1);
  assert.equal(conds[0]!.lastTransitionTime, '2020-01-01T00:00:00Z');
});

test('conditions: find / is true / is false / remove', () => {
  const conds: Condition[] = [];
  setStatusCondition(conds, { type: 'Ready', status: 'True', reason: 'Ok', message: '' }, T0);
  setStatusCondition(conds, { type: 'Degraded', status: 'False', reason: 'Ok', message: '' }, T0);
  assert.equal(conds.length, 2);
  assert.equal(findStatusCondition(conds, 'Degraded')!.status, 'False');
  assert.equal(findStatusCondition(conds, 'Nope'), undefined);
  assert.equal(findStatusCondition(undefined, 'Ready'), undefined);
  assert.equal(isStatusConditionTrue(conds, 'Ready'), true);
  assert.equal(isStatusConditionFalse(conds, 'Ready'), false);
  assert.equal(isStatusConditionFalse(conds, 'Degraded'), true);
  assert.equal(isStatusConditionTrue(conds, 'Missing'), false);
  assert.equal(isStatusConditionFalse(conds, 'Missing'), false, 'absent is neither true nor false');
  assert.equal(removeStatusCondition(conds, 'Ready'), true);
  assert.equal(removeStatusCondition(conds, 'Ready'), false);
  assert.deepEqual(conds.map((c) => c.type), ['Degraded']);
});
