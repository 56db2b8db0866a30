/**
 * authorization.k8s.io/v1 access reviews: SubjectAccessReview, LocalSubjectAccessReview,
 * SelfSubjectAccessReview (`kubectl auth can-i`) and SelfSubjectRulesReview
 * (`kubectl auth can-i --list`). Create-only and never stored: the answer is the request
 * with its status filled by the authorizer.
 */
import type { KubeObject } from '@kplane/api';
import { badRequest, fieldInvalid, fieldRequired, invalid, type StatusCause } from '@kplane/api';
import type { ReviewDefinition } from '../../server/reviews.js';
import type { AuthorizationAttributes, Authorizer, UserInfo } from '../types.js';
import type { PolicyRule } from './rules.js';

const GROUP = 'authorization.k8s.io';

type Obj = Record<string, unknown>;

/** What a review needs of the authorizer. */
export interface ReviewAuthorizer extends Authorizer {
  rulesFor(user: UserInfo, namespace: string | undefined): { rules: PolicyRule[]; errors: string[] };
}

function obj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}

function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function goStruct(o: Obj | undefined, fields: string[]): string {
  return `&authorization.${fields[0]}{${fields
    .slice(1)
    .map((f) => `${f[0]!.toUpperCase()}${f.slice(1)}:${JSON.stringify(s(o?.[f]))}`)
    .join(', ')}}`;
}

const NON_RESOURCE_FIELDS = ['NonResourceAttributes', 'path', 'verb'];

/** Validation of the attributes of a spec: exactly one of resourceAttributes and nonResourceAttributes. */
function attributeCauses(spec: Obj): StatusCause[] {
  const ra = obj(spec.resourceAttributes);
  const nra = obj(spec.nonResourceAttributes);
  if (ra && nra) return [fieldInvalid('spec.nonResourceAttributes', goStruct(nra, NON_RESOURCE_FIELDS), 'cannot be specified in combination with resourceAttributes')];
  if (!ra && !nra) return [fieldRequired('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  return [];
}

/** The authorization attributes a review's spec describes. */
function specAttributes(spec: Obj, user: UserInfo): AuthorizationAttributes {
  const ra = obj(spec.resourceAttributes);
  if (ra) {
    return {
      user,
      verb: s(ra.verb),
      resourceRequest: true,
      apiGroup: s(ra.group),
      apiVersion: s(ra.version),
      resource: s(ra.resource),
      subresource: s(ra.subresource) || undefined,
      namespace: s(ra.namespace) || undefined,
      name: s(ra.name) || undefined,
    };
  }
  const nra = obj(spec.nonResourceAttributes) ?? {};
  return { user, verb: s(nra.verb), resourceRequest: false, path: s(nra.path) };
}

function answer(body: KubeObject, status: Obj): KubeObject {
  return { ...body, metadata: body.metadata ?? { creationTimestamp: null }, status } as KubeObject;
}

function accessStatus(authorizer: Authorizer, attrs: AuthorizationAttributes): Obj {
  const d = authorizer.authorize(attrs);
  return { allowed: d.allowed, ...(d.reason ? { reason: d.reason } : {}) };
}

function extraOf(v: unknown): Record<string, string[]> | undefined {
  const o = obj(v);
  if (!o) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, vs] of Object.entries(o)) out[k] = Array.isArray(vs) ? vs.map(String) : [];
  return out;
}

function userOfSpec(spec: Obj): UserInfo {
  const groups = Array.isArray(spec.groups) ? spec.groups.map(String) : [];
  return { username: s(spec.user), groups, ...(s(spec.uid) ? { uid: s(spec.uid) } : {}), ...(extraOf(spec.extra) ? { extra: extraOf(spec.extra)! } : {}) };
}

/** The four access reviews, for registerReview. */
export function accessReviews(authorizer: ReviewAuthorizer): ReviewDefinition[] {
  const def = (resource: string, kind: string, review: ReviewDefinition['review'], namespaced = false): ReviewDefinition => ({
    group: GROUP,
    version: 'v1',
    resource,
    kind,
    namespaced,
    schemaName: `io.k8s.api.authorization.v1.${kind}`,
    review,
  });
  return [
    def('subjectaccessreviews', 'SubjectAccessReview', (body) => {
      const spec = obj(body.spec) ?? {};
      const causes = attributeCauses(spec);
      if (!s(spec.user) && !(Array.isArray(spec.groups) && spec.groups.length)) causes.push(fieldInvalid('spec.user', s(spec.user), 'at least one of user or group must be specified'));
      if (causes.length) throw invalid(GROUP, 'SubjectAccessReview', body.metadata?.name ?? '', causes);
      return answer(body, accessStatus(authorizer, specAttributes(spec, userOfSpec(spec))));
    }),
    def('localsubjectaccessreviews', 'LocalSubjectAccessReview', (body, req) => {
      const spec = obj(body.spec) ?? {};
      const namespace = req.namespace ?? '';
      const metaNs = body.metadata?.namespace ?? namespace;
      const causes = attributeCauses(spec);
      if (!s(spec.user) && !(Array.isArray(spec.groups) && spec.groups.length)) causes.push(fieldInvalid('spec.user', s(spec.user), 'at least one of user or group must be specified'));
      const ra = obj(spec.resourceAttributes);
      if (obj(spec.nonResourceAttributes)) causes.push(fieldInvalid('spec.nonResourceAttributes', goStruct(obj(spec.nonResourceAttributes), NON_RESOURCE_FIELDS), 'disallowed on this kind of request'));
      if (ra && s(ra.namespace) !== metaNs) causes.push(fieldInvalid('spec.resourceAttributes.namespace', s(ra.namespace), 'must match metadata.namespace'));
      if (causes.length) throw invalid(GROUP, 'LocalSubjectAccessReview', body.metadata?.name ?? '', causes);
      if (metaNs !== namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
      const b = { ...body, metadata: { ...(body.metadata ?? {}), namespace } } as KubeObject;
      return answer(b, accessStatus(authorizer, specAttributes(spec, userOfSpec(spec))));
    }, true),
    def('selfsubjectaccessreviews', 'SelfSubjectAccessReview', (body, req) => {
      const spec = obj(body.spec) ?? {};
      const causes = attributeCauses(spec);
      if (causes.length) throw invalid(GROUP, 'SelfSubjectAccessReview', body.metadata?.name ?? '', causes);
      return answer(body, accessStatus(authorizer, specAttributes(spec, req.user)));
    }),
    def('selfsubjectrulesreviews', 'SelfSubjectRulesReview', (body, req) => {
      const spec = obj(body.spec) ?? {};
      const namespace = s(spec.namespace);
      if (!namespace) throw badRequest('no namespace on request');
      const { rules, errors } = authorizer.rulesFor(req.user, namespace || undefined);
      const resourceRules: Obj[] = [];
      const nonResourceRules: Obj[] = [];
      for (const r of rules) {
        if ((r.resources ?? []).length) {
          resourceRules.push({
            verbs: r.verbs,
            ...(r.apiGroups?.length ? { apiGroups: r.apiGroups } : {}),
            resources: r.resources,
            ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
          });
        }
        if ((r.nonResourceURLs ?? []).length) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
      }
      const status: Obj = { resourceRules, nonResourceRules, incomplete: false };
      if (errors.length) status.evaluationError = errors.length === 1 ? errors[0] : `[${[...new Set(errors)].join(', ')}]`;
      return answer(body, status);
    }),
  ];
}
