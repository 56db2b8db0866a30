/**
 * certificates.k8s.io/v1 certificatesigningrequests, with the status and approval
 * subresources, validated as kube-apiserver's CSR strategy and validation do.
 */
import { forbidden, fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, isDNS1123Label, isDNS1123Subdomain, nameIsPathSegment, type KubeObject, type StatusCause } from '@kplane/api';
import { IN_PROCESS_ADMIN } from '../auth/identity.js';
import type { ResourceType, WriteRequest } from '../registry/resource.js';
import { rfc3339 } from '../registry/store.js';
import { humanDuration, translateTimestampSince } from './age.js';
import { checkCsrSignature, certificateError, parseCsrPem } from './csr-request.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, invalidRendered, objs, semanticEqual, str, type Obj } from './util.js';

/** The group of certificate signing requests. */
export const CERTIFICATES_GROUP = 'certificates.k8s.io';

/** Every key usage Kubernetes accepts in spec.usages (sorted, as Go's sets list them). */
export const KEY_USAGES = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];

const TRUE_ONLY = new Set(['Approved', 'Denied', 'Failed']);

function specOf(obj: KubeObject): Obj {
  return (asObj(obj.spec) ?? {}) as Obj;
}

function conditionsOf(obj: KubeObject): Obj[] {
  return objs(asObj(obj.status)?.conditions);
}

/** The PEM text of a base64 field (spec.request, status.certificate). */
function decodeBytes(v: unknown): string {
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('latin1') : '';
}

/** Go's %#v of a []byte, as a field error prints spec.request. */
function goBytes(text: string): string {
  return `[]byte{${[...Buffer.from(text, 'latin1')].map((b) => `0x${b.toString(16)}`).join(', ')}}`;
}

/** ValidateSignerName: "domain/path", the domain a DNS name of two or more labels. */
export function validateSignerName(path: string, signerName: string): StatusCause[] {
  if (!signerName) return [fieldRequired(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fieldInvalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = segments as [string, string];
  const out: StatusCause[] = [];
  if (domain.length > 253) out.push(fieldTooLong(path, 253));
  const labels = domain.split('.');
  for (const label of labels) {
    const errs = isDNS1123Label(label);
    if (errs.length) {
      for (const e of errs) out.push(fieldInvalid(path, domain, `validating label ${JSON.stringify(label)}: ${e}`));
      break;
    }
  }
  if (labels.length < 2) out.push(fieldInvalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  const maxPath = 253 - domain.length - 1;
  if (rest.length > maxPath) out.push(fieldTooLong(path, maxPath));
  for (const e of isDNS1123Subdomain(rest)) out.push(fieldInvalid(path, rest, `validating path: ${e}`));
  return out;
}

function validateConditions(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const out: StatusCause[] = [];
  const oldConds = old ? conditionsOf(old) : [];
  const oldTypes = oldConds.map((c) => str(c.type));
  // Problems already stored are tolerated (compatibility with existing data, as kube does).
  const allowBoth = oldTypes.includes('Approved') && oldTypes.includes('Denied');
  const allowDuplicates = new Set(oldTypes).size !== oldTypes.length;
  const allowEmpty = oldTypes.includes('');
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(obj).forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type = str(c.type);
    const status = str(c.status);
    if (!allowEmpty && !type) out.push(fieldRequired(`${p}.type`));
    const allowed = TRUE_ONLY.has(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!status) out.push(fieldRequired(`${p}.status`));
    else if (!allowed.includes(status)) out.push(fieldNotSupported(`${p}.status`, status, allowed));
    if (!allowBoth) {
      if (type === 'Approved') {
        approved = true;
        if (denied) out.push(fieldInvalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) out.push(fieldInvalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!allowDuplicates && seen.has(type)) out.push(fieldDuplicate(`${p}.type`, type));
    seen.add(type);
  });
  return out;
}

/** validateCertificateSigningRequest (kube's options derived from the stored object). */
function validateCsrObject(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = specOf(obj);
  const oldSpec = old ? specOf(old) : undefined;
  const out: StatusCause[] = [];
  const request = decodeBytes(spec.request);
  try {
    checkCsrSignature(parseCsrPem(request));
  } catch (err) {
    out.push(invalidRendered('spec.request', goBytes(request), (err as Error).message));
  }
  const usages = Array.isArray(spec.usages) ? (spec.usages as unknown[]).map(str) : [];
  const oldUsages = oldSpec && Array.isArray(oldSpec.usages) ? (oldSpec.usages as unknown[]).map(str) : [];
  if (usages.length === 0) out.push(fieldRequired('spec.usages'));
  if (!oldUsages.some((u) => !KEY_USAGES.includes(u))) {
    usages.forEach((u, i) => {
      if (!KEY_USAGES.includes(u)) out.push(fieldNotSupported(`spec.usages[${i}]`, u, KEY_USAGES));
    });
  }
  if (new Set(oldUsages).size === oldUsages.length) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) out.push(fieldDuplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    });
  }
  const signerName = str(spec.signerName);
  if (signerName === 'kubernetes.io/legacy-unknown' && str(oldSpec?.signerName) !== signerName) {
    out.push(fieldInvalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else if (signerName !== 'kubernetes.io/legacy-unknown') out.push(...validateSignerName('spec.signerName', signerName));
  const exp = spec.expirationSeconds;
  if (typeof exp === 'number' && exp < 600) out.push(fieldInvalid('spec.expirationSeconds', exp, 'may not specify a duration less than 600 seconds (10 minutes)'));
  out.push(...validateConditions(obj, old));
  const cert = decodeBytes(asObj(obj.status)?.certificate);
  const oldCert = old ? decodeBytes(asObj(old.status)?.certificate) : '';
  const arbitrary = old !== undefined && (cert === oldCert || certificateError(oldCert) !== undefined);
  if (!arbitrary) {
    const err = certificateError(cert);
    if (err) out.push(invalidRendered('status.certificate', '"<certificate data>"', err));
  }
  return out;
}

function conditionsOfType(obj: KubeObject, type: string): Obj[] {
  return conditionsOf(obj).filter((c) => str(c.type) === type);
}

/** validateCertificateSigningRequestUpdate: what each path may change of the status. */
function validateCsrUpdate(obj: KubeObject, old: KubeObject, subresource: string): StatusCause[] {
  const out = validateCsrObject(obj, old);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOfType(obj, t).length < conditionsOfType(old, t).length) out.push(fieldForbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
  }
  if (subresource !== 'approval') {
    for (const t of ['Approved', 'Denied']) {
      const before = conditionsOfType(old, t);
      const after = conditionsOfType(obj, t);
      if (after.length > before.length) out.push(fieldForbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(t)}`));
      else if (after.length === before.length && !semanticEqual(before, after)) out.push(fieldForbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(t)}`));
    }
  }
  const cert = decodeBytes(asObj(obj.status)?.certificate);
  const oldCert = decodeBytes(asObj(old.status)?.certificate);
  if (cert !== oldCert) {
    if (subresource !== 'status') out.push(fieldForbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert.length > 0) out.push(fieldForbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return out;
}

/** PrepareForCreate: spec.username/uid/groups/extra from the requester, never from the body. */
function admitCreate(obj: KubeObject, req: WriteRequest): void {
  const spec = specOf(obj);
  obj.spec = spec;
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  // Trusted in-process code (no user) asks as the API server's own loopback identity.
  const user = req.user ?? IN_PROCESS_ADMIN;
  if (user.username) spec.username = user.username;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length) spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) spec.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  delete obj.status;
}

