/**
 * Lease-based leader election with client-go's algorithm (tools/leaderelection): contenders
 * poll a Lease every retry period; the holder renews it, and a contender takes it over only
 * after it has seen the Lease unchanged for a full lease duration on its own clock.
 */
import { ApiError } from '@kplane/api';
import type { Client } from '@kplane/client';
import { realClock, type Clock } from '../clock.js';
import type { RuntimeMetrics } from '../metrics.js';
import { catchRejection, reportPanic, type PanicHandler } from '../recover.js';
import { createLeaseLock, recordKey, type LeaderElectionRecord, type LeaseLock } from './lease-lock.js';

/** client-go's JitterFactor: acquire retries wait retryPeriod × (1 + random × 1.2). */
export const JITTER_FACTOR = 1.2;

/** Options of createLeaderElector. Durations in milliseconds. */
export interface LeaderElectorOptions {
  client: Client;
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease (also the `name` label of leader_election_master_status). */
  name: string;
  /** This contender's unique identity (typically host name + a random suffix). */
  identity: string;
  /** How long a non-leader waits, after last seeing the Lease change, before taking it over (default 15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps retrying a failing renewal before giving up (default 10 s). */
  renewDeadlineMs?: number;
  /** Wait between attempts (default 2 s). */
  retryPeriodMs?: number;
  /**
   * Give the Lease up when the term ends (default true, as ReleaseOnCancel). A function is asked
   * at that moment (the manager answers no when its reconcilers did not stop in time).
   */
  releaseOnCancel?: boolean | (() => boolean);
  clock?: Clock;
  /** Receives `setLeader(name, isLeader)`. */
  metrics?: Pick<RuntimeMetrics, 'setLeader'>;
  /** Random source in [0, 1) for the acquire jitter (default Math.random). */
  random?: () => number;
  /** Called when leadership is won; `signal` aborts when it ends. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once leadership has ended (after the Lease was released, when releasing). */
  onStoppedLeading(): void;
  /** Called when the observed holder changes (including to this identity, or to "" on release). */
  onNewLeader?(identity: string): void;
  /** Told when `onNewLeader` or `onStoppedLeading` throws (default: logged); the elector goes on. */
  onPanic?: PanicHandler;
}

/** A leader elector: `run` it once. */
export interface LeaderElector {
  /**
   * Contends for the Lease until won, leads until renewal fails or `signal` aborts, then
   * returns. Resolves (never rejects for API errors) — except that an error thrown by
   * `onStartedLeading` ends the term and is rethrown once cleanup is done.
   */
  run(signal?: AbortSignal): Promise<void>;
  /** True between winning the Lease and the end of the term (the started signal not aborted). */
  isLeader(): boolean;
  /** The holder identity last observed in the Lease ("" if none). */
  getLeader(): string;
}

