/** admissionregistration.k8s.io/v1 MutatingWebhookConfigurations and ValidatingWebhookConfigurations. */
import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooMany, validateLabelSelector, type KubeObject, type LabelSelectorObject, type StatusCause } from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, objs, setDefault, type Obj } from './util.js';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

/** SetDefaults of one webhook (pkg/apis/admissionregistration/v1/defaults.go). */
function defaultWebhook(w: Obj, mutating: boolean): void {
  setDefault(w, 'failurePolicy', 'Fail');
  setDefault(w, 'matchPolicy', 'Equivalent');
  setDefault(w, 'namespaceSelector', {});
  setDefault(w, 'objectSelector', {});
  setDefault(w, 'timeoutSeconds', 10);
  if (mutating) setDefault(w, 'reinvocationPolicy', 'Never');
  for (const r of objs(w.rules)) setDefault(r, 'scope', '*');
  const svc = asObj(asObj(w.clientConfig)?.service);
  if (svc) setDefault(svc, 'port', 443);
}

function validateWebhook(w: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!w.name) out.push(fieldRequired(`${path}.name`));
  else if (typeof w.name !== 'string' || w.name.split('.').length < 3 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(w.name)) {
    out.push(fieldInvalid(`${path}.name`, w.name, 'should be a domain with at least three segments separated by dots'));
  }
  objs(w.rules).forEach((r, i) => {
    const rp = `${path}.rules[${i}]`;
    for (const key of ['operations', 'apiGroups', 'apiVersions', 'resources'] as const) {
      if (!Array.isArray(r[key]) || r[key].length === 0) out.push(fieldRequired(`${rp}.${key}`));
    }
    (Array.isArray(r.operations) ? r.operations : []).forEach((op, j) => {
      if (!OPERATIONS.includes(String(op))) out.push(fieldNotSupported(`${rp}.operations[${j}]`, op, OPERATIONS));
    });
    if (r.scope !== undefined && !SCOPES.includes(String(r.scope))) out.push(fieldNotSupported(`${rp}.scope`, r.scope, SCOPES));
  });
  const fp = w.failurePolicy;
  if (fp !== undefined && fp !== 'Fail' && fp !== 'Ignore') out.push(fieldNotSupported(`${path}.failurePolicy`, fp, ['Fail', 'Ignore']));
  const mp = w.matchPolicy;
  if (mp !== undefined && mp !== 'Exact' && mp !== 'Equivalent') out.push(fieldNotSupported(`${path}.matchPolicy`, mp, ['Equivalent', 'Exact']));
  if (w.sideEffects === undefined || w.sideEffects === null || w.sideEffects === '') out.push(fieldRequired(`${path}.sideEffects`));
  else if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') out.push(fieldNotSupported(`${path}.sideEffects`, w.sideEffects, ['None', 'NoneOnDryRun']));
  const versions = Array.isArray(w.admissionReviewVersions) ? (w.admissionReviewVersions as unknown[]) : [];
  if (versions.length === 0) out.push(fieldRequired(`${path}.admissionReviewVersions`, 'must specify one of v1, v1beta1'));
  else if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) out.push(fieldInvalid(`${path}.admissionReviewVersions`, versions, 'must include at least one of v1, v1beta1'));
  const t = w.timeoutSeconds;
  if (typeof t === 'number' && (t < 1 || t > 30)) out.push(fieldInvalid(`${path}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds'));
  out.push(...validateLabelSelector(w.namespaceSelector as LabelSelectorObject, `${path}.namespaceSelector`));
  out.push(...validateLabelSelector(w.objectSelector as LabelSelectorObject, `${path}.objectSelector`));
  const conditions = objs(w.matchConditions);
  if (conditions.length > 64) out.push(fieldTooMany(`${path}.matchConditions`, conditions.length, 64));
  const conditionNames = new Set<string>();
  conditions.forEach((c, i) => {
    const cp = `${path}.matchConditions[${i}]`;
    if (!c.name) out.push(fieldRequired(`${cp}.name`));
    else if (conditionNames.has(String(c.name))) out.push(fieldDuplicate(`${cp}.name`, c.name));
    else conditionNames.add(String(c.name));
    if (!c.expression) out.push(fieldRequired(`${cp}.expression`));
  });
  const cc = asObj(w.clientConfig) ?? {};
  const url = cc.url;
  const svc = asObj(cc.service);
  if (url === undefined && !svc) out.push(fieldRequired(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (url !== undefined && svc) out.push(fieldRequired(`${path}.clientConfig`, 'exactly one of url or service is required'));
  else if (typeof url === 'string') {
    let u: URL | undefined;
    try {
      u = new URL(url);
    } catch {
      out.push(fieldInvalid(`${path}.clientConfig.url`, url, 'host must be specified'));
    }
    if (u && u.protocol !== 'https:') out.push(fieldInvalid(`${path}.clientConfig.url`, url, "'https' is the only allowed URL scheme"));
  } else if (svc) {
    if (!svc.namespace) out.push(fieldRequired(`${path}.clientConfig.service.namespace`, 'service namespace is required'));
    if (!svc.name) out.push(fieldRequired(`${path}.clientConfig.service.name`, 'service name is required'));
    const port = svc.port;
    if (typeof port === 'number' && (port < 1 || port > 65535)) out.push(fieldInvalid(`${path}.clientConfig.service.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
    if (typeof svc.path === 'string' && svc.path !== '' && !svc.path.startsWith('/')) out.push(fieldInvalid(`${path}.clientConfig.service.path`, svc.path, "must start with a '/'"));
  }
  return out;
}

function validateConfiguration(obj: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  const seen = new Set<string>();
  objs(obj.webhooks).forEach((w, i) => {
    out.push(...validateWebhook(w, `webhooks[${i}]`));
    if (typeof w.name === 'string' && w.name) {
      if (seen.has(w.name)) out.push(fieldDuplicate(`webhooks[${i}].name`, w.name));
      seen.add(w.name);
    }
  });
  return out;
}

function configurationResource(mutating: boolean): ResourceType {
  const kind = mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
  return {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: mutating ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations',
    kind,
    listKind: `${kind}List`,
    singular: kind.toLowerCase(),
    categories: ['api-extensions'],
    namespaced: false,
    verbs: STANDARD_VERBS,
    storagePrefix: mutating ? '/registry/mutatingwebhookconfigurations' : '/registry/validatingwebhookconfigurations',
    schemaName: `io.k8s.api.admissionregistration.v1.${kind}`,
    strategy: {
      generation: true,
      defaults: (obj) => {
        for (const w of objs(obj.webhooks)) defaultWebhook(w, mutating);
      },
      validate: validateConfiguration,
      table: {
        columns: [NAME_COLUMN, { name: 'Webhooks', type: 'integer', description: 'Webhooks is a list of webhooks and the affected resources and operations.', priority: 0 }, AGE_COLUMN],
        row: (obj, now) => [obj.metadata?.name ?? '', objs(obj.webhooks).length, translateTimestampSince(obj.metadata?.creationTimestamp, now)],
      },
    },
  };
}

/** The two webhook configuration resources. */
export function webhookConfigurationResources(): ResourceType[] {
  return [configurationResource(true), configurationResource(false)];
}
