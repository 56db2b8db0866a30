/**
 * POST /api/v1/namespaces/<ns>/pods/<name>/binding: assigns a pending pod to a node (what the
 * scheduler does), as kube-apiserver's BindingREST: spec.nodeName is set only if it was empty,
 * the Binding's annotations are merged into the pod's, and PodScheduled becomes True.
 */
import { badRequest, conflict, invalid, rfc3339, type KubeObject, type StatusCause, type UserInfo } from '@kplane/api';
import { admitBinding } from '../kinds/binding.js';
import type { Store } from '../registry/store.js';

type Obj = Record<string, unknown>;

const asObj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

/** podutil.UpdatePodCondition: replaces the condition of that type, keeping lastTransitionTime when the status is unchanged. */
export function setPodCondition(status: Obj, condition: Obj): void {
  const list = Array.isArray(status.conditions) ? (status.conditions as Obj[]) : [];
  const i = list.findIndex((c) => c?.type === condition.type);
  if (i >= 0 && list[i]!.status === condition.status) condition.lastTransitionTime = list[i]!.lastTransitionTime;
  if (i >= 0) list[i] = condition;
  else list.push(condition);
  status.conditions = list;
}

function validateBinding(binding: Obj): StatusCause[] {
  const target = asObj(binding.target) ?? {};
  const out: StatusCause[] = [];
  const kind = typeof target.kind === 'string' ? target.kind : '';
  if (kind !== '' && kind !== 'Node') {
    out.push({ reason: 'FieldValueNotSupported', field: 'target.kind', message: `Unsupported value: "${kind}": supported values: "Node", "<empty>"` });
  }
  if (typeof target.name !== 'string' || target.name === '') out.push({ reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' });
  return out;
}

/**
 * Binds pod `name` in `namespace` to the Binding's target node. Throws ApiError: 400 for a
 * name mismatch, 422 for an invalid Binding, 404 for a missing pod, 409 when the pod is already
 * assigned, being deleted, gated, or fails the Binding's uid / resourceVersion preconditions.
 */
export async function bindPod(store: Store, namespace: string, name: string, body: unknown, now: () => Date, dryRun = false, user?: UserInfo): Promise<void> {
  const binding = asObj(body);
  if (!binding) throw badRequest('the body of the request must be a JSON object');
  if (binding.kind !== undefined && binding.kind !== 'Binding') {
    throw badRequest(`the kind in the data (${String(binding.kind)}) does not match the expected kind (Binding)`);
  }
  admitBinding(binding);
  const meta = asObj(binding.metadata) ?? {};
  if (meta.name !== name) throw badRequest('name in URL does not match name in Binding object');
  if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const causes = validateBinding(binding);
  if (causes.length) throw invalid('', 'Binding', name, causes);
  await store.admitSubresource('CREATE', 'binding', namespace, name, binding as KubeObject, { group: '', version: 'v1', kind: 'Binding' }, { dryRun, user });
  const node = String(asObj(binding.target)!.name);
  const annotations = asObj(meta.annotations) ?? {};
  // The generic update refuses spec changes on pods; a binding is the one write allowed to set
  // spec.nodeName, so it rewrites the stored pod after its own checks.
  await store.rewrite(
    namespace,
    name,
    (pod) => {
      const m = pod.metadata!;
      if (typeof meta.uid === 'string' && meta.uid !== '' && meta.uid !== m.uid) {
        throw conflict('', 'pods', name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${m.uid}`);
      }
      if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== m.resourceVersion) {
        throw conflict('', 'pods', name, `Precondition failed: ResourceVersion in precondition: ${meta.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion}`);
      }
      const spec = (asObj(pod.spec) ?? {}) as Obj;
      if (m.deletionTimestamp) throw conflict('', 'pods/binding', name, `pod ${name} is being deleted, cannot be assigned to a host`);
      if (typeof spec.nodeName === 'string' && spec.nodeName !== '') throw conflict('', 'pods/binding', name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
      if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) throw conflict('', 'pods/binding', name, `pod ${name} has non-empty .spec.schedulingGates`);
      spec.nodeName = node;
      pod.spec = spec;
      if (Object.keys(annotations).length) m.annotations = { ...m.annotations, ...(annotations as Record<string, string>) };
      const status = (asObj(pod.status) ?? {}) as Obj;
      setPodCondition(status, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(now()) });
      pod.status = status;
      return pod;
    },
    { dryRun },
  );
}
