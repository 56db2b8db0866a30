import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, notFound, type RawResponse } from '@kplane/api';
import { errorFromResponse, genericServerError } from './response.js';

const enc = new TextEncoder();
const res = (status: number, headers: Record<string, string> = {}): RawResponse => ({ status, headers });

test('a Status body maps to an ApiError with its code, reason, message and details', () => {
  const status = notFound('apps', 'deployments', 'web').toStatus();
  const err = errorFromResponse(res(404), enc.encode(JSON.stringify(status)), 'GET');
  assert.ok(err instanceof ApiError);
  assert.equal(err.code, 404);
  assert.equal(err.reason, 'NotFound');
  assert.equal(err.message, 'deployments.apps "web" not found');
  assert.deepEqual(err.details, { name: 'web', group: 'apps', kind: 'deployments' });
  assert.deepEqual(err.toStatus(), status);
});

test('a Status without a code takes the HTTP code', () => {
  const body = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Conflict', message: 'boom' };
  const err = errorFromResponse(res(409), enc.encode(JSON.stringify(body)), 'PUT');
  assert.equal(err.code, 409);
  assert.equal(err.reason, 'Conflict');
});

test('a non-Status body is worded like client-go, naming the resource', () => {
  const err = errorFromResponse(res(404), enc.encode('404 page not found'), 'GET', { group: 'apps', resource: 'deployments', name: 'web' });
  assert.equal(err.code, 404);
  assert.equal(err.reason, 'NotFound');
  assert.equal(err.message, 'the server could not find the requested resource (get deployments.apps web)');
  assert.deepEqual(err.details?.causes, [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }]);
});

test('generic errors: 409 on POST is AlreadyExists, 5xx quotes the server text, Retry-After is kept', () => {
  assert.equal(genericServerError(409, 'POST', '').reason, 'AlreadyExists');
  assert.equal(genericServerError(409, 'PUT', '').reason, 'Conflict');
  const e500 = genericServerError(502, 'GET', 'bad "gateway"');
  assert.equal(e500.reason, 'InternalError');
  assert.equal(e500.message, 'an error on the server ("bad \\"gateway\\"") has prevented the request from succeeding');
  assert.equal(genericServerError(403, 'GET', 'nope').message, 'nope');
  assert.equal(genericServerError(418, 'GET', '').message, 'the server responded with the status code 418 but did not return more information');
  const e429 = errorFromResponse(res(429, { 'retry-after': '7' }), enc.encode('slow down'), 'GET', { resource: 'pods' });
  assert.equal(e429.reason, 'TooManyRequests');
  assert.equal(e429.details?.retryAfterSeconds, 7);
  assert.equal(e429.message, 'the server has received too many requests and has asked us to try again later (get pods)');
});
