/** core/v1 configmaps and secrets: key validation, immutability, Secret types and stringData. */
import {
  fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong, hasOwn, maxLenError, regexError, setOwn, FIELD_IMMUTABLE_ERROR_MSG, type KubeObject, type StatusCause,
} from '@kplane/api';
import type { ResourceType } from '../registry/resource.js';
import { translateTimestampSince } from './age.js';
import { AGE_COLUMN, NAME_COLUMN } from './pod.js';
import { STANDARD_VERBS, asObj, semanticEqual, str, type Obj } from './util.js';

/** Kubernetes' IsConfigMapKey: the errors for a ConfigMap or Secret key. */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push(maxLenError(253));
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", '[-._a-zA-Z0-9]+', 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

function keyErrors(map: unknown, field: string): StatusCause[] {
  return Object.keys(asObj(map) ?? {}).flatMap((k) => isConfigMapKey(k).map((m) => fieldInvalid(`${field}[${k}]`, k, m)));
}

const IMMUTABLE_SET = 'field is immutable when `immutable` is set';

function immutability(obj: KubeObject, old: KubeObject | undefined, fields: string[]): StatusCause[] {
  if (!old || (old as Obj).immutable !== true) return [];
  const out: StatusCause[] = [];
  if ((obj as Obj).immutable !== true) out.push(fieldForbidden('immutable', IMMUTABLE_SET));
  for (const f of fields) if (!semanticEqual((obj as Obj)[f], (old as Obj)[f])) out.push(fieldForbidden(f, IMMUTABLE_SET));
  return out;
}

/** Kubernetes' MaxSecretSize: the most data a ConfigMap or a Secret may hold (1 MiB). */
export const MAX_SECRET_SIZE = 1024 * 1024;

/** Bytes of the string values of a map (UTF-8) or, with `base64`, of their decoded values. */
function valueBytes(map: unknown, base64 = false): number {
  let n = 0;
  for (const v of Object.values(asObj(map) ?? {})) {
    if (typeof v !== 'string') continue;
    n += base64 ? Buffer.from(v, 'base64').length : Buffer.byteLength(v, 'utf8');
  }
  return n;
}

function count(map: unknown): number {
  return Object.keys(asObj(map) ?? {}).length;
}

/** The configmaps resource. */
export function configMapResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    listKind: 'ConfigMapList',
    singular: 'configmap',
    shortNames: ['cm'],
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/configmaps',
    schemaName: 'io.k8s.api.core.v1.ConfigMap',
    strategy: {
      generation: false,
      validate(obj, old) {
        const o = obj as Obj;
        const out = keyErrors(o.data, 'data');
        const binary = asObj(o.binaryData) ?? {};
        for (const k of Object.keys(asObj(o.data) ?? {})) {
          if (hasOwn(binary, k)) out.push(fieldInvalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
        }
        out.push(...keyErrors(o.binaryData, 'binaryData'));
        // The error names the whole object: Kubernetes passes an empty field path, printed "[]".
        if (valueBytes(o.data) + valueBytes(o.binaryData, true) > MAX_SECRET_SIZE) out.push(fieldTooLong('[]', MAX_SECRET_SIZE));
        out.push(...immutability(obj, old, ['data', 'binaryData']));
        return out;
      },
      table: {
        columns: [NAME_COLUMN, { name: 'Data', type: 'string', description: 'Data contains the configuration data.', priority: 0 }, AGE_COLUMN],
        row: (obj, now) => [obj.metadata?.name ?? '', count((obj as Obj).data) + count((obj as Obj).binaryData), translateTimestampSince(obj.metadata?.creationTimestamp, now)],
      },
    },
  };
}

/** Required keys of the typed secrets, in the order Kubernetes reports them. */
function typeErrors(obj: Obj): StatusCause[] {
  const data = asObj(obj.data) ?? {};
  const has = (k: string) => data[k] !== undefined;
  const out: StatusCause[] = [];
  switch (str(obj.type)) {
    case 'kubernetes.io/service-account-token':
      if (!str(asObj(asObj(obj.metadata)?.annotations)?.['kubernetes.io/service-account.name'])) {
        out.push(fieldRequired('metadata.annotations[kubernetes.io/service-account.name]'));
      }
      break;
    case 'kubernetes.io/dockercfg':
      if (!has('.dockercfg')) out.push(fieldRequired('data[.dockercfg]'));
      break;
    case 'kubernetes.io/dockerconfigjson':
      if (!has('.dockerconfigjson')) out.push(fieldRequired('data[.dockerconfigjson]'));
      break;
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password')) out.push(fieldRequired('data[username]'), fieldRequired('data[password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!has('ssh-privatekey')) out.push(fieldRequired('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) out.push(fieldRequired('data[tls.crt]'));
      if (!has('tls.key')) out.push(fieldRequired('data[tls.key]'));
      break;
    default:
  }
  return out;
}

/** The secrets resource. */
export function secretResource(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'secrets',
    kind: 'Secret',
    listKind: 'SecretList',
    singular: 'secret',
    namespaced: true,
    verbs: STANDARD_VERBS,
    storagePrefix: '/registry/secrets',
    schemaName: 'io.k8s.api.core.v1.Secret',
    strategy: {
      generation: false,
      defaults(obj) {
        const o = obj as Obj;
        if (!o.type) o.type = 'Opaque';
        const stringData = asObj(o.stringData);
        if (stringData) {
          const data = (asObj(o.data) ?? {}) as Obj;
          for (const [k, v] of Object.entries(stringData)) setOwn(data, k, Buffer.from(String(v ?? ''), 'utf8').toString('base64'));
          o.data = data;
        }
        delete o.stringData;
      },
      validate(obj, old) {
        const o = obj as Obj;
        const out = keyErrors(o.data, 'data');
        if (valueBytes(o.data, true) > MAX_SECRET_SIZE) out.push(fieldTooLong('data', MAX_SECRET_SIZE));
        out.push(...typeErrors(o));
        if (old && str(o.type) !== str((old as Obj).type)) out.push(fieldInvalid('type', str(o.type), FIELD_IMMUTABLE_ERROR_MSG));
        out.push(...immutability(obj, old, ['data']));
        return out;
      },
      table: {
        columns: [
          NAME_COLUMN,
          { name: 'Type', type: 'string', description: 'Used to facilitate programmatic handling of secret data.', priority: 0 },
          { name: 'Data', type: 'string', description: 'Data contains the secret data.', priority: 0 },
          AGE_COLUMN,
        ],
        row: (obj, now) => [obj.metadata?.name ?? '', str((obj as Obj).type), count((obj as Obj).data), translateTimestampSince(obj.metadata?.creationTimestamp, now)],
      },
      fieldSelectors: { type: (o) => str((o as Obj).type) },
    },
  };
}
