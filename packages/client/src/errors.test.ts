import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alreadyExists, conflict, forbidden, gone, invalid, notFound, tooManyRequests, type RawResponse } from '@kplane/api';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isTooManyRequests,
  isUnauthorized,
  reasonForError,
} from './index.js';
import { createClient } from './client.js';
import { genericServerError } from './response.js';

const checks = { isNotFound, isConflict, isAlreadyExists, isGone, isResourceExpired, isTooManyRequests, isForbidden, isInvalid, isUnauthorized };
/** The names of the checks that hold for `err`. */
const holds = (err: unknown): string[] => Object.entries(checks).filter(([, f]) => f(err)).map(([n]) => n);

test('each check answers on the Status reason', () => {
  assert.deepEqual(holds(notFound('apps', 'deployments', 'web')), ['isNotFound']);
  assert.deepEqual(holds(conflict('', 'configmaps', 'c')), ['isConflict']);
  assert.deepEqual(holds(alreadyExists('', 'configmaps', 'c')), ['isAlreadyExists'], 'a 409 AlreadyExists is no Conflict');
  assert.deepEqual(holds(gone('too old resource version: 1 (5)')), ['isResourceExpired'], 'a 410 Expired is no Gone, as apimachinery');
  assert.deepEqual(holds(new ApiError(410, 'Gone', 'gone')), ['isGone']);
  assert.deepEqual(holds(tooManyRequests('slow down', 1)), ['isTooManyRequests']);
  assert.deepEqual(holds(forbidden('', 'secrets', 's', 'no')), ['isForbidden']);
  assert.deepEqual(holds(invalid('', 'ConfigMap', 'c', [{ reason: 'FieldValueRequired', message: 'Required value', field: 'data' }])), ['isInvalid']);
});

test('an unknown reason falls back to the code; a known one does not', () => {
  for (const [code, name] of [[404, 'isNotFound'], [409, 'isConflict'], [410, 'isGone'], [403, 'isForbidden'], [422, 'isInvalid'], [401, 'isUnauthorized'], [429, 'isTooManyRequests']] as const) {
    assert.deepEqual(holds(new ApiError(code, '', 'x')), [name], `code ${code}, empty reason`);
    assert.deepEqual(holds(new ApiError(code, 'SomethingNew', 'x')), [name], `code ${code}, a reason Kubernetes does not define`);
  }
  assert.deepEqual(holds(new ApiError(404, 'Forbidden', 'x')), ['isForbidden'], 'the reason wins over the code');
  assert.equal(isAlreadyExists(new ApiError(409, '', 'x')), false, 'AlreadyExists is decided by the reason alone');
  assert.equal(isTooManyRequests(new ApiError(429, 'Forbidden', 'x')), true, 'a 429 is always too many requests');
});

test('generic errors a client builds from non-Status answers are recognised', () => {
  assert.equal(isNotFound(genericServerError(404, 'GET', 'page not found', { resource: 'pods', name: 'p' })), true);
  assert.equal(isAlreadyExists(genericServerError(409, 'POST', '')), true);
  assert.equal(isConflict(genericServerError(409, 'PUT', '')), true);
  assert.equal(isNotFound(genericServerError(500, 'GET', 'boom')), false);
});

test('anything else is no API error: nullish values, plain errors, strings', () => {
  for (const v of [undefined, null, 'NotFound', 404, new Error('not found'), Object.assign(new Error('x'), { code: 'ENOENT' }), { code: 404 }]) {
    assert.deepEqual(holds(v), [], String(v));
  }
  assert.equal(reasonForError(new Error('x')), '');
});

test('a wrapped error, a Status object and an ApiError of another copy of the package are recognised', () => {
  const wrapped = new Error('failed to remove finalizer', { cause: new Error('patch', { cause: notFound('', 'configmaps', 'c') }) });
  assert.equal(isNotFound(wrapped), true);
  assert.equal(isNotFound({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }), true);
  const foreign = Object.assign(new Error('conflict'), { name: 'ApiError', code: 409, reason: 'Conflict' });
  assert.equal(isConflict(foreign), true);
  const cycle: { cause?: unknown } = {};
  cycle.cause = cycle;
  assert.equal(isNotFound(cycle), false, 'a cause cycle ends');
});

test('a failed call of the client throws an ApiError these checks recognise', async () => {
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "c" not found', reason: 'NotFound', details: { name: 'c', kind: 'configmaps' }, code: 404 };
  const client = createClient({
    transport: async (): Promise<RawResponse> => ({ status: 404, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(JSON.stringify(status)) }),
  });
  const err = await client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true }).get('c').catch((e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.equal(isNotFound(err), true);
  assert.equal(err.message, 'configmaps "c" not found');
});
