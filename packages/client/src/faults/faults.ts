/**
 * Seeded fault injection at the transport: rules select requests (verb, resource, subresource,
 * namespace, name, client) and answer them with kube-apiserver's errors, delay them, hang them,
 * cut or expire their watches, or run control-plane actions (restarts, leader loss) first.
 */
import { ApiError, seededRandom, withoutObjects, type RawRequest, type RawResponse, type Transport } from '@kplane/api';
import { abortReason, sleepOn, systemClock, type FaultClock } from './clock.js';
import { requestMatches, type RequestMatch } from './match.js';
import { describeRequest, formatRequest, type RequestInfo } from './request-info.js';
import { connectionError, expiredWatchResponse, injectedError, plainTextResponse, statusResponse, type InjectedErrorCode } from './responses.js';
import { cutStream } from './stream.js';

/** A number, or a range [min, max] drawn from the rule's seeded random stream (integers, inclusive). */
export type Amount = number | readonly [number, number];

/** The control-plane operations a fault can trigger; the test control plane provides them. */
export interface ControlPlaneActions {
  /** Stops the API server and starts it again on the same storage. */
  restartApiServer?(): Promise<void> | void;
  /** Stops every controller and starts them again (caches rebuilt from a fresh list). */
  restartControllerManager?(): Promise<void> | void;
  /** Makes the leader-elected managers lose their Lease. */
  loseLeadership?(): Promise<void> | void;
  /** The clock `faults.at()` and latencies wait on, when createFaults was given none. */
  clock?: FaultClock;
}

/** The name of a control-plane action. */
export type ControlPlaneAction = 'restartApiServer' | 'restartControllerManager' | 'loseLeadership';

/** How often a rule fires among the requests it selects. */
export interface FaultTrigger {
  /** Probability (0..1) that a selected request is hit, drawn from the seeded stream (default 1). */
  rate?: number;
  /** Hit the next N selected requests (the same as `times: N` with rate 1). */
  count?: number;
  /** Hit at most N requests in all. */
  times?: number;
  /** Leave the first N selected requests alone. */
  after?: number;
}

/** How a watch is cut. */
export interface WatchDrop {
  /** The stream ends after this many events (a number or a seeded range). */
  afterEvents?: Amount;
  /** The stream ends this long (ms, on the faults' clock) after the watch was answered. */
  afterMs?: Amount;
  /** The connection resets (ECONNRESET) instead of ending cleanly. */
  reset?: boolean;
  /** Count only the events after a streaming list's initial events. */
  afterInitialEvents?: boolean;
}

/** What a rule does to the requests it hits: exactly one of error, hang, disconnect, latencyMs, drop, expire, action. */
export interface FaultEffect {
  /** Answer with kube-apiserver's Status for this code (or this ApiError). */
  error?: InjectedErrorCode | ApiError;
  /** The Status message, replacing the default wording. */
  message?: string;
  /** 429/503: the Retry-After seconds (default 1 for 429). */
  retryAfterSeconds?: number;
  /**
   * Send the error as kube-apiserver's HTTP filters do: its message as plain text (with
   * Retry-After), not a Status — the 429 of the max-in-flight and priority-and-fairness filters.
   */
  plainText?: boolean;
  /**
   * Never answer until the request's signal aborts (`true`), or answer 504 Timeout after this
   * many ms: a request that outlives the client's timeout.
   */
  hang?: true | number;
  /** The connection fails: ECONNREFUSED (the request never reached the server), ECONNRESET with `passThrough`. */
  disconnect?: boolean;
  /**
   * With error, hang or disconnect: the request reaches the server (a write is applied) and
   * only its answer is lost or replaced.
   */
  passThrough?: boolean;
  /** Delay the request (ms, a number or a seeded range) before it is sent. */
  latencyMs?: Amount;
  /** Cut watch streams (selects watches only). */
  drop?: WatchDrop;
  /**
   * A watch resumed from a resourceVersion gets 410 Expired, as from a server that compacted
   * it: an ERROR event in a 200 stream (`true`, `'event'`: what kube-apiserver's watch cache
   * sends) or an HTTP 410 (`'response'`). Selects watches that name a resourceVersion only.
   */
  expire?: boolean | 'event' | 'response';
  /**
   * Start this control-plane action (see `attach`) when the request arrives. The request goes
   * on without waiting for it (a restart waits for requests in flight, this one among them).
   */
  action?: ControlPlaneAction;
}

