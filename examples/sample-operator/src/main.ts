/**
 * Runs the secret-copier against the cluster of $KUBECONFIG (or ~/.kube/config), e.g. a
 * `npx kplane up`, until SIGINT or SIGTERM.
 */
import { clientFromKubeconfig } from '@kplane/client';
import { createManager } from '@kplane/runtime';
import { addSecretCopier } from './controller.js';

const mgr = createManager({ client: clientFromKubeconfig(), leaderElection: { namespace: 'default', name: 'secret-copier' } });
addSecretCopier(mgr);
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop.abort());
await mgr.start(stop.signal);
