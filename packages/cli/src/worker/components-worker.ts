/**
 * Entry of the worker thread that runs a control plane's controller manager and simulated nodes
 * (`controllersInWorker`): their clients reach the API server of the main thread through the
 * bridge on the port they are given. Stops on the message "stop".
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { ControllerManager, ControllerManagerOptions } from '@kplane/controllers';
import type { Simulation } from '@kplane/kubelet';
import { controllersModule, startControllers, startNodes } from '../components.js';
import { clientOverPort } from './bridge.js';
import type { WorkerData, WorkerReport } from './options.js';

const { port, options, serving, signing, rootCA } = workerData as WorkerData & { port: MessagePort };
const report = (r: WorkerReport) => parentPort!.postMessage(r);
const bridge = clientOverPort(port);
let controllerManager: ControllerManager | undefined;
let simulation: Simulation | undefined;
let stopped: Promise<void> | undefined;
const stop = () =>
  (stopped ??= (async () => {
    try {
      await simulation?.stop();
      await controllerManager?.stop();
    } finally {
      bridge.close();
    }
  })());

parentPort!.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  stop().then(
    () => report({ t: 'stopped' }),
    (err: unknown) => report({ t: 'error', message: String(err) }),
  );
});

try {
  if (options.controllers) {
    let clusterSigning: ControllerManagerOptions['clusterSigning'];
    if (signing) {
      const { loadSigningCa } = await controllersModule();
      clusterSigning = { ca: await loadSigningCa(signing.cert, signing.key), durationMs: signing.durationMs };
    }
    // Legacy ServiceAccount tokens are signed on the main thread, with the API server's keys.
    const tokens = { rootCA: rootCA ?? '', generateToken: (claims: unknown) => bridge.call<string>('generateToken', claims) };
    controllerManager = await startControllers(bridge.transport, options, serving, tokens, clusterSigning, rootCA);
  }
  simulation = await startNodes(bridge.transport, options, stop);
  report({ t: 'started', nodeNames: simulation ? [...simulation.kubelet.nodeNames] : [] });
} catch (err) {
  await stop().catch(() => {});
  report({ t: 'error', message: err instanceof Error ? err.message : String(err) });
}
