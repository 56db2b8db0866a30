/**
 * Recorded calls: the requests each client made, to assert what a controller did — "reconciled
 * with one write", "no writes once settled", the sequence of its actions (as client-go's fake
 * clientset's Actions()).
 */
import { AssertionError } from 'node:assert';
import type { RawRequest, RawResponse, Transport } from '@kplane/api';
import { WRITE_VERBS, describeRequest, formatRequest, requestMatches, type RequestInfo, type RequestMatch } from '@kplane/client/faults';

/** One request as the recorder saw it. */
export interface RecordedCall extends RequestInfo {
  /** 1-based position among the calls recorded since the recorder was created (clear() keeps counting). */
  seq: number;
  /** The client's name given to `wrap`. */
  who: string;
  /** The HTTP status of the answer; 0 when the transport threw (see `error`). */
  status: number;
  /** The Status reason of a failed answer (`Conflict`, `NotFound`...), or the thrown error's message. */
  error?: string;
  /** Writes: the body sent, parsed from JSON (or as text: an apply patch in YAML). */
  body?: unknown;
  /** Writes: the body's content type (tells the patch type). */
  contentType?: string;
  /** Sent with dryRun: changes nothing, so not among `writes()`. */
  dryRun: boolean;
  /** `update configmaps default/x` (a create is named after the object it sends). */
  action: string;
}

/** Selects recorded calls: a request match, plus the calls after a `mark()` and by outcome. */
export interface CallMatch extends RequestMatch {
  /** Only calls recorded after this mark. */
  since?: number;
  /** true: only 2xx answers; false: only failures. */
  ok?: boolean;
}

/** Records the requests of the transports it wraps, and asserts on them. */
export interface Recorder {
  /** A Transport that records every request of `who` (default "client") and passes it on. */
  wrap(transport: Transport, who?: string): Transport;
  /** The recorded calls the match selects, in order. */
  calls(match?: CallMatch): RecordedCall[];
  /** The writes (create, update, patch, delete, deletecollection; not dry runs), in order. */
  writes(match?: CallMatch): RecordedCall[];
  /** The selected calls as one line each (`update configmaps/status default/x`), in order. */
  actions(match?: CallMatch): string[];
  /** A position: pass it as `since` to select only the calls made after it. */
  mark(): number;
  /** Forgets every call recorded so far. */
  clear(): void;
  /** Throws an AssertionError listing the writes unless exactly `n` are selected; returns them. */
  expectWrites(match: CallMatch, n: number, message?: string): RecordedCall[];
  /** Exactly one write ("reconciled with one write"); returns it. */
  expectOneWrite(match?: CallMatch, message?: string): RecordedCall;
  /** No write at all (e.g. since a mark taken once settled: the controller is idle). */
  expectNoWrites(match?: CallMatch, message?: string): void;
  /** The selected calls' actions equal `expected`, in order. */
  expectActions(match: CallMatch, expected: readonly string[], message?: string): void;
  /** The selected calls, one per line, for a failing assertion's message. */
  describe(match?: CallMatch): string;
}

const decoder = new TextDecoder();

function bodyOf(req: RawRequest): unknown {
  if (!req.body || req.body.byteLength === 0) return undefined;
  const text = decoder.decode(req.body);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function reasonOf(res: RawResponse): string | undefined {
  if (!res.body) return undefined;
  try {
    const s = JSON.parse(decoder.decode(res.body)) as { kind?: string; reason?: string };
    return s.kind === 'Status' && s.reason ? s.reason : undefined;
  } catch {
    return undefined;
  }
}

const isWrite = (c: RecordedCall): boolean => (WRITE_VERBS as readonly string[]).includes(c.verb) && !c.dryRun;

function line(c: RecordedCall): string {
  const outcome = c.status !== 0 ? (c.error ? `${c.status} ${c.error}` : String(c.status)) : c.error !== undefined ? `threw ${c.error}` : 'no answer yet';
  return `  #${c.seq} [${c.who}] ${c.action} -> ${outcome}`;
}

function what(match: CallMatch): string {
  const parts = Object.entries(match)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v instanceof RegExp || typeof v === 'function' ? String(v) : JSON.stringify(v)}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** Creates a recorder; wrap each client's transport with it, under the client's name. */
export function createRecorder(): Recorder {
  let calls: RecordedCall[] = [];
  let seq = 0;

  const select = (m: CallMatch = {}): RecordedCall[] =>
    calls.filter((c) => (m.since === undefined || c.seq > m.since) && (m.ok === undefined || m.ok === (c.status >= 200 && c.status < 300)) && requestMatches(m, c, c.who));

  /** An AssertionError with this message only (the counts and the calls are in it). */
  const fail = (message: string): never => {
    throw new AssertionError({ message });
  };

  const recorder: Recorder = {
    wrap: (inner, who = 'client') => async (req) => {
      const info = describeRequest(req);
      const call: RecordedCall = { ...info, seq: ++seq, who, status: 0, dryRun: req.query?.['dryRun'] !== undefined && req.query['dryRun'] !== '', action: '' };
      if ((WRITE_VERBS as readonly string[]).includes(info.verb)) {
        call.body = bodyOf(req);
        const ct = req.headers?.['content-type'];
        if (ct) call.contentType = ct;
        // A create names its object in the body (as client-go's CreateAction carries it).
        const named = (call.body as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
        if (info.verb === 'create' && !info.name && typeof named === 'string') call.name = named;
      }
      call.action = formatRequest(call);
      calls.push(call);
      try {
        const res = await inner(req);
        call.status = res.status;
        if (res.status < 200 || res.status > 299) call.error = reasonOf(res) ?? `HTTP ${res.status}`;
        return res;
      } catch (err) {
        call.error = err instanceof Error ? err.message : String(err);
        throw err;
      }
    },
    calls: (m) => select(m),
    writes: (m) => select(m).filter(isWrite),
    actions: (m) => select(m).map((c) => c.action),
    mark: () => seq,
    clear() {
      calls = [];
    },
    expectWrites(m, n, message) {
      const got = recorder.writes(m);
      if (got.length !== n) {
        const all = got.map(line).join('\n');
        fail(`${message ? `${message}: ` : ''}expected ${n} write${n === 1 ? '' : 's'}${what(m)}, got ${got.length}${all ? `:\n${all}` : ''}`);
      }
      return got;
    },
    expectOneWrite(m = {}, message) {
      return recorder.expectWrites(m, 1, message)[0]!;
    },
    expectNoWrites(m = {}, message) {
      recorder.expectWrites(m, 0, message);
    },
    expectActions(m, expected, message) {
      const got = recorder.actions(m);
      if (got.length !== expected.length || got.some((a, i) => a !== expected[i])) {
        const want = expected.map((a) => `  ${a}`).join('\n');
        fail(`${message ? `${message}: ` : ''}the actions${what(m)} differ; expected:\n${want}\ngot:\n${recorder.describe(m)}`);
      }
    },
    describe: (m) => select(m).map(line).join('\n'),
  };
  return recorder;
}