/** A rule: which requests, how often, and what happens to them. */
export type FaultRuleSpec = RequestMatch & FaultTrigger & FaultEffect;

/** A rule once added. */
export interface FaultRule {
  /** Its position among the rules (log lines name it). */
  readonly index: number;
  readonly spec: Readonly<FaultRuleSpec>;
  /** Requests it selected so far. */
  readonly matched: number;
  /** Requests it hit so far. */
  readonly injected: number;
  /** Stops the rule (requests in flight keep what they got). */
  remove(): void;
}

/** One injected fault, for a failing test's message. */
export interface InjectedFault {
  /** 1-based position among the requests the faults saw. */
  request: number;
  /** The faults' clock when it happened. */
  at: number;
  who: string;
  /** The request in one line: `update configmaps default/x`. */
  target: string;
  /** The rule's index, or -1 for `now()`/`at()` actions. */
  rule: number;
  /** What happened: `409 Conflict`, `latency 12ms`, `watch cut after 3 events`... */
  fault: string;
}

/** Options of createFaults. */
export interface FaultsOptions {
  /**
   * The seed every random choice derives from (default: $KPLANE_FAULTS_SEED, else a random
   * one, written to stderr; read it back from `faults.seed` and `describe()` to replay a
   * failing run).
   */
  seed?: number;
  /** The clock latencies, hangs, timed watch drops and `at()` wait on (default: Node's timers). */
  clock?: FaultClock;
}

/** A fault injector: add rules, wrap transports with it, read what it did. */
export interface Faults {
  readonly seed: number;
  /** Adds a rule (after the existing ones: among outcome rules, the first that hits wins). */
  add(rule: FaultRuleSpec): FaultRule;
  /** Removes every rule; the log is kept. */
  clear(): void;
  /** A Transport that applies the rules to the requests of `who` (the client's name, default "client"). */
  wrap(transport: Transport, who?: string): Transport;
  /** Provides the control-plane actions (and the clock, when createFaults had none). */
  attach(actions: ControlPlaneActions): void;
  /** Runs a control-plane action now; resolves when it finished. */
  now(action: ControlPlaneAction): Promise<void>;
  /** Resolves when every control-plane action started so far has finished (failed ones included). */
  idle(): Promise<void>;
  /**
   * Runs a control-plane action `ms` from now on the clock, or when the request after the
   * first `after` requests selected by a match arrives (started as that request arrives; the
   * request goes on without waiting for it). `done` resolves when the action finished.
   */
  at(when: number | (RequestMatch & { after?: number }), action: ControlPlaneAction): { cancel(): void; done: Promise<void> };
  /** Every fault injected so far, in order. */
  readonly log: readonly InjectedFault[];
  /** The seed and the log as text (the last `max` entries, default 50), for an assertion's message. */
  describe(max?: number): string;
}

interface Rule extends FaultRule {
  matched: number;
  injected: number;
  removed: boolean;
  kind: 'error' | 'hang' | 'disconnect' | 'latency' | 'drop' | 'expire' | 'action';
  times: number | undefined;
  randoms: Map<string, () => number>;
  /** Told of each run of its action (`at(match, action)` waits on it). */
  onAction: ((run: Promise<void>) => void) | undefined;
}

type Outcome =
  | { kind: 'error'; err: ApiError; passThrough: boolean; plainText: boolean }
  | { kind: 'hang'; ms: number | undefined; passThrough: boolean; info: RequestInfo }
  | { kind: 'disconnect'; passThrough: boolean }
  | { kind: 'drop'; afterEvents?: number; afterMs?: number; reset: boolean; afterInitialEvents: boolean; note: (fault: string) => void }
  | { kind: 'expire'; as: 'event' | 'response'; info: RequestInfo };

