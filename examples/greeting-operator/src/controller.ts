/**
 * The Greeting controller on kplane's runtime SDK: for each Greeting, a Deployment, a Service
 * and an Ingress, written by server-side apply and owned by the Greeting; its status from the
 * Deployment's; and, behind a finalizer, a DNS record kept outside the cluster.
 */
import {
  Action,
  Deployments,
  Ingresses,
  Services,
  finalizer,
  type KindDescriptor,
  type KubeObject,
  type Manager,
  type ApplyConfiguration,
} from '@kplane/runtime';
import { FIELD_MANAGER, covers, desiredDeployment, desiredIngress, desiredService, desiredStatus, statusCovered } from './children.js';
import { Greetings, type Greeting } from './kind.js';
import type { RecordStore } from './records.js';

/** The finalizer that keeps a Greeting until its DNS record is removed. */
export const FINALIZER = 'demo.example.com/cleanup';
/** The controller's name (its metrics' `controller` label and its workqueue's name). */
export const CONTROLLER_NAME = 'greeting';

/** What the controller needs besides its manager. */
export interface GreetingControllerOptions {
  /** Where the DNS records live. */
  records: RecordStore;
  /** Where the log lines go (default console.log). */
  log?: (line: string) => void;
}

/** Registers the Greeting controller with `mgr`. */
export function addGreetingController(mgr: Manager, { records, log = console.log }: GreetingControllerOptions): void {
  const greetings = mgr.factory.informerFor(Greetings);
  const children = [
    { kind: Deployments, informer: mgr.factory.informerFor(Deployments), desired: desiredDeployment, label: 'deployment.apps' },
    { kind: Services, informer: mgr.factory.informerFor(Services), desired: desiredService, label: 'service' },
    { kind: Ingresses, informer: mgr.factory.informerFor(Ingresses), desired: desiredIngress, label: 'ingress.networking.k8s.io' },
  ] as const;
  const api = mgr.client.resource(Greetings);
  const say = (key: string, what: string) => log(`${key}: ${what}`);

  /** Applies a child unless the cached one already holds every field the operator owns. */
  async function applyChild<T extends KubeObject>(kind: KindDescriptor<T>, live: T | undefined, desired: ApplyConfiguration<T>, label: string, key: string, signal: AbortSignal) {
    if (live && covers(live, desired)) return;
    await mgr.client.resource(kind).apply(desired, { fieldManager: FIELD_MANAGER, force: true, namespace: desired.metadata.namespace!, signal });
    say(key, `applied ${label}/${desired.metadata.name}`);
  }

  mgr
    .controller()
    .named(CONTROLLER_NAME)
    .for(Greetings)
    .owns(Deployments) // a child's change (a manual scale, a deletion) wakes its Greeting
    .owns(Services)
    .owns(Ingresses)
    .complete(async ({ key }, { signal }) => {
      const cached = greetings.store.get(key); // from the cache: frozen, never mutate
      if (!cached) return Action.awaitChange(); // gone: the garbage collector removes the children
      await finalizer(api, cached, FINALIZER, {
        apply: async (g: Greeting) => {
          for (const c of children) {
            await applyChild(c.kind as KindDescriptor<KubeObject>, c.informer.store.get(key), c.desired(g) as ApplyConfiguration<KubeObject>, c.label, key, signal);
          }
          if (g.spec.host) {
            if (await records.upsert(key, g.spec.host, signal)) say(key, `DNS record ${g.spec.host} written`);
          } else if (await records.remove(key, signal)) {
            say(key, 'DNS record removed (no host)');
          }
          const ready = children[0].informer.store.get(key)?.status?.readyReplicas ?? 0;
          if (statusCovered(g, desiredStatus(g, ready, mgr.clock.now()))) return;
          // The cache may not hold our last status write yet: judge from a fresh read, or the
          // Ready condition's lastTransitionTime would move on every stale reconcile.
          const fresh = await api.get(g.metadata!.name!, { namespace: g.metadata!.namespace!, signal });
          // A newer spec than the one just applied: its own reconcile (already queued) reports it.
          if (fresh.metadata?.generation !== g.metadata?.generation) return;
          const status = desiredStatus(fresh, ready, mgr.clock.now());
          if (statusCovered(fresh, status)) return;
          await api.apply({ metadata: { name: g.metadata!.name!, namespace: g.metadata!.namespace! }, status }, { fieldManager: FIELD_MANAGER, force: true, subresource: 'status', signal });
          say(key, `status ${status.conditions![0]!.message}`);
        },
        cleanup: async (g: Greeting) => {
          say(key, `deleting: removing DNS record ${g.spec.host ?? '(none)'}`);
          await records.remove(key, signal);
          say(key, `DNS record removed, removing finalizer ${FINALIZER}`);
        },
      }).then((outcome) => {
        if (outcome.event === 'added') say(key, `finalizer ${FINALIZER} added`);
      });
      return Action.awaitChange();
    });
}
