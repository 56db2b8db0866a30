/** The scheduler and the simulated kubelet together: what `kplane up --nodes N` runs. */
import type { UserInfo } from '@kplane/api';
import type { Client } from '@kplane/client';
import { createKubelet, type Kubelet, type KubeletOptions } from './kubelet.js';
import { createScheduler, type Scheduler, type SchedulerOptions } from './scheduler.js';

/** Options of startSimulation: the kubelet's, plus the scheduler's (false: no scheduler). */
export interface SimulationOptions extends KubeletOptions {
  scheduler?: false | Omit<SchedulerOptions, 'client' | 'clock'>;
  /** The scheduler's client (its own identity, `system:kube-scheduler`); default `client`. */
  schedulerClient?: Client;
}

/** The user a scheduler authenticates as (kube-scheduler's identity, bound to the ClusterRole system:kube-scheduler). */
export const SCHEDULER_USER: UserInfo = { username: 'system:kube-scheduler', groups: ['system:authenticated'] };

/** The user a node's kubelet authenticates as: `system:node:<name>` in group `system:nodes`. */
export { nodeUser } from '@kplane/api';

/** A running simulation. */
export interface Simulation {
  readonly kubelet: Kubelet;
  readonly scheduler?: Scheduler;
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
  const scheduler = options.scheduler === false ? undefined : createScheduler({ ...options.scheduler, client: options.schedulerClient ?? options.client, clock: options.clock, onError: options.scheduler?.onError ?? options.onError });
  await kubelet.start();
  try {
    await scheduler?.start();
  } catch (err) {
    await kubelet.stop();
    throw err;
  }
  return {
    kubelet,
    scheduler,
    async stop() {
      await scheduler?.stop();
      await kubelet.stop();
    },
  };
}