/**
 * kube-apiserver's CertificateSubjectRestriction admission: no client certificate for the
 * group system:masters through the kube-apiserver-client signer (403).
 */
function restrictSubject(obj: KubeObject): void {
  const spec = specOf(obj);
  if (str(spec.signerName) !== 'kubernetes.io/kube-apiserver-client') return;
  let organizations: string[];
  try {
    organizations = parseCsrPem(decodeBytes(spec.request)).organizations;
  } catch {
    return; // validation has refused it already
  }
  if (organizations.includes('system:masters')) {
    throw forbidden(CERTIFICATES_GROUP, 'certificatesigningrequests', obj.metadata?.name ?? '', 'use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
  }
}

/**
 * kube-apiserver's CertificateApproval / CertificateSigning admission: the requester needs the
 * verb (approve, sign) on `signers` of certificates.k8s.io, named by the signerName or by its
 * `domain/*` wildcard.
 */
function checkSigner(obj: KubeObject, req: WriteRequest, verb: 'approve' | 'sign'): void {
  if (!req.authorizer || !req.user) return;
  const signerName = str(specOf(obj).signerName);
  const attrs = { user: req.user, verb, resourceRequest: true, apiGroup: CERTIFICATES_GROUP, apiVersion: '*', resource: 'signers' };
  if (req.authorizer.authorize({ ...attrs, name: signerName }).allowed) return;
  const slash = signerName.indexOf('/');
  if (slash > 0 && req.authorizer.authorize({ ...attrs, name: `${signerName.slice(0, slash)}/*` }).allowed) return;
  throw forbidden(CERTIFICATES_GROUP, 'certificatesigningrequests', obj.metadata?.name ?? '', `user not permitted to ${verb} requests with signerName ${JSON.stringify(signerName)}`);
}

/** Fills lastUpdateTime and lastTransitionTime left empty (kept from an old condition of the same type and status). */
function populateConditionTimestamps(obj: KubeObject, old: KubeObject, now: Date): void {
  const stamp = rfc3339(now);
  for (const c of conditionsOf(obj)) {
    if (!c.lastUpdateTime) c.lastUpdateTime = stamp;
    if (!c.lastTransitionTime) {
      const same = conditionsOf(old).find((o) => str(o.type) === str(c.type) && str(o.status) === str(c.status) && o.lastTransitionTime);
      c.lastTransitionTime = same ? same.lastTransitionTime : stamp;
    }
  }
}

/**
 * The update rules of each path: the object itself changes only metadata; /status changes the
 * status but keeps the Approved and Denied conditions as stored; /approval changes only the
 * conditions.
 */
function admitUpdate(obj: KubeObject, old: KubeObject, req: WriteRequest): void {
  obj.spec = structuredClone(old.spec);
  const oldStatus = (asObj(old.status) ?? {}) as Obj;
  if (req.subresource === 'approval') checkSigner(old, req, 'approve');
  if (req.subresource === 'status') {
    const before = (asObj(old.status) ?? {}) as Obj;
    const after = (asObj(obj.status) ?? {}) as Obj;
    if (str(before.certificate) !== str(after.certificate) || !semanticEqual(before.conditions ?? [], after.conditions ?? [])) checkSigner(old, req, 'sign');
    const status = (asObj(obj.status) ?? {}) as Obj;
    const conds = objs(status.conditions);
    for (const t of ['Approved', 'Denied']) {
      const before = conditionsOfType(old, t);
      const idx = conds.map((c, i) => (str(c.type) === t ? i : -1)).filter((i) => i >= 0);
      if (idx.length === before.length) idx.forEach((at, i) => (conds[at] = structuredClone(before[i]!)));
    }
    if (Array.isArray(status.conditions)) status.conditions = conds;
    populateConditionTimestamps(obj, old, req.now);
  } else if (req.subresource === 'approval') {
    const conditions = asObj(obj.status)?.conditions;
    const status: Obj = structuredClone(oldStatus);
    if (conditions === undefined) delete status.conditions;
    else status.conditions = conditions;
    obj.status = status;
    populateConditionTimestamps(obj, old, req.now);
  } else if (old.status !== undefined) obj.status = structuredClone(old.status);
  else delete obj.status;
  if (obj.status !== undefined && Object.keys(obj.status as object).length === 0 && old.status === undefined) delete obj.status;
}

/** The Condition column: Approved/Denied/Pending, then Failed and Issued (kubectl's extractCSRStatus). */
export function csrCondition(obj: KubeObject): string {
  const types = new Set(conditionsOf(obj).map((c) => str(c.type)));
  let s = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) s += ',Failed';
  if (str(asObj(obj.status)?.certificate)) s += ',Issued';
  return s;
}

