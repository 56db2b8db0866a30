/**
 * The main thread's side of `controllersInWorker`: starts the worker thread that runs the
 * controller manager and the simulated nodes, and serves their requests with the API server's
 * in-process handler, over a MessagePort.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import type { Transport } from '@kplane/api';
import { serveOverPort, type BridgeCalls } from './bridge.js';
import type { WorkerData, WorkerReport } from './options.js';

/** A running components worker. */
export interface ComponentsWorker {
  /** The names of the nodes it simulates. */
  readonly nodeNames: readonly string[];
  /** Stops its controllers and nodes, then the thread. */
  stop(): Promise<void>;
}

/**
 * Starts the worker with `data`, its requests served by `serve` and its named calls by `calls`;
 * resolves once its controllers and nodes have started (rejects, the thread ended, if they fail).
 */
export async function startComponentsWorker(serve: Transport, data: WorkerData, calls: BridgeCalls = {}): Promise<ComponentsWorker> {
  const { port1, port2 } = new MessageChannel();
  const unserve = serveOverPort(port1, serve, calls);
  const worker = new Worker(new URL('./components-worker.js', import.meta.url), { workerData: { ...data, port: port2 }, transferList: [port2] });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const end = async () => {
    unserve();
    port1.close();
    await worker.terminate();
    await exited;
  };
  const next = () =>
    new Promise<WorkerReport>((resolve, reject) => {
      const onMessage = (r: WorkerReport) => {
        cleanup();
        resolve(r);
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      const onExit = (code: number) => {
        cleanup();
        reject(new Error(`the components worker exited (${code})`));
      };
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
  let started: WorkerReport;
  try {
    started = await next();
  } catch (err) {
    await end();
    throw err;
  }
  if (started.t !== 'started') {
    await end();
    throw new Error(started.t === 'error' ? started.message : 'the components worker stopped at once');
  }
  let stopping: Promise<void> | undefined;
  return {
    nodeNames: started.nodeNames,
    stop: () =>
      (stopping ??= (async () => {
        const done = next().catch(() => undefined);
        worker.postMessage('stop');
        const r = await done;
        await end();
        if (r?.t === 'error') throw new Error(r.message);
      })()),
  };
}