const EFFECTS = ['error', 'hang', 'disconnect', 'latencyMs', 'drop', 'expire', 'action'] as const;
const KIND: Record<(typeof EFFECTS)[number], Rule['kind']> = { error: 'error', hang: 'hang', disconnect: 'disconnect', latencyMs: 'latency', drop: 'drop', expire: 'expire', action: 'action' };

/** FNV-1a over a string: a 32-bit seed for one rule's stream for one client. */
function mix(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** $KPLANE_FAULTS_SEED, else a random seed, announced on stderr so that a failing run can be replayed. */
function defaultSeed(): number {
  const text = process.env['KPLANE_FAULTS_SEED'];
  const env = Number(text);
  if (text && Number.isSafeInteger(env)) return env;
  const seed = Math.floor(Math.random() * 2 ** 31);
  process.stderr.write(`kplane faults: random seed ${seed} (replay with KPLANE_FAULTS_SEED=${seed})\n`);
  return seed;
}

function pick(a: Amount, random: () => number): number {
  if (typeof a === 'number') return a;
  const [min, max] = a;
  return min + Math.floor(random() * (max - min + 1));
}

const isResumedWatch = (info: RequestInfo): boolean => info.verb === 'watch' && info.resourceVersion !== '' && info.resourceVersion !== '0';

function validate(spec: FaultRuleSpec): Rule['kind'] {
  const given = EFFECTS.filter((e) => spec[e] !== undefined && spec[e] !== false);
  if (given.length !== 1) throw new Error(`a fault rule needs exactly one of ${EFFECTS.join(', ')}; got ${given.length ? given.join(', ') : 'none'}`);
  if (spec.rate !== undefined && !(spec.rate >= 0 && spec.rate <= 1)) throw new Error(`rate must be within 0..1, got ${spec.rate}`);
  for (const k of ['count', 'times', 'after'] as const) {
    const v = spec[k];
    if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw new Error(`${k} must be a non-negative integer, got ${v}`);
  }
  return KIND[given[0]!];
}

/**
 * Creates a fault injector. The same seed, rules and sequence of requests (per client) give the
 * same faults: each rule draws from its own random stream per client, derived from the seed.
 */
export function createFaults(options: FaultsOptions = {}): Faults {
  const seed = options.seed ?? defaultSeed();
  let clock: FaultClock | undefined = options.clock;
  const clockNow = (): FaultClock => clock ?? systemClock;
  let actions: ControlPlaneActions = {};
  const rules: Rule[] = [];
  const log: InjectedFault[] = [];
  let requests = 0;

  const record = (request: number, who: string, target: string, rule: number, fault: string): void => {
    log.push({ request, at: clockNow().now(), who, target, rule, fault });
  };

  const attached = (action: ControlPlaneAction): NonNullable<ControlPlaneActions[ControlPlaneAction]> => {
    const fn = actions[action];
    if (!fn) throw new Error(`faults: no ${action} attached (call faults.attach() with the control plane)`);
    return fn;
  };
  const running = new Set<Promise<void>>();
  /** Starts an action; a failure is logged (and rejects the returned promise, which is never unhandled). */
  const startAction = (action: ControlPlaneAction, request: number, who: string, target: string, rule: number): Promise<void> => {
    const fn = attached(action);
    record(request, who, target, rule, action);
    const run = (async () => fn.call(actions))().then(
      () => undefined,
      (err: unknown) => {
        record(request, who, target, rule, `${action} failed: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      },
    );
    run.catch(() => undefined);
    running.add(run);
    void run.finally(() => running.delete(run)).catch(() => undefined);
    return run;
  };

  const randomFor = (rule: Rule, who: string): (() => number) => {
    let r = rule.randoms.get(who);
    if (!r) {
      r = seededRandom(mix(`${seed}/${rule.index}/${who}`));
      rule.randoms.set(who, r);
    }
    return r;
  };

  const selects = (rule: Rule, info: RequestInfo, who: string): boolean => {
    if (rule.removed || !requestMatches(rule.spec, info, who)) return false;
    if (rule.kind === 'drop') return info.verb === 'watch';
    if (rule.kind === 'expire') return isResumedWatch(info);
    return true;
  };

  const addRule = (spec: FaultRuleSpec, onAction?: (run: Promise<void>) => void): Rule => {
    const kind = validate(spec);
    const rule: Rule = {
      index: rules.length,
      spec: { ...spec },
      matched: 0,
      injected: 0,
      removed: false,
      kind,
      times: spec.count ?? spec.times,
      randoms: new Map(),
      onAction,
      remove() {
        rule.removed = true;
      },
    };
    rules.push(rule);
    return rule;
  };
  const add = (spec: FaultRuleSpec): FaultRule => addRule(spec);

  const wrap = (inner: Transport, who = 'client'): Transport => async (sent: RawRequest): Promise<RawResponse> => {
    // Faults cut and count the bytes of watches: the inner transport answers in bytes.
    const req = withoutObjects(sent);
    const info = describeRequest(req);
    const seq = ++requests;
    const target = formatRequest(info);
    let latency = 0;
    let outcome: Outcome | undefined;
    const toRun: { rule: Rule; action: ControlPlaneAction }[] = [];
    for (const rule of rules) {
      if (!selects(rule, info, who)) continue;
      rule.matched++;
      if (rule.matched <= (rule.spec.after ?? 0)) continue;
      if (rule.times !== undefined && rule.injected >= rule.times) continue;
      const outcomeKind = rule.kind !== 'latency' && rule.kind !== 'action';
      if (outcomeKind && outcome) continue;
      const random = randomFor(rule, who);
      const rate = rule.spec.rate ?? 1;
      if (rate < 1 && random() >= rate) continue;
      rule.injected++;
      const s = rule.spec;
      const note = (fault: string): void => record(seq, who, target, rule.index, fault);
      switch (rule.kind) {
        case 'latency': {
          const ms = pick(s.latencyMs!, random);
          latency += ms;
          note(`latency ${ms}ms`);
          break;
        }
        case 'action':
          toRun.push({ rule, action: s.action! });
          break;
        case 'error': {
          const err = s.error instanceof ApiError ? s.error : injectedError(s.error!, info, { message: s.message, retryAfterSeconds: s.retryAfterSeconds });
          outcome = { kind: 'error', err, passThrough: !!s.passThrough, plainText: !!s.plainText };
          note(`${err.code} ${err.reason}${s.passThrough ? ' (after the server handled it)' : ''}`);
          break;
        }
        case 'hang': {
          const ms = s.hang === true ? undefined : s.hang;
          outcome = { kind: 'hang', ms, passThrough: !!s.passThrough, info };
          note(`${ms === undefined ? 'no answer until aborted' : `no answer for ${ms}ms, then 504 Timeout`}${s.passThrough ? ' (after the server handled it)' : ''}`);
          break;
        }
        case 'disconnect':
          outcome = { kind: 'disconnect', passThrough: !!s.passThrough };
          note(s.passThrough ? 'connection reset after the server handled it' : 'connection refused');
          break;
        case 'drop': {
          const d = s.drop!;
          const afterEvents = d.afterEvents === undefined ? undefined : pick(d.afterEvents, random);
          const afterMs = d.afterMs === undefined ? undefined : pick(d.afterMs, random);
          outcome = { kind: 'drop', afterEvents, afterMs, reset: !!d.reset, afterInitialEvents: !!d.afterInitialEvents, note };
          break;
        }
        case 'expire': {
          const as = s.expire === 'response' ? 'response' : 'event';
          outcome = { kind: 'expire', as, info };
          note(`410 Expired (${as === 'event' ? 'ERROR event' : 'HTTP 410'})`);
          break;
        }
      }
    }
    // Started, not awaited: a restart waits for the requests in flight, and a controller
    // manager's for its reconciles, this request's among them.
    for (const { rule, action } of toRun) {
      const run = startAction(action, seq, who, target, rule.index);
      rule.onAction?.(run);
    }
    if (latency > 0) await sleepOn(clockNow(), latency, req.signal);
    if (!outcome) return inner(req);
    return answer(inner, req, outcome);
  };

  const answer = async (inner: Transport, req: RawRequest, o: Outcome): Promise<RawResponse> => {
    // A request that reaches the server and loses its answer: cancel whatever was streamed.
    const passThrough = async (): Promise<void> => {
      const ctl = new AbortController();
      const signal = req.signal ? AbortSignal.any([req.signal, ctl.signal]) : ctl.signal;
      try {
        const res = await inner({ ...req, signal });
        if (res.stream) {
          // Closed, then read once so that a generator's return() reaches the server's side.
          const it = res.stream[Symbol.asyncIterator]();
          ctl.abort();
          void it
            .next()
            .then(() => it.return?.())
            .catch(() => undefined);
        }
      } catch {
        /* the answer is lost anyway */
      }
    };
    switch (o.kind) {
      case 'error':
        if (o.passThrough) await passThrough();
        return o.plainText ? plainTextResponse(o.err) : statusResponse(o.err);
      case 'disconnect':
        if (o.passThrough) await passThrough();
        throw connectionError(o.passThrough ? 'ECONNRESET' : 'ECONNREFUSED');
      case 'expire':
        return o.as === 'event' ? expiredWatchResponse(o.info) : statusResponse(injectedError(410, o.info));
      case 'hang':
        if (o.passThrough) await passThrough();
        if (o.ms === undefined) {
          return new Promise<never>((_, reject) => {
            if (req.signal?.aborted) reject(abortReason(req.signal));
            req.signal?.addEventListener('abort', () => reject(abortReason(req.signal!)), { once: true });
          });
        }
        await sleepOn(clockNow(), o.ms, req.signal);
        return statusResponse(injectedError(504, o.info));
      case 'drop': {
        const ctl = new AbortController();
        const signal = req.signal ? AbortSignal.any([req.signal, ctl.signal]) : ctl.signal;
        const res = await inner({ ...req, signal });
        if (!res.stream) return res;
        const how = o.afterEvents !== undefined ? `after ${o.afterEvents} events` : `after ${o.afterMs}ms`;
        return {
          ...res,
          stream: cutStream(res.stream, {
            afterEvents: o.afterEvents,
            afterMs: o.afterMs,
            reset: o.reset,
            afterInitialEvents: o.afterInitialEvents,
            clock: clockNow(),
            onStop: () => ctl.abort(),
            onCut: () => o.note(`watch ${o.reset ? 'reset' : 'ended'} ${how}`),
          }),
        };
      }
    }
  };

  const faults: Faults = {
    seed,
    add,
    clear() {
      for (const r of rules) r.removed = true;
    },
    wrap,
    attach(a) {
      actions = a;
      if (!clock && a.clock) clock = a.clock;
    },
    now: (action) => startAction(action, requests, 'faults', '-', -1),
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    at(when, action) {
      if (typeof when !== 'number') {
        let settle!: (p: Promise<void>) => void;
        const done = new Promise<void>((resolve) => (settle = (p) => resolve(p)));
        done.catch(() => undefined);
        const rule = addRule({ ...when, count: 1, action }, settle);
        return {
          cancel() {
            rule.remove();
            settle(Promise.resolve());
          },
          done,
        };
      }
      const c = clockNow();
      let cancelled = false;
      let handle: unknown;
      const done = new Promise<void>((resolve, reject) => {
        handle = c.setTimeout(() => {
          if (cancelled) return resolve();
          try {
            startAction(action, requests, 'faults', '-', -1).then(resolve, reject);
          } catch (err) {
            reject(err);
          }
        }, when);
      });
      done.catch(() => undefined);
      return {
        cancel() {
          cancelled = true;
          c.clearTimeout(handle);
        },
        done,
      };
    },
    get log() {
      return log;
    },
    describe(max = 50) {
      const head = `faults seed ${seed} (replay with createFaults({ seed: ${seed} }) or KPLANE_FAULTS_SEED=${seed}): ${log.length} injected`;
      const shown = log.slice(-max);
      const lines = shown.map((f) => `  #${f.request} [${f.who}] ${f.target} -> ${f.fault}${f.rule >= 0 ? ` (rule ${f.rule})` : ''}`);
      if (shown.length < log.length) lines.unshift(`  ... ${log.length - shown.length} earlier`);
      return [head, ...lines].join('\n');
    },
  };
  return faults;
}
