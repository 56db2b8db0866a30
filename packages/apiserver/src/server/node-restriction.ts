/**
 * kube-apiserver's NodeRestriction admission: what a node identity (`system:node:NAME` in
 * `system:nodes`) may write, once authorized. Its own Node (and, at registration, only labels a
 * kubelet may set), its own Lease in kube-node-lease, the status and eviction of pods bound to
 * it, deleting them, mirror pods bound to it, tokens bound to its pods; PVCs through status
 * only. Refusals are kube's 403 messages.
 */
import { ApiError, decodeBody, forbidden, nodeIdentity, type KubeObject, type RawRequest } from '@kplane/api';
import type { AuthorizationAttributes } from '../auth/types.js';
import { podReferences, type NodeGraph } from '../auth/node/graph.js';
import type { Registry } from '../registry/registry.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';

/** Labels a kubelet may set on its Node (kube's kubelet label set), besides those of the kubelet.kubernetes.io and node.kubernetes.io namespaces. */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);

function labelNamespace(key: string): string {
  const i = key.indexOf('/');
  return i < 0 ? '' : key.slice(0, i);
}

const inDomain = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);

/** The labels of `labels` a node may not set itself (kube's getForbiddenLabels), sorted. */
export function forbiddenNodeLabels(labels: Record<string, string>): string[] {
  const out: string[] = [];
  for (const key of Object.keys(labels)) {
    const ns = labelNamespace(key);
    const restricted = inDomain(ns, 'node-restriction.kubernetes.io');
    const kubeLabel = inDomain(ns, 'kubernetes.io') || inDomain(ns, 'k8s.io');
    const kubeletLabel = KUBELET_LABELS.has(key) || inDomain(ns, 'kubelet.kubernetes.io') || inDomain(ns, 'node.kubernetes.io');
    if (restricted || (kubeLabel && !kubeletLabel)) out.push(key);
  }
  return out.sort();
}

/** The operations admission sees: create, update (update and patch) and delete. */
function operation(verb: string): 'CREATE' | 'UPDATE' | 'DELETE' | undefined {
  switch (verb) {
    case 'create':
      return 'CREATE';
    case 'update':
    case 'patch':
      return 'UPDATE';
    case 'delete':
    case 'deletecollection':
      return 'DELETE';
    default:
      return undefined;
  }
}

/**
 * Creates the NodeRestriction check: resolves when the request may go on, rejects with a 403
 * (or the 404 of a pod that does not exist) otherwise. Requests of other users, and reads, pass.
 */