/** The certificatesigningrequests resource (cluster-scoped; status and approval subresources). */
export function certificateSigningRequestResource(): ResourceType {
  return {
    group: CERTIFICATES_GROUP,
    version: 'v1',
    resource: 'certificatesigningrequests',
    kind: 'CertificateSigningRequest',
    listKind: 'CertificateSigningRequestList',
    singular: 'certificatesigningrequest',
    shortNames: ['csr'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    subresources: { status: true, extra: ['approval'] },
    storagePrefix: '/registry/certificatesigningrequests',
    schemaName: 'io.k8s.api.certificates.v1.CertificateSigningRequest',
    strategy: {
      generation: false,
      nameValidator: nameIsPathSegment,
      admitCreate,
      prepareForCreate: restrictSubject,
      admitUpdate,
      validate: (obj, old, _warnings, req) => (old ? validateCsrUpdate(obj, old, req?.subresource ?? '') : validateCsrObject(obj, undefined)),
      fieldSelectors: { 'spec.signerName': (o) => str(specOf(o).signerName) },
      table: {
        columns: [
          NAME_COLUMN,
          AGE_COLUMN,
          { name: 'SignerName', type: 'string', description: 'signerName indicates the requested signer, and is a qualified name.', priority: 0 },
          { name: 'Requestor', type: 'string', description: 'request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block.', priority: 0 },
          { name: 'RequestedDuration', type: 'string', description: 'expirationSeconds is the requested duration of validity of the issued certificate.', priority: 0 },
          { name: 'Condition', type: 'string', description: 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".', priority: 0 },
        ],
        row(obj, now) {
          const spec = specOf(obj);
          const exp = spec.expirationSeconds;
          return [
            obj.metadata?.name ?? '',
            translateTimestampSince(obj.metadata?.creationTimestamp, now),
            str(spec.signerName) || '<none>',
            str(spec.username),
            typeof exp === 'number' ? humanDuration(exp * 1000) : '<none>',
            csrCondition(obj),
          ];
        },
      },
    },
  };
}
