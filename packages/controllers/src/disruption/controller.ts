/**
 * The disruption controller (kube-controller-manager's pkg/controller/disruption): keeps each
 * PodDisruptionBudget's status (currentHealthy, desiredHealthy, expectedPods,
 * disruptionsAllowed, observedGeneration, disruptedPods and the DisruptionAllowed condition)
 * from the pods its selector matches and their controllers' scale, on the injected clock.
 */
import { ApiError, labelSelectorFromObject, type KubeObject, type LabelSelectorObject, type OwnerReference } from '@kplane/api';
import {
  Action, Deployments, NAMESPACE_INDEX, PodDisruptionBudgets, Pods, ReplicaSets, StatefulSets, createEventRecorder,
  type Clock, type Controller, type Deployment, type EventRecorder, type Manager, type Pod, type PodDisruptionBudget, type ReplicaSet, type Request, type StatefulSet,
} from '@kplane/runtime';
import { controllerOf } from '../replicaset/controller-ref.js';
import { buildDisruptedPods, countHealthyPods, expectedPodCount, failSafeStatus, nextStatus } from './status.js';

/** Options of createDisruptionController. */
export interface DisruptionControllerOptions {
  /** Controller and workqueue name (default "disruption"). */
  name?: string;
  /** Budgets handled in parallel (default 5). */
  workers?: number;
  /** Time source (default: the manager's clock). */
  clock?: Clock;
  /** Where events go (default: a recorder for "controllermanager"); false records none. */
  recorder?: EventRecorder | false;
}

const API_VERSION = 'policy/v1';
const KIND = 'PodDisruptionBudget';

/** The budgets whose selector matches the pod (the selector of a budget that cannot parse matches nothing). */
function matches(pdb: PodDisruptionBudget, pod: Pod): boolean {
  try {
    return labelSelectorFromObject(pdb.spec?.selector as LabelSelectorObject | undefined).matches(pod.metadata?.labels ?? {});
  } catch {
    return false;
  }
}

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

