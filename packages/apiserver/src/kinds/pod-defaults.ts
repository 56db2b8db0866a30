/**
 * Defaulting of pod specs (pkg/apis/core/v1/defaults.go) shared by Pods and pod templates, plus
 * what kube-apiserver's admission adds to new pods (ServiceAccount, Priority,
 * DefaultTolerationSeconds) and the QoS class computed on create.
 */
import { hasOwn, setOwn } from '@kplane/api';
import { compareQuantity, parseQuantity } from './quantity.js';
import { asObj, child, objs, setDefault, str, type Obj } from './util.js';

/** imagePullPolicy default: Always for ":latest" or no tag (and no digest), else IfNotPresent. */
export function defaultPullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const colon = image.indexOf(':', lastSlash + 1);
  const tag = colon < 0 ? '' : image.slice(colon + 1);
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: unknown): void {
  const probe = asObj(p);
  if (!probe) return;
  setDefault(probe, 'timeoutSeconds', 1);
  setDefault(probe, 'periodSeconds', 10);
  setDefault(probe, 'successThreshold', 1);
  setDefault(probe, 'failureThreshold', 3);
  defaultHandler(probe);
}

function defaultHandler(h: unknown): void {
  const handler = asObj(h);
  const get = asObj(handler?.httpGet);
  if (get) {
    setDefault(get, 'path', '/');
    setDefault(get, 'scheme', 'HTTP');
  }
}

function defaultContainer(c: Obj, hostNetwork: boolean): void {
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  if (!c.imagePullPolicy) c.imagePullPolicy = defaultPullPolicy(str(c.image));
  setDefault(c, 'resources', {});
  for (const p of objs(c.ports)) {
    if (!p.protocol) p.protocol = 'TCP';
    if (hostNetwork && (p.hostPort === undefined || p.hostPort === 0)) p.hostPort = p.containerPort;
  }
  for (const e of objs(c.env)) {
    const fieldRef = asObj(asObj(e.valueFrom)?.fieldRef);
    if (fieldRef && !fieldRef.apiVersion) fieldRef.apiVersion = 'v1';
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  const lifecycle = asObj(c.lifecycle);
  if (lifecycle) {
    defaultHandler(lifecycle.postStart);
    defaultHandler(lifecycle.preStop);
  }
}

const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi',
  'ephemeral', 'image',
];

function defaultVolume(v: Obj): void {
  if (!VOLUME_SOURCES.some((k) => v[k] !== undefined && v[k] !== null)) v.emptyDir = {};
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const src = asObj(v[k]);
    if (src) setDefault(src, 'defaultMode', 420);
  }
}

/** Applies the defaults of a PodSpec (also used for pod templates). */
export function defaultPodSpec(spec: Obj): void {
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'securityContext', {});
  const hostNetwork = spec.hostNetwork === true;
  for (const c of [...objs(spec.initContainers), ...objs(spec.containers)]) defaultContainer(c, hostNetwork);
  for (const v of objs(spec.volumes)) defaultVolume(v);
}

/** Pod-only defaults (SetDefaults_Pod): service links, and requests copied from limits. */
export function defaultPod(pod: Obj): void {
  const spec = child(pod, 'spec');
  defaultPodSpec(spec);
  setDefault(spec, 'enableServiceLinks', true);
  for (const c of [...objs(spec.initContainers), ...objs(spec.containers)]) {
    const res = asObj(c.resources);
    const limits = asObj(res?.limits);
    if (!res || !limits || Object.keys(limits).length === 0) continue;
    const requests = child(res, 'requests');
    for (const [k, v] of Object.entries(limits)) if (!hasOwn(requests, k) || requests[k] === undefined) setOwn(requests, k, v);
  }
}

/** The QoS class of a pod spec, as kube-apiserver's GetPodQOS computes it. */
export function podQOSClass(spec: Obj): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const supported = (name: string) => name === 'cpu' || name === 'memory';
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  for (const c of [...objs(spec.containers), ...objs(spec.initContainers)]) {
    const res = asObj(c.resources) ?? {};
    for (const [name, q] of Object.entries(asObj(res.requests) ?? {})) {
      const v = parseQuantity(q);
      if (supported(name) && v > 0) requests.set(name, (requests.get(name) ?? 0) + v);
    }
    const found = new Set<string>();
    for (const [name, q] of Object.entries(asObj(res.limits) ?? {})) {
      const v = parseQuantity(q);
      if (supported(name) && v > 0) {
        found.add(name);
        limits.set(name, (limits.get(name) ?? 0) + v);
      }
    }
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (lim === undefined || compareQuantity(lim, req) !== 0) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

function tolerates(tolerations: Obj[], key: string): boolean {
  return tolerations.some((t) => {
    const effectOk = !t.effect || t.effect === 'NoExecute';
    const keyOk = t.key === key || (!t.key && t.operator === 'Exists');
    return effectOk && keyOk;
  });
}

/**
 * What kube-apiserver's admission plugins add to a new pod: the "default" service account,
 * priority 0 with PreemptLowerPriority, and 300s tolerations of not-ready and unreachable nodes.
 */
export function admitNewPod(pod: Obj): void {
  const spec = child(pod, 'spec');
  const sa = str(spec.serviceAccountName) || str(spec.serviceAccount) || 'default';
  spec.serviceAccountName = sa;
  spec.serviceAccount = sa;
  if (spec.priority === undefined && !spec.priorityClassName) spec.priority = 0;
  setDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
  addDefaultTolerations(spec);
}

/** DefaultTolerationSeconds admission (create and update): tolerate not-ready and unreachable nodes for 300s. */
function addDefaultTolerations(spec: Obj): void {
  const tolerations = objs(spec.tolerations);
  const added: Obj[] = [];
  for (const key of [NOT_READY, UNREACHABLE]) {
    if (!tolerates(tolerations, key)) added.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
  if (added.length) spec.tolerations = [...(Array.isArray(spec.tolerations) ? spec.tolerations : []), ...added];
}

/**
 * What kube-apiserver's admission does to an updated pod: the priority and preemption policy
 * given at create stay when the update leaves them out (Priority admission), the not-ready and
 * unreachable tolerations are added again (DefaultTolerationSeconds), and the service account is
 * read from either of its two fields (serviceAccount is the deprecated spelling of
 * serviceAccountName; both are written). The service account itself is never defaulted on update.
 */
export function admitPodUpdate(pod: Obj, old: Obj): void {
  const spec = child(pod, 'spec');
  const oldSpec = asObj(old.spec) ?? {};
  if (spec.priority === undefined && oldSpec.priority !== undefined) spec.priority = oldSpec.priority;
  if (spec.preemptionPolicy === undefined && oldSpec.preemptionPolicy !== undefined) spec.preemptionPolicy = oldSpec.preemptionPolicy;
  const sa = str(spec.serviceAccountName) || str(spec.serviceAccount);
  if (sa) {
    spec.serviceAccountName = sa;
    spec.serviceAccount = sa;
  }
  addDefaultTolerations(spec);
}

/** The status a new pod starts with: Pending, its QoS class, and SchedulingGated when gated. */
export function initialPodStatus(pod: Obj): Obj {
  const spec = child(pod, 'spec');
  const status: Obj = { phase: 'Pending', qosClass: podQOSClass(spec) };
  if (objs(spec.schedulingGates).length > 0) {
    status.conditions = [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
  }
  return status;
}
