/**
 * Assertions on Kubernetes answers, for the safety tests: the status code, the `Status`
 * object's reason, and where it matters its message, its first cause and its field.
 */
import assert from 'node:assert/strict';
import type { RawRequest, RawResponse } from '@kplane/api';

/** What Kubernetes answers to a request. */
export interface ExpectedAnswer {
  code: number;
  /** Status.reason (for codes of 400 and more). */
  reason?: string;
  /** Status.message: equal to a string, or matching a RegExp. */
  message?: string | RegExp;
  /** details.causes[0].reason */
  causeReason?: string;
  /** Some details.causes[].field equals this. */
  field?: string;
}

/** A decoded answer. */
export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Record<string, string>;
}

/** Sends a request through a handler and decodes the JSON answer (streams are closed unread). */
export async function send(handle: (req: RawRequest) => Promise<RawResponse>, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, query: Record<string, string> = {}): Promise<Answer> {
  const req: RawRequest = { method, path, query, headers: { 'content-type': 'application/json', accept: 'application/json', ...headers } };
  if (body !== undefined) req.body = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const abort = new AbortController();
  req.signal = abort.signal;
  const r = await handle(req);
  abort.abort();
  if (r.stream) await r.stream[Symbol.asyncIterator]().return?.();
  const text = Buffer.from(r.body ?? []).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, body: parsed, text, headers: r.headers };
}

/** Asserts that an answer is the one Kubernetes gives. */
export function assertAnswer(answer: Answer, expected: ExpectedAnswer, what: string): void {
  const shown = `${what}: answered ${answer.status} ${answer.text.slice(0, 400)}`;
  assert.equal(answer.status, expected.code, shown);
  if (expected.code >= 400) {
    assert.equal(answer.body?.kind, 'Status', `${shown} (not a Status)`);
    assert.equal(answer.body?.code, expected.code, `${shown} (Status.code)`);
  }
  if (expected.reason !== undefined) assert.equal(answer.body?.reason, expected.reason, `${shown} (reason)`);
  if (typeof expected.message === 'string') assert.equal(answer.body?.message, expected.message, `${shown} (message)`);
  else if (expected.message) assert.match(String(answer.body?.message), expected.message, `${shown} (message)`);
  if (expected.causeReason !== undefined) assert.equal(answer.body?.details?.causes?.[0]?.reason, expected.causeReason, `${shown} (details.causes[0].reason)`);
  if (expected.field !== undefined) {
    const fields = (answer.body?.details?.causes ?? []).map((c: { field?: string }) => c.field);
    assert.ok(fields.includes(expected.field), `${shown} (a cause on field ${expected.field})`);
  }
}
