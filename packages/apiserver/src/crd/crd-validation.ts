/**
 * Validation of CustomResourceDefinition objects with kube-apiserver's messages: names, group
 * (and the api-approved.kubernetes.io annotation for protected groups), scope, versions (exactly
 * one storage version), schemas (structural, keywords, defaults, CEL rules and their cost),
 * subresources, printer columns, selectable fields, conversion, stored versions, and on update
 * the fields that may not change.
 */
import type { KubeObject, SchemaObject, StatusCause } from '@kplane/api';
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooMany, isDNS1035Label, isDNS1123Subdomain } from '@kplane/api';
import { child, conditionTrue, crdSpec, hoistedLayout, key, type CRDSpec, type CRDVersion } from './crd-types.js';
import { validateCRDSchema } from './structural.js';
import { validateWebhookService } from '../webhookutil/validation.js';

const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
const PRINTER_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const MAX_SELECTABLE_FIELDS = 8;
const RENDER_VERSIONS = '[]apiextensions.CustomResourceDefinitionVersion{...}';

function rendered(field: string, value: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${detail}` };
}

/** Is the group reserved for the Kubernetes project (k8s.io, kubernetes.io)? */
export function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

type Approval = 'missing' | 'bypassed' | 'approved' | 'invalid';

function approvalState(annotations: Record<string, string> | undefined): [Approval, string] {
  const a = annotations?.[APPROVAL_ANNOTATION] ?? '';
  if (!a) return ['missing', `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`];
  if (a.startsWith('unapproved')) return ['bypassed', `not approved: "${a}"`];
  try {
    const u = new URL(a);
    if (u.host && u.protocol) return ['approved', `approved in ${a}`];
  } catch {
    /* invalid */
  }
  return ['invalid', `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`];
}

function validateApproval(obj: KubeObject, old: KubeObject | undefined, group: string): StatusCause[] {
  if (!isProtectedGroup(group)) return [];
  const [state, reason] = approvalState(obj.metadata?.annotations);
  if (old && approvalState(old.metadata?.annotations)[0] === state) return [];
  const path = key('metadata.annotations', APPROVAL_ANNOTATION);
  if (state === 'missing') return [fieldRequired(path, reason)];
  if (state === 'invalid') return [fieldInvalid(path, obj.metadata?.annotations?.[APPROVAL_ANNOTATION] ?? '', reason)];
  return [];
}

function label1035(path: string, v: string): StatusCause[] {
  const errs = isDNS1035Label(v);
  return errs.length ? [fieldInvalid(path, v, errs.join(','))] : [];
}

function validateNames(names: CRDSpec['names'], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (names.plural) out.push(...label1035(child(path, 'plural'), names.plural));
  if (names.singular) out.push(...label1035(child(path, 'singular'), names.singular));
  for (const [f, v] of [['kind', names.kind], ['listKind', names.listKind]] as const) {
    if (!v) continue;
    const errs = isDNS1035Label(v.toLowerCase());
    if (errs.length) out.push(fieldInvalid(child(path, f), v, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
  }
  (names.shortNames ?? []).forEach((s, i) => out.push(...label1035(key(child(path, 'shortNames'), i), s)));
  if (names.kind && names.kind === names.listKind) out.push(fieldInvalid(child(path, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((c, i) => out.push(...label1035(key(child(path, 'categories'), i), c)));
  return out;
}

function simpleJSONPath(s: string, path: string): StatusCause[] {
  if (s.length === 0) return [fieldInvalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [fieldInvalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(sub: CRDVersion['subresources'], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const scale = sub?.scale;
  if (!scale) return out;
  const check = (value: string | undefined, name: string, prefixes: string[], detail: string, required: boolean) => {
    const p = child(path, `scale.${name}`);
    if (!value) {
      if (required) out.push(fieldRequired(p, ''));
      return;
    }
    const errs = simpleJSONPath(value, p);
    if (errs.length) out.push(...errs);
    else if (!prefixes.some((x) => value.startsWith(x))) out.push(fieldInvalid(p, value, detail));
  };
  check(scale.specReplicasPath, 'specReplicasPath', ['.spec.'], 'should be a json path under .spec', true);
  check(scale.statusReplicasPath, 'statusReplicasPath', ['.status.'], 'should be a json path under .status', true);
  check(scale.labelSelectorPath, 'labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status', false);
  return out;
}

function validateColumns(cols: CRDVersion['additionalPrinterColumns'], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  (cols ?? []).forEach((c, i) => {
    const p = key(path, i);
    if (!c.name) out.push(fieldRequired(child(p, 'name'), ''));
    if (!c.type) out.push(fieldRequired(child(p, 'type'), `must be one of ${PRINTER_TYPES.join(',')}`));
    else if (!PRINTER_TYPES.includes(c.type)) out.push(fieldInvalid(child(p, 'type'), c.type, `must be one of ${PRINTER_TYPES.join(',')}`));
    if (c.format && !PRINTER_FORMATS.includes(c.format)) out.push(fieldInvalid(child(p, 'format'), c.format, `must be one of ${PRINTER_FORMATS.join(',')}`));
    if (!c.jsonPath) out.push(fieldRequired(child(p, 'JSONPath'), ''));
    else out.push(...simpleJSONPath(c.jsonPath, child(p, 'JSONPath')));
  });
  return out;
}

/** The schema a selectable field points at, or an error text. */
function selectableTarget(jsonPath: string, schema: SchemaObject): { path: string; schema?: SchemaObject; error?: string } {
  if (!/^(\.[^.[\]]+)+$/.test(jsonPath)) return { path: '', error: jsonPath.includes('[') ? 'array notation is not allowed' : 'does not refer to a valid field' };
  let s: SchemaObject | undefined = schema;
  const parts = jsonPath.slice(1).split('.');
  for (const part of parts) {
    if (s?.properties) s = s.properties[part];
    else if (s && typeof s.additionalProperties === 'object') s = s.additionalProperties;
    else s = undefined;
    if (!s) return { path: parts.join('.'), error: 'does not refer to a valid field' };
  }
  return { path: parts.join('.'), schema: s };
}

function validateSelectableFields(fields: CRDVersion['selectableFields'], schema: SchemaObject | undefined, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!fields?.length) return out;
  if (!schema) return [fieldInvalid(path, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included')];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const p = child(key(path, i), 'jsonPath');
    if (!f.jsonPath) {
      out.push(fieldRequired(p, ''));
      return;
    }
    const t = selectableTarget(f.jsonPath, schema);
    if (t.error) {
      out.push(fieldInvalid(p, f.jsonPath, `is an invalid path: ${t.error}`));
      return;
    }
    if (t.path.split('.')[0] === 'metadata') out.push(fieldInvalid(p, f.jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(t.schema?.type ?? '')) {
      out.push(fieldInvalid(p, f.jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(t.path)) out.push(fieldDuplicate(p, f.jsonPath));
    seen.add(t.path);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) out.push(fieldTooMany(path, seen.size, MAX_SELECTABLE_FIELDS));
  return out;
}

function validateWebhookURL(url: string, path: string): StatusCause[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch (e) {
    return [fieldInvalid(path, url, `url must be a valid URL: ${e instanceof Error ? e.message : String(e)}`)];
  }
  const out: StatusCause[] = [];
  if (u.protocol !== 'https:') out.push(fieldInvalid(path, url, `'https' is the only allowed URL scheme`));
  if (!u.host) out.push(fieldInvalid(path, url, 'host must be specified'));
  if (u.username || u.password) out.push(fieldInvalid(path, url, 'user information is not permitted in the URL'));
  if (u.hash) out.push(fieldInvalid(path, url, 'fragments are not permitted in the URL'));
  if (u.search) out.push(fieldInvalid(path, url, 'query parameters are not permitted in the URL'));
  return out;
}

function validateConversion(spec: CRDSpec, path: string): StatusCause[] {
  const c = spec.conversion;
  if (!c) return [];
  const out: StatusCause[] = [];
  if (!c.strategy) out.push(fieldRequired(child(path, 'strategy'), ''));
  else if (c.strategy !== 'None' && c.strategy !== 'Webhook') out.push(fieldNotSupported(child(path, 'strategy'), c.strategy, ['None', 'Webhook']));
  if (c.strategy === 'Webhook') {
    const cc = c.webhook?.clientConfig;
    if (!cc) out.push(fieldRequired(child(path, 'webhookClientConfig'), 'required when strategy is set to Webhook'));
    else if ((cc.url === undefined) === (cc.service === undefined)) out.push(fieldRequired(child(path, 'webhookClientConfig'), 'exactly one of url or service is required'));
    else if (cc.url !== undefined) out.push(...validateWebhookURL(cc.url, child(path, 'webhookClientConfig.url')));
    else out.push(...validateWebhookService(child(path, 'webhookClientConfig.service'), cc.service ?? {}));
    const versions = c.webhook?.conversionReviewVersions ?? [];
    const vp = child(path, 'conversionReviewVersions');
    if (versions.length === 0) out.push(fieldRequired(vp, ''));
    else if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) out.push(fieldInvalid(vp, versions, 'must include at least one of v1, v1beta1'));
  } else if (c.webhook?.clientConfig) out.push(fieldForbidden(child(path, 'webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
  return out;
}

function validateStoredVersions(obj: KubeObject, spec: CRDSpec): StatusCause[] {
  const raw = (obj.status as { storedVersions?: string[] } | undefined)?.storedVersions;
  const stored = (raw ?? []).filter((v) => typeof v === 'string');
  const path = 'status.storedVersions';
  if (stored.length === 0) return raw === undefined ? [rendered(path, '[]string(nil)', 'must have at least one stored version')] : [fieldInvalid(path, stored, 'must have at least one stored version')];
  const out: StatusCause[] = [];
  for (const v of spec.versions) if (v.storage && !stored.includes(v.name)) out.push(fieldInvalid(path, stored, `must have the storage version ${v.name}`));
  stored.forEach((v, i) => {
    if (!spec.versions.some((x) => x.name === v)) {
      out.push(fieldInvalid(key(path, i), v, `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`));
    }
  });
  return out;
}

function validateVersions(spec: CRDSpec): StatusCause[] {
  const out: StatusCause[] = [];
  const layout = hoistedLayout(spec);
  const statusAnywhere = spec.versions.some((v) => v.subresources?.status !== undefined);
  const names = new Set<string>();
  let unique = true;
  spec.versions.forEach((v, i) => {
    const p = key('spec.versions', i);
    if (names.has(v.name)) unique = false;
    names.add(v.name);
    out.push(...label1035(child(p, 'name'), typeof v.name === 'string' ? v.name : ''));
    if (!layout.schema && !v.schema?.openAPIV3Schema) out.push(fieldRequired(`${p}.schema.openAPIV3Schema`, 'schemas are required'));
    if (v.deprecationWarning !== undefined) {
      if (!v.deprecated) out.push(fieldInvalid(child(p, 'deprecationWarning'), v.deprecationWarning, 'can only be set for deprecated versions'));
      else if (v.deprecationWarning.length > 256) out.push(fieldInvalid(child(p, 'deprecationWarning'), v.deprecationWarning, 'must be <= 256 characters long'));
    }
    if (!layout.schema) out.push(...validateCRDSchema(v.schema?.openAPIV3Schema, v.subresources?.status !== undefined, child(p, 'schema')));
    if (!layout.subresources) out.push(...validateSubresources(v.subresources, child(p, 'subresources')));
    if (!layout.columns) out.push(...validateColumns(v.additionalPrinterColumns, child(p, 'additionalPrinterColumns')));
    if (!layout.selectableFields) out.push(...validateSelectableFields(v.selectableFields, v.schema?.openAPIV3Schema, child(p, 'selectableFields')));
  });
  if (!unique) out.push(rendered('spec.versions', RENDER_VERSIONS, 'must contain unique version names'));
  if (spec.versions.filter((v) => v.storage === true).length !== 1) out.push(rendered('spec.versions', RENDER_VERSIONS, 'must have exactly one version marked as storage version'));
  const first = spec.versions[0];
  if (first && layout.schema) out.push(...validateCRDSchema(first.schema?.openAPIV3Schema, statusAnywhere, 'spec.validation'));
  if (first && layout.subresources) out.push(...validateSubresources(first.subresources, 'spec.subresources'));
  if (first && layout.columns) out.push(...validateColumns(first.additionalPrinterColumns, 'spec.additionalPrinterColumns'));
  if (first && layout.selectableFields) out.push(...validateSelectableFields(first.selectableFields, first.schema?.openAPIV3Schema, 'spec.selectableFields'));
  return out;
}

/**
 * Validates a CustomResourceDefinition (`old` on update); returns the causes of a 422. The
 * generic ObjectMeta checks are the store's; this adds the name = plural.group rule.
 */
export function validateCustomResourceDefinition(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const spec = crdSpec(obj);
  const name = obj.metadata?.name ?? '';
  if (name && name !== `${spec.names.plural}.${spec.group}`) out.push(fieldInvalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  if (!spec.group) out.push(fieldRequired('spec.group', ''));
  else {
    const errs = isDNS1123Subdomain(spec.group);
    if (errs.length) out.push(fieldInvalid('spec.group', spec.group, errs.join(',')));
    else if (spec.group.split('.').length < 2) out.push(fieldInvalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  if (!spec.scope) out.push(fieldRequired('spec.scope', ''));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') out.push(fieldNotSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  out.push(...validateVersions(spec));
  if (!spec.names.plural) out.push(fieldRequired('spec.names.plural', ''));
  if (!spec.names.singular) out.push(fieldRequired('spec.names.singular', ''));
  if (!spec.names.kind) out.push(fieldRequired('spec.names.kind', ''));
  if (!spec.names.listKind) out.push(fieldRequired('spec.names.listKind', ''));
  out.push(...validateNames(spec.names, 'spec.names'));
  out.push(...validateConversion(spec, 'spec.conversion'));
  if (spec.preserveUnknownFields === true) {
    out.push(fieldInvalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  if (old) {
    const oldSpec = crdSpec(old);
    if (conditionTrue(old, 'Established')) {
      if (spec.scope !== oldSpec.scope) out.push(fieldInvalid('spec.scope', spec.scope, 'field is immutable'));
      if (spec.names.kind !== oldSpec.names.kind) out.push(fieldInvalid('spec.names.kind', spec.names.kind, 'field is immutable'));
    }
    if (spec.group !== oldSpec.group) out.push(fieldInvalid('spec.group', spec.group, 'field is immutable'));
    if (spec.names.plural !== oldSpec.names.plural) out.push(fieldInvalid('spec.names.plural', spec.names.plural, 'field is immutable'));
  }
  const accepted = (obj.status as { acceptedNames?: CRDSpec['names'] } | undefined)?.acceptedNames;
  if (accepted) out.push(...validateNames(accepted, 'status.acceptedNames'));
  out.push(...validateStoredVersions(obj, spec));
  out.push(...validateApproval(obj, old, spec.group));
  return out;
}
