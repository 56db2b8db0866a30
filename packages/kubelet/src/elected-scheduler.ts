/**
 * The scheduler behind leader election, as kube-scheduler runs with `--leader-elect` (its
 * default): contenders share the Lease `kube-system/kube-scheduler`; only the holder lists,
 * watches and binds. When the term ends (renewal failed, or `stop()`), the holder stops
 * scheduling before another can take the Lease over.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Client } from '@kplane/client';
import { createLeaderElector, realClock, type Clock, type RuntimeMetrics } from '@kplane/runtime';
import { createScheduler, type Scheduler, type SchedulerOptions } from './scheduler.js';

/** kube-scheduler's leader election Lease. */
export const SCHEDULER_LEASE = { namespace: 'kube-system', name: 'kube-scheduler' } as const;

/** Options of startElectedScheduler: the scheduler's, the Lease's timing (client-go's defaults: 15 s, 10 s, 2 s) and an identity. */
export interface ElectedSchedulerOptions extends Omit<SchedulerOptions, 'client' | 'clock'> {
  client: Client;
  clock?: Clock;
  /** This contender's identity (default `<hostname>_<uuid>`, as kube-scheduler's). */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Told each time the observed holder changes. */
  onNewLeader?: (identity: string) => void;
  /** Receives leader_election_master_status{name="kube-scheduler"}. */
  metrics?: Pick<RuntimeMetrics, 'setLeader'>;
}

/** A scheduler that schedules only while it holds the Lease. */
export interface ElectedScheduler {
  readonly identity: string;
  /** True while this contender holds the Lease and its scheduler runs. */
  isLeader(): boolean;
  /** The holder last observed ("" for none). */
  leader(): string;
  /** The running scheduler, while leading. */
  readonly scheduler: Scheduler | undefined;
  /** Resolves once the term ended (the Lease lost) or after `stop()`; the scheduler is stopped by then. */
  readonly done: Promise<void>;
  /** Stops contending (releasing the Lease when held) and stops the scheduler. */
  stop(): Promise<void>;
}

/** Starts contending for `kube-system/kube-scheduler`; the scheduler starts once the Lease is won. */
export function startElectedScheduler(options: ElectedSchedulerOptions): ElectedScheduler {
  const { client, identity: given, leaseDurationMs, renewDeadlineMs, retryPeriodMs, onNewLeader, metrics, ...schedulerOptions } = options;
  const identity = given ?? `${hostname()}_${randomUUID()}`;
  const clock = options.clock ?? realClock;
  const abort = new AbortController();
  let scheduler: Scheduler | undefined;
  let stopping: Promise<void> = Promise.resolve();
  const elector = createLeaderElector({
    client,
    ...SCHEDULER_LEASE,
    identity,
    clock,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    onNewLeader,
    metrics,
    async onStartedLeading(signal) {
      const s = createScheduler({ ...schedulerOptions, client, clock });
      scheduler = s;
      let release!: () => void;
      stopping = new Promise((r) => (release = r));
      const ended = new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true })));
      try {
        await Promise.race([s.start(), ended]);
        await ended;
      } finally {
        scheduler = undefined;
        await s.stop();
        release();
      }
    },
    onStoppedLeading() {},
  });
  const done = elector
    .run(abort.signal)
    .catch((err) => options.onError?.(err))
    .then(() => stopping);
  return {
    identity,
    isLeader: () => elector.isLeader(),
    leader: () => elector.getLeader(),
    get scheduler() {
      return scheduler;
    },
    done,
    async stop() {
      abort.abort();
      await done;
    },
  };
}
