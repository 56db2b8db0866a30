/** Validation of pod specs (pkg/apis/core/validation) for Pods and pod templates. */
import {
  CauseType, errorBody, fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, isDNS1123Label, isDNS1123Subdomain, type StatusCause,
} from '@kplane/api';
import { compareQuantity, parseQuantity } from './quantity.js';
import { asObj, objs, semanticEqual, str, type Obj } from './util.js';

/** IsValidPortNum's message. */
export const PORT_RANGE_MSG = 'must be between 1 and 65535, inclusive';

/** Kubernetes' IsValidPortName: an IANA_SVC_NAME. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** Is n a valid port number (1-65535)? */
export function isValidPortNum(n: unknown): boolean {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535;
}

const ENV_NAME_MSG =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

function validatePorts(ports: Obj[], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const ip = `${path}[${i}]`;
    const name = str(p.name);
    if (name) {
      for (const m of isValidPortName(name)) out.push(fieldInvalid(`${ip}.name`, name, m));
      if (names.has(name)) out.push(fieldDuplicate(`${ip}.name`, name));
      names.add(name);
    }
    if (p.containerPort === undefined || p.containerPort === 0) out.push(fieldRequired(`${ip}.containerPort`));
    else if (!isValidPortNum(p.containerPort)) out.push(fieldInvalid(`${ip}.containerPort`, p.containerPort, PORT_RANGE_MSG));
    if (p.hostPort !== undefined && p.hostPort !== 0 && !isValidPortNum(p.hostPort)) out.push(fieldInvalid(`${ip}.hostPort`, p.hostPort, PORT_RANGE_MSG));
    if (!p.protocol) out.push(fieldRequired(`${ip}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(str(p.protocol))) out.push(fieldNotSupported(`${ip}.protocol`, p.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return out;
}

function validateResources(res: Obj | undefined, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const limits = asObj(res?.limits) ?? {};
  const requests = asObj(res?.requests) ?? {};
  for (const [name, q] of Object.entries(requests)) {
    if (limits[name] === undefined) continue;
    const r = parseQuantity(q);
    const l = parseQuantity(limits[name]);
    if (!Number.isNaN(r) && !Number.isNaN(l) && compareQuantity(r, l) > 0) {
      out.push(fieldInvalid(`${path}.requests`, String(q), `must be less than or equal to ${name} limit of ${String(limits[name])}`));
    }
  }
  return out;
}

function validateContainer(c: Obj, path: string, volumes: Set<string>): StatusCause[] {
  const out: StatusCause[] = [];
  const name = str(c.name);
  if (!name) out.push(fieldRequired(`${path}.name`));
  else for (const m of isDNS1123Label(name)) out.push(fieldInvalid(`${path}.name`, name, m));
  if (!str(c.image)) out.push(fieldRequired(`${path}.image`));
  const tmp = str(c.terminationMessagePolicy);
  if (!tmp) out.push(fieldRequired(`${path}.terminationMessagePolicy`));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') out.push(fieldNotSupported(`${path}.terminationMessagePolicy`, tmp, ['File', 'FallbackToLogsOnError']));
  out.push(...validatePorts(objs(c.ports), `${path}.ports`));
  objs(c.env).forEach((e, i) => {
    const en = str(e.name);
    if (!en) out.push(fieldRequired(`${path}.env[${i}].name`));
    else if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(en)) out.push(fieldInvalid(`${path}.env[${i}].name`, en, ENV_NAME_MSG));
  });
  const mountPaths = new Set<string>();
  objs(c.volumeMounts).forEach((m, i) => {
    const mp = `${path}.volumeMounts[${i}]`;
    const mn = str(m.name);
    if (!mn) out.push(fieldRequired(`${mp}.name`));
    else if (!volumes.has(mn)) out.push({ reason: CauseType.NotFound, field: `${mp}.name`, message: errorBody(CauseType.NotFound, mn, '') });
    const mountPath = str(m.mountPath);
    if (!mountPath) out.push(fieldRequired(`${mp}.mountPath`));
    else if (mountPaths.has(mountPath)) out.push(fieldInvalid(`${mp}.mountPath`, mountPath, 'must be unique'));
    mountPaths.add(mountPath);
  });
  out.push(...validateResources(asObj(c.resources), `${path}.resources`));
  const policy = str(c.imagePullPolicy);
  if (!policy) out.push(fieldRequired(`${path}.imagePullPolicy`));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(policy)) out.push(fieldNotSupported(`${path}.imagePullPolicy`, policy, ['Always', 'IfNotPresent', 'Never']));
  return out;
}

function validateTolerations(tolerations: Obj[], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  tolerations.forEach((t, i) => {
    const p = `${path}[${i}]`;
    const op = str(t.operator);
    if (!t.key && op !== 'Exists') {
      out.push(fieldInvalid(`${p}.operator`, op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      out.push(fieldInvalid(`${p}.effect`, str(t.effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (op === 'Exists' && str(t.value) !== '') out.push(fieldInvalid(`${p}.operator`, str(t.value), "value must be empty when `operator` is 'Exists'"));
    else if (op !== '' && op !== 'Equal' && op !== 'Exists') out.push(fieldNotSupported(`${p}.operator`, op, ['Equal', 'Exists']));
    const effect = str(t.effect);
    if (effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) {
      out.push(fieldNotSupported(`${p}.effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return out;
}

/** Validates a PodSpec found at `path` ("spec" for pods, "spec.template.spec" for templates). */
export function validatePodSpec(spec: Obj | undefined, path: string): StatusCause[] {
  const s = spec ?? {};
  const out: StatusCause[] = [];
  const volumes = new Set<string>();
  objs(s.volumes).forEach((v, i) => {
    const name = str(v.name);
    const vp = `${path}.volumes[${i}].name`;
    if (!name) out.push(fieldRequired(vp));
    else {
      for (const m of isDNS1123Label(name)) out.push(fieldInvalid(vp, name, m));
      if (volumes.has(name)) out.push(fieldDuplicate(vp, name));
    }
    volumes.add(name);
  });
  const containers = objs(s.containers);
  const names = new Set<string>();
  if (containers.length === 0) out.push(fieldRequired(`${path}.containers`));
  containers.forEach((c, i) => {
    const cp = `${path}.containers[${i}]`;
    out.push(...validateContainer(c, cp, volumes));
    const name = str(c.name);
    if (name && names.has(name)) out.push(fieldDuplicate(`${cp}.name`, name));
    names.add(name);
  });
  objs(s.initContainers).forEach((c, i) => {
    const cp = `${path}.initContainers[${i}]`;
    out.push(...validateContainer(c, cp, volumes));
    const name = str(c.name);
    if (name && names.has(name)) out.push(fieldDuplicate(`${cp}.name`, name));
    names.add(name);
  });
  const restart = str(s.restartPolicy);
  if (!restart) out.push(fieldRequired(`${path}.restartPolicy`));
  else if (!['Always', 'OnFailure', 'Never'].includes(restart)) out.push(fieldNotSupported(`${path}.restartPolicy`, restart, ['Always', 'OnFailure', 'Never']));
  const dns = str(s.dnsPolicy);
  if (!dns) out.push(fieldRequired(`${path}.dnsPolicy`));
  else if (!['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'].includes(dns)) {
    out.push(fieldNotSupported(`${path}.dnsPolicy`, dns, ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None']));
  }
  const sa = str(s.serviceAccountName);
  if (sa) for (const m of isDNS1123Subdomain(sa)) out.push(fieldInvalid(`${path}.serviceAccountName`, sa, m));
  const node = str(s.nodeName);
  if (node) for (const m of isDNS1123Subdomain(node)) out.push(fieldInvalid(`${path}.nodeName`, node, m));
  if (s.activeDeadlineSeconds !== undefined && s.activeDeadlineSeconds !== null) {
    const v = s.activeDeadlineSeconds;
    if (typeof v !== 'number' || v < 1 || v > 2147483647) out.push(fieldInvalid(`${path}.activeDeadlineSeconds`, v, 'must be between 1 and 2147483647, inclusive'));
  }
  out.push(...validateTolerations(objs(s.tolerations), `${path}.tolerations`));
  return out;
}

/** The fields `kubectl` may change on an existing pod, as kube-apiserver lists them. */
const POD_UPDATE_MSG =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Validates a pod update: only images, activeDeadlineSeconds, added tolerations and a few more may change. */
export function validatePodSpecUpdate(spec: Obj | undefined, old: Obj | undefined): StatusCause[] {
  // Most pod updates (status, labels, binding) leave the spec as it was: nothing to check.
  if (semanticEqual(spec ?? {}, old ?? {})) return [];
  const n = structuredClone(spec ?? {});
  const o = old ?? {};
  const out: StatusCause[] = [];
  for (const key of ['containers', 'initContainers']) {
    const nc = objs(n[key]);
    const oc = objs(o[key]);
    if (nc.length === oc.length) nc.forEach((c, i) => (c.image = oc[i]!.image));
  }
  const oldDeadline = o.activeDeadlineSeconds;
  const newDeadline = n.activeDeadlineSeconds;
  if (typeof newDeadline === 'number' && (oldDeadline === undefined || (typeof oldDeadline === 'number' && newDeadline <= oldDeadline))) {
    n.activeDeadlineSeconds = oldDeadline;
  }
  if (typeof oldDeadline === 'number' && newDeadline === undefined) {
    out.push(fieldInvalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
    n.activeDeadlineSeconds = oldDeadline;
  }
  const oldTolerations = objs(o.tolerations);
  const newTolerations = objs(n.tolerations);
  if (oldTolerations.every((t) => newTolerations.some((x) => semanticEqual(x, t)))) n.tolerations = o.tolerations;
  if (typeof o.terminationGracePeriodSeconds === 'number' && o.terminationGracePeriodSeconds < 0 && n.terminationGracePeriodSeconds === 1) {
    n.terminationGracePeriodSeconds = o.terminationGracePeriodSeconds;
  }
  if (!semanticEqual(n, o)) out.push(fieldForbidden('spec', POD_UPDATE_MSG));
  return out;
}
