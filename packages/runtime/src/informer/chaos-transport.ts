/**
 * A Transport wrapper for tests that breaks watches and lists at random, to prove that
 * informers survive disconnects. Not exported from the package index.
 */
import type { RawRequest, RawResponse, Transport } from '@kplane/api';
import { splitLines } from '@kplane/client/internal';

/** Probabilities (0..1) of each fault; the rest of the requests pass through untouched. */
export interface ChaosOptions {
  /** Source of randomness in [0, 1): pass a seeded PRNG. */
  random: () => number;
  /** A watch stream ends cleanly after a random number of events (default 0.25). */
  endStream?: number;
  /** A watch stream throws after a random number of events (default 0.15). */
  errorStream?: number;
  /** A watch is answered with one ERROR event carrying a 410 Expired Status (default 0.1). */
  goneEvent?: number;
  /** A watch is refused with an HTTP 410 (default 0.05). */
  goneResponse?: number;
  /** A list request fails with an HTTP 500 or a thrown connection error (default 0.05). */
  listFailure?: number;
  /** Most events a broken stream lets through (default 5). */
  maxEvents?: number;
  /**
   * The faults of the first watches, in order, before chance decides: a test that asserts
   * every kind of fault happened states them here instead of hoping the dice show them.
   */
  first?: WatchFault[];
}

/** A fault the chaos transport can put on a watch. */
export type WatchFault = 'goneResponse' | 'goneEvent' | 'ended' | 'errored';

/** What the chaos transport did. */
export interface ChaosStats {
  watches: number;
  lists: number;
  ended: number;
  errored: number;
  goneEvents: number;
  goneResponses: number;
  listFailures: number;
}

const encoder = new TextEncoder();
const json = (v: unknown): Uint8Array => encoder.encode(JSON.stringify(v) + '\n');

const expired = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'too old resource version: 1 (2)',
  reason: 'Expired',
  code: 410,
};

const INITIAL_EVENTS_END = Buffer.from('"k8s.io/initial-events-end":"true"');

/**
 * A watch that is cut after `limit` events, cleanly or with an error; with `afterInitial`,
 * events before a streaming list's initial-events-end bookmark are not counted.
 */
async function* cut(stream: AsyncIterable<Uint8Array>, limit: number, fail: boolean, afterInitial = false): AsyncGenerator<Uint8Array> {
  let seen = 0;
  let counting = !afterInitial;
  const lines = splitLines(stream);
  try {
    for await (const line of lines) {
      if (seen >= limit) break;
      if (counting) seen++;
      else if (Buffer.from(line.buffer, line.byteOffset, line.byteLength).includes(INITIAL_EVENTS_END)) counting = true;
      const out = new Uint8Array(line.byteLength + 1);
      out.set(line);
      out[line.byteLength] = 0x0a;
      yield out;
    }
  } finally {
    void lines.return(undefined).catch(() => undefined);
  }
  if (fail) throw new Error('read ECONNRESET');
}

/** Wraps `inner` so that watches and lists fail at random (see ChaosOptions), counting requests. */
export function createChaosTransport(inner: Transport, options: ChaosOptions): { transport: Transport; stats: ChaosStats } {
  const stats: ChaosStats = { watches: 0, lists: 0, ended: 0, errored: 0, goneEvents: 0, goneResponses: 0, listFailures: 0 };
  const { random } = options;
  const endStream = options.endStream ?? 0.25;
  const errorStream = options.errorStream ?? 0.15;
  const goneEvent = options.goneEvent ?? 0.1;
  const goneResponse = options.goneResponse ?? 0.05;
  const listFailure = options.listFailure ?? 0.05;
  const maxEvents = options.maxEvents ?? 5;
  const scripted = [...(options.first ?? [])];
  const pickFault = (r: number): WatchFault | undefined => {
    if ((r -= goneResponse) < 0) return 'goneResponse';
    if ((r -= goneEvent) < 0) return 'goneEvent';
    if ((r -= endStream) < 0) return 'ended';
    if ((r -= errorStream) < 0) return 'errored';
    return undefined;
  };

  const transport: Transport = async (req: RawRequest): Promise<RawResponse> => {
    const isWatch = req.method === 'GET' && req.query?.['watch'] === 'true';
    const isList = req.method === 'GET' && !isWatch && req.query?.['limit'] !== undefined;
    if (isList) {
      stats.lists++;
      if (random() < listFailure) {
        stats.listFailures++;
        if (random() < 0.5) throw new Error('connect ECONNREFUSED');
        const body = { ...expired, message: 'etcdserver: request timed out', reason: 'InternalError', code: 500 };
        return { status: 500, headers: { 'content-type': 'application/json' }, body: json(body) };
      }
      return inner(req);
    }
    if (!isWatch) return inner(req);
    stats.watches++;
    const fault = scripted.shift() ?? pickFault(random());
    if (fault === 'goneResponse') {
      stats.goneResponses++;
      return { status: 410, headers: { 'content-type': 'application/json' }, body: json(expired) };
    }
    if (fault === 'goneEvent') {
      stats.goneEvents++;
      return { status: 200, headers: { 'content-type': 'application/json' }, body: json({ type: 'ERROR', object: expired }) };
    }
    const res = await inner(req);
    if (!res.stream) return res;
    if (fault === 'ended') {
      stats.ended++;
      return { ...res, stream: cut(res.stream, Math.floor(random() * (maxEvents + 1)), false) };
    }
    if (fault === 'errored') {
      stats.errored++;
      return { ...res, stream: cut(res.stream, Math.floor(random() * (maxEvents + 1)), true) };
    }
    // Even an undisturbed watch is closed cleanly after a while, so every watch ends (a
    // streaming list first delivers its initial events in full).
    return { ...res, stream: cut(res.stream, maxEvents * 10, false, req.query?.['sendInitialEvents'] === 'true') };
  };
  return { transport, stats };
}

export { seededRandom } from '@kplane/api';
