/** Admission requests for tests of admission steps. */
import type { KubeObject } from '@kplane/api';
import type { AdmissionAttributes } from '../admission/types.js';

/**
 * The attributes of a CREATE of `object` (in its apiVersion, kind and namespace; the resource
 * is the kind's lower-cased plural, as for the core kinds), not a dry run; `extra` overrides
 * any of them (an UPDATE with its oldObject, a user, warnings).
 */
export function admissionAttributes(object: KubeObject, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  const [group, version] = (object.apiVersion ?? 'v1').includes('/') ? (object.apiVersion as string).split('/') : ['', object.apiVersion ?? 'v1'];
  const kind = object.kind ?? '';
  return {
    operation: 'CREATE',
    kind: { group, version, kind },
    resource: { group, version, resource: `${kind.toLowerCase()}s` },
    subresource: '',
    namespace: object.metadata?.namespace ?? '',
    name: object.metadata?.name ?? '',
    object,
    dryRun: false,
    ...extra,
  };
}