/** Creates a leader elector over a coordination.k8s.io/v1 Lease. Throws on invalid timing options. */
export function createLeaderElector(options: LeaderElectorOptions): LeaderElector {
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = options.retryPeriodMs ?? 2_000;
  validate(options, leaseDurationMs, renewDeadlineMs, retryPeriodMs);

  const { identity, name } = options;
  const clock = options.clock ?? realClock;
  const random = options.random ?? Math.random;
  const releaseOption = options.releaseOnCancel ?? true;
  const shouldRelease = (): boolean => (typeof releaseOption === 'function' ? releaseOption() : releaseOption);
  const leaseDurationSeconds = Math.floor(leaseDurationMs / 1000);
  const lock: LeaseLock = createLeaseLock({ client: options.client, namespace: options.namespace, name });

  let observed: LeaderElectionRecord = { holderIdentity: '', leaseDurationSeconds: 0, leaseTransitions: 0 };
  let observedRaw = '';
  let observedTime = 0;
  let reportedLeader: string | undefined;
  let term: AbortController | undefined;
  let running = false;

  const setObserved = (record: LeaderElectionRecord): void => {
    observed = record;
    observedTime = clock.now();
  };
  const holdsObserved = (): boolean => observed.holderIdentity === identity;
  const leaseValid = (now: number): boolean => observedTime + observed.leaseDurationSeconds * 1000 > now;

  /** One attempt to acquire or renew; every failure (409s included) is a lost round. */
  async function tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = clock.now();
    const record: LeaderElectionRecord = {
      holderIdentity: identity,
      leaseDurationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };

    // Fast path: the holder writes over the Lease it last wrote, without reading it first.
    if (holdsObserved() && leaseValid(now)) {
      record.acquireTime = observed.acquireTime;
      record.leaseTransitions = observed.leaseTransitions;
      try {
        await lock.update(record, signal);
        setObserved(record);
        return true;
      } catch {
        // Fall through to the read-then-write path.
      }
    }

    let current: LeaderElectionRecord;
    try {
      current = await lock.get(signal);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) return false;
      try {
        await lock.create(record, signal);
      } catch {
        return false;
      }
      setObserved(record);
      return true;
    }

    // The observation time only moves when the Lease content changes.
    const raw = recordKey(current);
    if (raw !== observedRaw) {
      setObserved(current);
      observedRaw = raw;
    }
    if (current.holderIdentity !== '' && leaseValid(now) && !holdsObserved()) return false;

    if (holdsObserved()) {
      record.acquireTime = current.acquireTime;
      record.leaseTransitions = current.leaseTransitions;
    } else {
      record.leaseTransitions = current.leaseTransitions + 1;
    }
    try {
      await lock.update(record, signal);
    } catch {
      return false;
    }
    setObserved(record);
    return true;
  }

  function maybeReportTransition(): void {
    const holder = observed.holderIdentity;
    if (holder === reportedLeader) return;
    reportedLeader = holder;
    const onNewLeader = options.onNewLeader;
    if (onNewLeader) {
      queueMicrotask(() => {
        const failed = (err: unknown): void => void reportPanic(options.onPanic, 'leader-election', err, { name: 'onNewLeader', key: `${options.namespace}/${name}` });
        try {
          catchRejection(onNewLeader(holder), failed);
        } catch (err) {
          failed(err);
        }
      });
    }
  }

  async function acquire(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      const won = await tryAcquireOrRenew(signal);
      maybeReportTransition();
      if (won) return true;
      try {
        await clock.sleep(retryPeriodMs * (1 + random() * JITTER_FACTOR), signal);
      } catch {
        return false;
      }
    }
  }

  /** Renews every retry period; returns when a renewal round failed for renewDeadline or `signal` aborted. */
  async function renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const round = new AbortController();
      const onAbort = (): void => round.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const deadline = clock.setTimeout(() => round.abort(new Error('renew deadline exceeded')), renewDeadlineMs);
      let renewed = false;
      try {
        while (!round.signal.aborted) {
          renewed = await tryAcquireOrRenew(round.signal);
          if (renewed || round.signal.aborted) break;
          await clock.sleep(retryPeriodMs, round.signal).catch(() => undefined);
        }
      } finally {
        clock.clearTimeout(deadline);
        signal.removeEventListener('abort', onAbort);
      }
      maybeReportTransition();
      if (!renewed || signal.aborted) return;
      try {
        await clock.sleep(retryPeriodMs, signal);
      } catch {
        return;
      }
    }
  }

  /** Gives the Lease up if this contender still holds it: holder "", duration 1 s. */
  async function release(): Promise<void> {
    const timeout = new AbortController();
    const timer = clock.setTimeout(() => timeout.abort(new Error('release timed out')), renewDeadlineMs);
    try {
      const current = await lock.get(timeout.signal);
      if (!holdsObserved() || current.holderIdentity !== identity) return;
      const now = clock.now();
      const record: LeaderElectionRecord = {
        holderIdentity: '',
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: observed.leaseTransitions,
      };
      await lock.update(record, timeout.signal);
      setObserved(record);
    } catch {
      // Best effort: the Lease then simply expires.
    } finally {
      clock.clearTimeout(timer);
    }
  }

  async function run(signal: AbortSignal = new AbortController().signal): Promise<void> {
    if (running) throw new Error(`leader elector for lease ${lock.describe()} is already running`);
    running = true;
    options.metrics?.setLeader(name, false);
    try {
      if (!(await acquire(signal))) return;
      if (signal.aborted) {
        // Won in the same instant as the abort: hand the Lease straight back.
        if (shouldRelease()) await release();
        return;
      }

      const current = new AbortController();
      term = current;
      const onAbort = (): void => current.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      options.metrics?.setLeader(name, true);
      let callbackError: { error: unknown } | undefined;
      void (async () => {
        try {
          await options.onStartedLeading(current.signal);
        } catch (error) {
          callbackError = { error };
          current.abort(error);
        }
      })();

      await renew(current.signal);

      // Stop the leader's work before anyone else can take the Lease over.
      current.abort(signal.aborted ? signal.reason : new Error(`leader election lost for lease ${lock.describe()}`));
      signal.removeEventListener('abort', onAbort);
      options.metrics?.setLeader(name, false);
      if (shouldRelease()) await release();
      maybeReportTransition();
      const stoppedFailed = (err: unknown): void =>
        void reportPanic(options.onPanic, 'leader-election', err, { name: 'onStoppedLeading', key: `${options.namespace}/${name}` });
      try {
        catchRejection(options.onStoppedLeading(), stoppedFailed);
      } catch (err) {
        stoppedFailed(err);
      }
      if (callbackError) throw callbackError.error;
    } finally {
      running = false;
    }
  }

  return {
    run,
    isLeader: () => term !== undefined && !term.signal.aborted,
    getLeader: () => observed.holderIdentity,
  };
}

function validate(options: LeaderElectorOptions, leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number): void {
  if (leaseDurationMs <= renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline');
  if (renewDeadlineMs <= JITTER_FACTOR * retryPeriodMs) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
  if (leaseDurationMs < 1) throw new Error('leaseDuration must be greater than zero');
  if (leaseDurationMs < 1000) throw new Error('leaseDuration must be at least one second (spec.leaseDurationSeconds is whole seconds)');
  if (renewDeadlineMs < 1) throw new Error('renewDeadline must be greater than zero');
  if (retryPeriodMs < 1) throw new Error('retryPeriod must be greater than zero');
  if (typeof options.onStartedLeading !== 'function') throw new Error('OnStartedLeading callback must not be nil');
  if (typeof options.onStoppedLeading !== 'function') throw new Error('OnStoppedLeading callback must not be nil');
  if (!options.identity) throw new Error('Lock identity is empty');
}
