/** The scheduler and the simulated kubelet together: what `kplane up --nodes N` runs. */
import type { UserInfo } from '@kplane/api';
import type { Client } from '@kplane/client';
import { createKubelet, type Kubelet, type KubeletOptions } from './kubelet.js';
import { createScheduler, type Scheduler, type SchedulerOptions } from './scheduler.js';
import { startElectedScheduler, type ElectedScheduler, type ElectedSchedulerOptions } from './elected-scheduler.js';

/** Options of startSimulation: the kubelet's, plus the scheduler's (false: no scheduler). */
export interface SimulationOptions extends KubeletOptions {
  scheduler?: false | Omit<SchedulerOptions, 'client' | 'clock'>;
  /** The scheduler's client (its own identity, `system:kube-scheduler`); default `client`. */
  schedulerClient?: Client;
  /**
   * Run the scheduler behind leader election on the Lease kube-system/kube-scheduler, as
   * kube-scheduler's --leader-elect (default false: it schedules at once); an object sets the
   * identity and timing. With it, startSimulation does not wait for the scheduler.
   */
  leaderElection?: boolean | Pick<ElectedSchedulerOptions, 'identity' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'onNewLeader'>;
}

/** The user a scheduler authenticates as (kube-scheduler's identity, bound to the ClusterRole system:kube-scheduler). */
export const SCHEDULER_USER: UserInfo = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };

/** The user a node's kubelet authenticates as: `system:node:<name>` in group `system:nodes`. */
export { nodeUser } from '@kplane/api';

/** A running simulation. */
export interface Simulation {
  readonly kubelet: Kubelet;
  /** The scheduler (with leader election: while this process leads). */
  readonly scheduler?: Scheduler;
  /** The scheduler's leader election, with `leaderElection`. */
  readonly election?: ElectedScheduler;
  /** Stops the scheduler and the kubelet. */
  stop(): Promise<void>;
}

/**
 * Registers the nodes, then starts the kubelet and (unless `scheduler: false`) the scheduler;
 * resolves once both are synced. With `nodes: 0` nothing is started, so pods stay Pending.
 */
export async function startSimulation(options: SimulationOptions): Promise<Simulation> {
  const kubelet = createKubelet(options);
  if ((options.nodes ?? 3) === 0) return { kubelet, stop: async () => {} };
  const schedulerOptions = options.scheduler === false ? undefined : { ...options.scheduler, client: options.schedulerClient ?? options.client, clock: options.clock, onError: options.scheduler?.onError ?? options.onError };
  const elect = schedulerOptions && options.leaderElection ? (options.leaderElection === true ? {} : options.leaderElection) : undefined;
  const scheduler = schedulerOptions && !elect ? createScheduler(schedulerOptions) : undefined;
  await kubelet.start();
  try {
    await scheduler?.start();
  } catch (err) {
    await kubelet.stop();
    throw err;
  }
  const election = schedulerOptions && elect ? startElectedScheduler({ ...schedulerOptions, ...elect }) : undefined;
  return {
    kubelet,
    get scheduler() {
      return election ? election.scheduler : scheduler;
    },
    election,
    async stop() {
      await election?.stop();
      await scheduler?.stop();
      await kubelet.stop();
    },
  };
}