/** Go's %v of a *metav1.LabelSelector, as the UnmanagedPods event prints it. */
function renderSelector(sel: LabelSelectorObject | undefined): string {
  if (!sel) return '<nil>';
  const labels = Object.keys(sel.matchLabels ?? {}).sort().map((k) => `${k}: ${sel.matchLabels![k]},`).join('');
  const exprs = (sel.matchExpressions ?? []).map((e) => `{${e.key} ${e.operator} [${(e.values ?? []).join(' ')}]}`).join(' ');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

/** Registers the disruption controller on `manager`. */
export function createDisruptionController(manager: Manager, options: DisruptionControllerOptions = {}): Controller {
  const clock = options.clock ?? manager.clock;
  const recorder = options.recorder === false ? undefined : (options.recorder ?? createEventRecorder({ client: manager.client, component: 'controllermanager', clock }));
  const pdbInformer = manager.factory.informerFor<PodDisruptionBudget>(PodDisruptionBudgets);
  const podInformer = manager.factory.informerFor<Pod>(Pods);
  const rsInformer = manager.factory.informerFor<ReplicaSet>(ReplicaSets);
  const deployInformer = manager.factory.informerFor<Deployment>(Deployments);
  const ssInformer = manager.factory.informerFor<StatefulSet>(StatefulSets);
  const api = manager.client.resource<PodDisruptionBudget>(PodDisruptionBudgets);

  const event = (obj: KubeObject, apiVersion: string, kind: string, type: 'Normal' | 'Warning', reason: string, message: string): void => {
    if (recorder) void recorder.event({ ...obj, apiVersion, kind } as KubeObject, type, reason, message);
  };

  /** The scale of a controller found through its scale subresource (any kind serving one), or undefined. */
  const scaleOf = async (ns: string, ref: OwnerReference): Promise<number | undefined> => {
    const list = await manager.client.request<{ resources?: { name: string; kind: string; namespaced: boolean }[] }>({ method: 'GET', path: groupOf(ref.apiVersion) ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}` }).catch(() => undefined);
    const resource = list?.resources?.find((r) => r.kind === ref.kind && !r.name.includes('/'));
    if (!resource || !list?.resources?.some((r) => r.name === `${resource.name}/scale`)) return undefined;
    const [group, version] = groupOf(ref.apiVersion) ? ref.apiVersion.split('/') : ['', ref.apiVersion];
    try {
      const scale = await manager.client.resource({ group: group!, version: version!, resource: resource.name, namespaced: resource.namespaced }).getSubresource(ref.name, 'scale', { namespace: ns });
      if (scale.metadata?.uid !== ref.uid) return undefined;
      return (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
  };

  /** The replicas of the pod's controller (finders: ReplicaSet → its Deployment, StatefulSet, then any scale subresource). */
  const controllerScale = async (ns: string, ref: OwnerReference): Promise<number | undefined> => {
    const group = groupOf(ref.apiVersion);
    if (ref.kind === 'ReplicaSet' && group === 'apps') {
      const rs = rsInformer.store.get(`${ns}/${ref.name}`);
      if (!rs || rs.metadata?.uid !== ref.uid) return undefined;
      const owner = controllerOf(rs);
      if (owner?.kind === 'Deployment' && groupOf(owner.apiVersion) === 'apps') {
        const d = deployInformer.store.get(`${ns}/${owner.name}`);
        if (!d || d.metadata?.uid !== owner.uid) return undefined;
        return d.spec?.replicas ?? 1;
      }
      return rs.spec?.replicas ?? 1;
    }
    if (ref.kind === 'StatefulSet' && group === 'apps') {
      const ss = ssInformer.store.get(`${ns}/${ref.name}`);
      return ss && ss.metadata?.uid === ref.uid ? (ss.spec?.replicas ?? 1) : undefined;
    }
    return scaleOf(ns, ref);
  };

  /** getExpectedScale: the sum of the scale of the pods' distinct controllers; pods without one are unmanaged. */
  const expectedScale = async (pdb: PodDisruptionBudget, pods: readonly Pod[]): Promise<number> => {
    const seen = new Map<string, number>();
    const unmanaged: string[] = [];
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref) {
        unmanaged.push(pod.metadata?.name ?? '');
        continue;
      }
      if (seen.has(ref.uid)) continue;
      const scale = await controllerScale(pdb.metadata?.namespace ?? '', ref);
      if (scale === undefined) throw new Error(`found no controllers for pod "${pod.metadata?.name ?? ''}"`);
      seen.set(ref.uid, scale);
    }
    if (unmanaged.length > 0) {
      event(pdb, API_VERSION, KIND, 'Warning', 'UnmanagedPods', `Pods selected by this PodDisruptionBudget (selector: ${renderSelector(pdb.spec?.selector as LabelSelectorObject | undefined)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`);
    }
    return [...seen.values()].reduce((a, b) => a + b, 0);
  };

  const writeStatus = async (pdb: PodDisruptionBudget, status: PodDisruptionBudget['status']): Promise<void> => {
    await api.updateStatus({ ...structuredClone(pdb), apiVersion: API_VERSION, kind: KIND, status } as PodDisruptionBudget, { namespace: pdb.metadata?.namespace });
  };

  const reconcile = async (req: Request): Promise<Action | void> => {
    const pdb = pdbInformer.store.get(req.key);
    if (!pdb) return;
    const now = clock.now();
    try {
      const pods = podInformer.store.byIndex(NAMESPACE_INDEX, req.namespace).filter((p) => matches(pdb, p));
      if (pods.length === 0) event(pdb, API_VERSION, KIND, 'Normal', 'NoPods', 'No matching pods found');
      let desired;
      try {
        desired = await expectedPodCount(pdb, pods, () => expectedScale(pdb, pods));
      } catch (err) {
        event(pdb, API_VERSION, KIND, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${(err as Error).message}`);
        throw err;
      }
      const { disrupted, recheckAt, notDeleted } = buildDisruptedPods(pods, pdb, now);
      for (const pod of notDeleted) event(pod, 'v1', 'Pod', 'Warning', 'NotDeleted', `Pod was expected by PDB ${req.namespace}/${req.name} to be deleted but it wasn't`);
      const status = nextStatus(pdb, countHealthyPods(pods, disrupted, now), desired, disrupted, now);
      if (status) await writeStatus(pdb, status);
      // An entry expires once its deadline is behind: look again just after it.
      if (recheckAt !== undefined) return Action.requeue(Math.max(1, recheckAt - now + 1));
      return Action.awaitChange();
    } catch (err) {
      if (err instanceof ApiError && (err.code === 409 || err.code === 404)) throw err;
      // failSafe: no disruption allowed while the budget cannot be computed.
      await writeStatus(pdb, failSafeStatus(pdb, (err as Error).message, now));
      throw err;
    }
  };

  /** The budgets of a pod's namespace that select it. */
  const budgetsForPod = (pod: Pod): Array<{ namespace: string; name: string }> =>
    pdbInformer.store
      .byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? '')
      .filter((pdb) => matches(pdb, pod))
      .map((pdb) => ({ namespace: pdb.metadata?.namespace ?? '', name: pdb.metadata?.name ?? '' }));

  return manager
    .controller()
    .named(options.name ?? 'disruption')
    .for<PodDisruptionBudget>(PodDisruptionBudgets)
    .watches<Pod>(Pods, budgetsForPod)
    .withOptions({ maxConcurrentReconciles: options.workers ?? 5 })
    .complete(reconcile);
}
