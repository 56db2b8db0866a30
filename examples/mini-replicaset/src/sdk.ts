/**
 * The mini-replicaset on kplane's runtime SDK: the same behaviour and log lines as the bare
 * version (bare.ts), with the SDK's shared informers (list then watch, relist on 410, indexes),
 * its workqueue (duplicates collapse, one key never reconciled twice at once, retries with
 * backoff) and its controller builder (controller.ts); `--leader-elect` makes the copies elect
 * a leader on a Lease so that only one acts.
 *
 *   node dist/sdk.js [NAMESPACE] [--status] [--leader-elect] [--lang fr]
 *
 * It talks to the cluster of $KUBECONFIG (or ~/.kube/config) over HTTPS; no proxy is needed.
 */
import { clientFromKubeconfig } from '@kplane/client';
import { createManager } from '@kplane/runtime';
import { LEASE_NAME, messages, parseOptions } from './common.js';
import { addMiniReplicaSet } from './controller.js';

const opts = parseOptions(process.argv.slice(2));
const say = messages(opts.lang);
const ns = opts.namespace;
const client = clientFromKubeconfig();
const mgr = createManager({
  client,
  namespace: ns, // the caches hold this namespace only
  ...(opts.leaderElect ? { leaderElection: { namespace: ns, name: LEASE_NAME } } : {}),
});
addMiniReplicaSet(mgr, { namespace: ns, status: opts.status, say });

if (opts.leaderElect) {
  // Runs only once this copy holds the Lease; the other copies wait, caches warm.
  mgr.add({ needLeaderElection: true, start: async () => console.log(say.leading(`${ns}/${LEASE_NAME}`, mgr.identity)) });
}
// A runnable that is not leader-elected starts once the caches have synced.
mgr.add({ start: async () => console.log(say.started(ns)) });

const stop = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => stop.abort());
await mgr.start(stop.signal); // on stop: reconciles in flight finish, then the Lease is released
client.transport.close();
