/**
 * The Greeting controller on kplane's runtime SDK: for each Greeting, a Deployment, a Service
 * and an Ingress, written by server-side apply and owned by the Greeting; its status from the
 * Deployment's; and, behind a finalizer, a DNS record kept outside the cluster.
 */
import {
  Action,
  Deployments,
  type EventRecorder,
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
  /** Where the Events go (default the manager's recorder for {@link EVENT_SOURCE}). */
  recorder?: EventRecorder;
}

/** The Events' source (their reportingComponent, `kubectl events`' SOURCE... column), as kube's controllers name theirs. */
export const EVENT_SOURCE = 'greeting-controller';

/** An abort of the manager's stop, not a failure worth an Event. */
const isAbort = (err: unknown): boolean => typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';

/** Registers the Greeting controller with `mgr`. */
export function addGreetingController(mgr: Manager, { records, log = console.log, recorder = mgr.eventRecorderFor(EVENT_SOURCE) }: GreetingControllerOptions): void {
  const greetings = mgr.factory.informerFor(Greetings);
  const children = [
    { kind: Deployments, informer: mgr.factory.informerFor(Deployments), desired: desiredDeployment, label: 'deployment.apps' },
    { kind: Services, informer: mgr.factory.informerFor(Services), desired: desiredService, label: 'service' },
    { kind: Ingresses, informer: mgr.factory.informerFor(Ingresses), desired: desiredIngress, label: 'ingress.networking.k8s.io' },
  ] as const;
  const api = mgr.client.resource(Greetings);
  const say = (key: string, what: string) => log(`${key}: ${what}`);
  /** Records an Event about `g` (fire and forget: the recorder never rejects, and bounds a flood). */
  const event = (g: Greeting, type: 'Normal' | 'Warning', reason: string, message: string): void =>
    void recorder.event({ apiVersion: `${Greetings.group}/${Greetings.version}`, kind: Greetings.kind, metadata: g.metadata }, type, reason, message);

  /** Applies a child unless the cached one already holds every field the operator owns; says what it did. */
  async function applyChild<T extends KubeObject>(g: Greeting, kind: KindDescriptor<T>, live: T | undefined, desired: ApplyConfiguration<T>, label: string, key: string, signal: AbortSignal) {
    if (live && covers(live, desired)) return;
    await mgr.client.resource(kind).apply(desired, { fieldManager: FIELD_MANAGER, force: true, namespace: desired.metadata.namespace!, signal });
    say(key, `applied ${label}/${desired.metadata.name}`);
    if (live) event(g, 'Normal', 'Updated', `Updated ${kind.kind} ${desired.metadata.name} to match the Greeting`);
    else event(g, 'Normal', 'Created', `Created ${kind.kind} ${desired.metadata.name}`);
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
      try {
        await reconcile(cached, key, signal);
      } catch (err) {
        // Shown by `kubectl describe greeting`; the runtime logs it and retries with backoff.
        if (!(signal.aborted && isAbort(err))) event(cached, 'Warning', 'ReconcileError', err instanceof Error ? err.message : String(err));
        throw err;
      }
      return Action.awaitChange();
    });

  async function reconcile(cached: Greeting, key: string, signal: AbortSignal): Promise<void> {
    await finalizer(api, cached, FINALIZER, {
      apply: async (g: Greeting) => {
        for (const c of children) {
          await applyChild(g, c.kind as KindDescriptor<KubeObject>, c.informer.store.get(key), c.desired(g) as ApplyConfiguration<KubeObject>, c.label, key, signal);
        }
        if (g.spec.host) {
          if (await records.upsert(key, g.spec.host, signal)) {
            say(key, `DNS record ${g.spec.host} written`);
            event(g, 'Normal', 'DNSRecordWritten', `DNS record ${g.spec.host} written`);
          }
        } else if (await records.remove(key, signal)) {
          say(key, 'DNS record removed (no host)');
          event(g, 'Normal', 'DNSRecordRemoved', 'DNS record removed: the Greeting has no host');
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
        const was = fresh.status?.conditions?.find((c) => c.type === 'Ready')?.status;
        const now = status.conditions![0]!;
        if (now.status === 'True' && was !== 'True') event(g, 'Normal', 'Ready', now.message!);
      },
      cleanup: async (g: Greeting) => {
        say(key, `deleting: removing DNS record ${g.spec.host ?? '(none)'}`);
        event(g, 'Normal', 'Deleting', `Removing DNS record ${g.spec.host ?? '(none)'} before the Greeting goes`);
        await records.remove(key, signal);
        say(key, `DNS record removed, removing finalizer ${FINALIZER}`);
        event(g, 'Normal', 'DNSRecordRemoved', `DNS record ${g.spec.host ?? '(none)'} removed, removing finalizer ${FINALIZER}`);
      },
    }).then((outcome) => {
      if (outcome.event === 'added') say(key, `finalizer ${FINALIZER} added`);
    });
  }
}
