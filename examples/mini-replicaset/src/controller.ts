/**
 * The mini-replicaset controller on kplane's runtime SDK, registered with a manager: sdk.ts runs
 * it against a cluster, controller.test.ts on a test control plane in virtual time.
 */
import { isNotFound } from '@kplane/client';
import { Action, ConfigMaps, Pods, TerminalError, type ConfigMap, type Manager, type Pod } from '@kplane/runtime';
import { OWNER_LABEL, WANT_LABEL, desiredCount, podFor, podsOf, statusOf, statusPatch, surplus, type Messages } from './common.js';

/** What the controller needs besides its manager. */
export interface MiniReplicaSetOptions {
  /** The namespace it works in (the manager's caches should hold it). */
  namespace: string;
  /** Write exercise 4's status annotation. */
  status: boolean;
  /** The log lines, in one language. */
  say: Messages;
  /** Where the lines go (default console.log). */
  log?: (line: string) => void;
}

const BY_OWNER = 'byOwnerLabel';

/** Registers the mini-replicaset controller with `mgr`. */
export function addMiniReplicaSet(mgr: Manager, { namespace: ns, status, say, log = console.log }: MiniReplicaSetOptions): void {
  // Shared informers: one list-then-watch per resource, a cache with indexes.
  const configMaps = mgr.factory.informerFor(ConfigMaps);
  const pods = mgr.factory.informerFor(Pods);
  pods.store.addIndexer(BY_OWNER, (p) => (p.metadata?.labels?.[OWNER_LABEL] ? [p.metadata.labels[OWNER_LABEL]] : []));
  const podApi = mgr.client.resource(Pods);
  const cmApi = mgr.client.resource(ConfigMaps);
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
      let want: number;
      try {
        want = desiredCount(cm);
      } catch (err) {
        throw new TerminalError((err as Error).message); // not retried: only a new wish can fix it
      }
      if (status) {
        const s = statusOf(mine, want);
        const patch = statusPatch(cm, s); // written only when it changes, or each write would wake us again
        if (patch) {
          await cmApi.patch(name, patch, 'merge', { namespace: ns, signal });
          log(say.status(name, s));
        }
      }
      for (let have = mine.length; have < want; have++) {
        const pod = await podApi.create(podFor(cm) as Pod, { namespace: ns, signal });
        log(say.creating(name, have, want, pod.metadata!.name!));
      }
      let have = mine.length;
      for (const pod of surplus(mine, want)) {
        await podApi.delete(pod.metadata!.name!, { namespace: ns, signal }).catch((err: unknown) => {
          if (!isNotFound(err)) throw err; // already gone; anything else: retried with backoff
        });
        log(say.deleting(name, have--, want, pod.metadata!.name!));
      }
      return Action.awaitChange();
    });
}