export function createNodeRestriction(registry: Registry, graph?: NodeGraph): (req: RawRequest, attrs: AuthorizationAttributes) => Promise<void> {
  const body = (req: RawRequest): KubeObject => {
    try {
      return (obj(decodeBody(req.body ?? new Uint8Array(), req.headers?.['content-type'] ?? 'application/json')) ?? {}) as KubeObject;
    } catch {
      return {} as KubeObject; // the handler answers the bad body
    }
  };
  const getPod = async (namespace: string, name: string): Promise<KubeObject> => {
    const pods = registry.get('', 'v1', 'pods');
    if (!pods) throw new ApiError(404, 'NotFound', `pods "${name}" not found`);
    return pods.get(namespace, name);
  };
  const nodeNameOf = (pod: KubeObject) => String(obj(pod.spec)?.nodeName ?? '');
  /** The node of an existing pod: from the graph's cache (as kube's admission reads a lister), else from storage. */
  const podNode = async (namespace: string, name: string): Promise<string> => graph?.nodeOf(namespace, name) ?? nodeNameOf(await getPod(namespace, name));

  return async (req, attrs) => {
    const node = nodeIdentity(attrs.user);
    const op = operation(attrs.verb);
    if (node === undefined || op === undefined || !attrs.resourceRequest) return;
    const group = attrs.apiGroup ?? '';
    const resource = attrs.resource ?? '';
    const sub = attrs.subresource ?? '';
    const ns = attrs.namespace ?? '';
    let name = attrs.name ?? '';
    let created: KubeObject | undefined;
    if (op === 'CREATE' && !sub) {
      created = body(req);
      name ||= created.metadata?.name ?? '';
    }
    const refuse = (message: string): never => {
      throw forbidden(group, resource, name, message);
    };
    if (node === '') refuse(`could not determine node from user "${attrs.user.username}"`);

    if (group === '' && resource === 'pods') {
      if (sub === '') {
        if (op === 'CREATE') return admitMirrorPod(node, created!, refuse);
        if (op === 'DELETE') {
          if ((await podNode(ns, name)) !== node) refuse(`node "${node}" can only delete pods with spec.nodeName set to itself`);
          return;
        }
        refuse(`unexpected operation "${op}", node "${node}" can only create and delete mirror pods`);
      }
      if (sub === 'status') {
        if (op !== 'UPDATE') refuse(`unexpected operation "${op}"`);
        if ((await podNode(ns, name)) !== node) refuse(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
        return;
      }
      if (sub === 'eviction') {
        if (op !== 'CREATE') refuse(`unexpected operation ${op}`);
        if ((await podNode(ns, name)) !== node) refuse(`node ${node} can only evict pods with spec.nodeName set to itself`);
        return;
      }
      refuse(`unexpected pod subresource "${sub}", only 'status' and 'eviction' are allowed`);
    }
    if (group === '' && resource === 'nodes') {
      if (name !== node) refuse(`node "${node}" is not allowed to modify node "${name}"`);
      if (op === 'CREATE') {
        const labels = (obj(created?.metadata?.labels) ?? {}) as Record<string, string>;
        const bad = forbiddenNodeLabels(labels);
        if (bad.length) refuse(`node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`);
      }
      return;
    }
    if (group === '' && resource === 'persistentvolumeclaims') {
      if (sub !== 'status') refuse('may only update PVC status');
      return;
    }
    if (group === '' && resource === 'serviceaccounts') {
      if (op !== 'CREATE' || sub !== 'token') return;
      const ref = obj(obj(body(req).spec)?.boundObjectRef);
      if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) refuse('node requested token not bound to a pod');
      if (!ref!.uid) refuse('node requested token with a pod binding without a uid');
      const pod = await getPod(ns, String(ref!.name));
      if (pod.metadata?.uid !== ref!.uid) refuse(`the UID in the bound object reference (${String(ref!.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
      if (nodeNameOf(pod) !== node) refuse('node requested token bound to a pod scheduled on a different node');
      return;
    }
    if (group === 'coordination.k8s.io' && resource === 'leases') {
      if (ns !== 'kube-node-lease') refuse('can only access leases in the "kube-node-lease" system namespace');
      if (name !== node) refuse('can only access node lease with the same name as the requesting node');
      return;
    }
    if (group === 'storage.k8s.io' && resource === 'csinodes') {
      if (name !== node) refuse('can only access CSINode with the same name as the requesting node');
    }
  };
}

/** A node may create only mirror pods bound to itself, owned by its Node, referencing no other object. */
function admitMirrorPod(node: string, pod: KubeObject, refuse: (m: string) => never): void {
  const annotations = obj(pod.metadata?.annotations) ?? {};
  if (!Object.hasOwn(annotations, MIRROR_ANNOTATION)) refuse(`pod does not have "${MIRROR_ANNOTATION}" annotation, node "${node}" can only create mirror pods`);
  const spec = obj(pod.spec) ?? {};
  if (spec.nodeName !== node) refuse(`node "${node}" can only create pods with spec.nodeName set to itself`);
  const owners = Array.isArray(pod.metadata?.ownerReferences) ? pod.metadata!.ownerReferences! : [];
  if (owners.length > 1) refuse(`node "${node}" can only create pods with a single owner reference set to itself`);
  if (owners.length === 0) refuse(`node "${node}" can only create pods with an owner reference set to itself`);
  const owner = owners[0]!;
  if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) refuse(`node "${node}" can only create pods with an owner reference set to itself`);
  if (owner.controller !== true) refuse(`node "${node}" can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true) refuse(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
  if (spec.serviceAccountName) refuse(`node "${node}" can not create pods that reference a service account`);
  const refs = podReferences(pod);
  if (refs.some(([t]) => t === 'secret')) refuse(`node "${node}" can not create pods that reference secrets`);
  if (refs.some(([t]) => t === 'configmap')) refuse(`node "${node}" can not create pods that reference configmaps`);
  if (refs.some(([t]) => t === 'persistentvolumeclaim')) refuse(`node "${node}" can not create pods that reference persistentvolumeclaims`);
}
