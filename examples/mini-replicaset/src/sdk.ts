/**
 * The mini-replicaset on kplane's runtime SDK: the same behaviour and log lines as the bare
 * version (bare.ts), with the SDK's shared informers (list then watch, relist on 410, indexes),
 * its workqueue (duplicates collapse, one key never reconciled twice at once, retries with
 * backoff) and its controller builder; `--leader-elect` makes the copies elect a leader on a
 * Lease so that only one acts.
 *
 *   node dist/sdk.js [NAMESPACE] [--status] [--leader-elect] [--lang fr]
 *
 * It talks to the cluster of $KUBECONFIG (or ~/.kube/config) over HTTPS; no proxy is needed.
 */
import { clientFromKubeconfig, isNotFound } from '@kplane/client';
import { Action, ConfigMaps, Pods, createManager, type ConfigMap, type Pod } from '@kplane/runtime';
import { LEASE_NAME, OWNER_LABEL, WANT_LABEL, desiredCount, messages, parseOptions, podFor, podsOf, statusOf, statusPatch, surplus } from './common.js';

const opts = parseOptions(process.argv.slice(2));
const say = messages(opts.lang);
const ns = opts.namespace;
const client = clientFromKubeconfig();
const mgr = createManager({
  client,
  namespace: ns, // the caches hold this namespace only
  ...(opts.leaderElect ? { leaderElection: { namespace: ns, name: LEASE_NAME } } : {}),
});

// Shared informers: one list-then-watch per resource, a cache with indexes.
const configMaps = mgr.factory.informerFor(ConfigMaps);
const pods = mgr.factory.informerFor(Pods);
const BY_OWNER = 'byOwnerLabel';
pods.store.addIndexer(BY_OWNER, (p) => (p.metadata?.labels?.[OWNER_LABEL] ? [p.metadata.labels[OWNER_LABEL]] : []));

const podApi = client.resource(Pods);
const cmApi = client.resource(ConfigMaps);
const wanted = (cm: ConfigMap) => cm.metadata?.labels?.[WANT_LABEL] === 'oui';

mgr
  .controller()
  .named('mini-replicaset')
  // Wake on labelled ConfigMaps, and on pods by their owner label (keys namespace/name).
  .for(ConfigMaps, { predicates: [(c) => wanted(c.object) || (c.type === 'update' && wanted(c.old))] })
  .watches(Pods, (p: Pod) => (p.metadata?.labels?.[OWNER_LABEL] ? [{ namespace: ns, name: p.metadata.labels[OWNER_LABEL] }] : []))
  .complete(async ({ name, key }, { signal }) => {
    // The bare version's bet, on the manager's clock: that the cache has caught up with our own
    // last writes. Changes meanwhile collapse into one more reconcile after this one.
    await mgr.clock.sleep(200, signal);
    const cm = configMaps.store.get(key); // from the cache: frozen, never mutate
    if (!cm || !wanted(cm)) return Action.awaitChange(); // no wish any more: the garbage collector removes the pods
    const mine = podsOf(pods.store.byIndex(BY_OWNER, name), name);
    const want = desiredCount(cm);
    if (opts.status) {
      const s = statusOf(mine, want);
      const patch = statusPatch(cm, s); // written only when it changes, or each write would wake us again
      if (patch) {
        await cmApi.patch(name, patch, 'merge', { namespace: ns, signal });
        console.log(say.status(name, s));
      }
    }
    for (let have = mine.length; have < want; have++) {
      const pod = await podApi.create(podFor(cm) as Pod, { namespace: ns, signal });
      console.log(say.creating(name, have, want, pod.metadata!.name!));
    }
    let have = mine.length;
    for (const pod of surplus(mine, want)) {
      await podApi.delete(pod.metadata!.name!, { namespace: ns, signal }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err; // already gone; anything else: retried with backoff
      });
      console.log(say.deleting(name, have--, want, pod.metadata!.name!));
    }
    return Action.awaitChange();
  });

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
