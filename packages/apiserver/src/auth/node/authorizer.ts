/**
 * kube-apiserver's Node authorizer (authorization mode `Node`), with 1.32's
 * AuthorizeNodeWithSelectors: a node identity (`system:node:NAME` in `system:nodes`) may read
 * the Secrets, ConfigMaps, PersistentVolumeClaims and ServiceAccount tokens of the pods bound to
 * it (the graph), its own Node, its own Lease in kube-node-lease, pods bound to it (list and
 * watch with the `spec.nodeName=NAME` field selector), and otherwise what kube's node rules
 * (the `system:node` ClusterRole) allow. Anything else gets no opinion, with kube's reason, and
 * goes on to RBAC. The NodeRestriction admission (noderestriction.ts) narrows the writes.
 */
import { nodeIdentity, parseFieldSelector, type UserInfo } from '@kplane/api';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from '../types.js';
import { ruleAllows, type PolicyRule } from '../rbac/rules.js';
import type { NodeGraph, VertexType } from './graph.js';

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ verbs, apiGroups, resources });

/** kube's node rules (bootstrap policy's NodeRules, the rules of ClusterRole system:node). */
export const NODE_RULES: readonly PolicyRule[] = [
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
  rule(['get', 'list', 'watch'], [''], ['services']),
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['patch', 'update'], [''], ['nodes/status']),
  rule(['patch', 'update'], [''], ['nodes']),
  rule(['create', 'patch', 'update'], [''], ['events']),
  rule(['get', 'list', 'watch'], [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(['get', 'list', 'watch'], [''], ['configmaps', 'secrets']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get', 'patch', 'update'], [''], ['persistentvolumeclaims/status']),
  rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['csidrivers']),
  rule(['create', 'delete', 'get', 'patch', 'update'], ['storage.k8s.io'], ['csinodes']),
  rule(['get', 'list', 'watch'], ['node.k8s.io'], ['runtimeclasses']),
];

const ALLOW: AuthorizationDecision = Object.freeze({ allowed: true, reason: '' });
const noOpinion = (reason = ''): AuthorizationDecision => ({ allowed: false, reason });
const NO_OPINION = Object.freeze(noOpinion());

/** Does the request's field selector hold `field=value` (= or ==)? */
function selects(attrs: AuthorizationAttributes, field: string, value: string): boolean {
  if (!attrs.fieldSelector) return false;
  try {
    return parseFieldSelector(attrs.fieldSelector).requirements.some((r) => r.field === field && r.operator !== '!=' && r.value === value);
  } catch {
    return false;
  }
}

/** The Node authorizer over a graph of the pods bound to each node. */
export class NodeAuthorizer implements Authorizer {
  constructor(private readonly graph: NodeGraph) {}

  /** Node identities' decisions follow the graph (never remembered); others' never vary (no opinion). */
  identity(user: UserInfo): object | null | undefined {
    return nodeIdentity(user) === undefined ? null : undefined;
  }

  /** kube's NodeAuthorizer.Authorize. */
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision {
    const node = nodeIdentity(attrs.user);
    if (node === undefined) return NO_OPINION;
    if (node === '') return noOpinion(`unknown node for user "${attrs.user.username}"`);
    if (attrs.resourceRequest) {
      const group = attrs.apiGroup ?? '';
      const r = attrs.resource ?? '';
      if (group === '') {
        switch (r) {
          case 'secrets':
            return this.readNamespaced(node, 'secret', attrs);
          case 'configmaps':
            return this.readNamespaced(node, 'configmap', attrs);
          case 'persistentvolumeclaims':
            return attrs.subresource === 'status' ? this.statusUpdate(node, attrs) : this.get(node, 'persistentvolumeclaim', attrs);
          case 'persistentvolumes':
            // kplane's graph does not follow claims to their volumes.
            return this.get(node, undefined, attrs);
          case 'serviceaccounts':
            return this.createToken(node, attrs);
          case 'nodes':
            return this.nodeObject(node, attrs);
          case 'pods':
            return this.pod(node, attrs);
        }
      }
      if (group === 'coordination.k8s.io' && r === 'leases') return this.lease(node, attrs);
      if (group === 'storage.k8s.io' && r === 'csinodes') return this.csiNode(node, attrs);
      if (group === 'storage.k8s.io' && r === 'volumeattachments') return this.get(node, undefined, attrs);
    }
    for (const rule of NODE_RULES) if (ruleAllows(attrs, rule)) return ALLOW;
    return NO_OPINION;
  }

  private related(node: string, type: VertexType | undefined, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (!attrs.name) return noOpinion('No Object name found');
    if (type !== undefined && this.graph.related(node, type, attrs.namespace ?? '', attrs.name)) return ALLOW;
    return noOpinion(`no relationship found between node '${node}' and this object`);
  }

  private statusUpdate(node: string, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.verb !== 'update' && attrs.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, 'persistentvolumeclaim', attrs);
  }

  private get(node: string, type: VertexType | undefined, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource) return noOpinion('cannot get subresource');
    return this.related(node, type, attrs);
  }

  private readNamespaced(node: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.verb !== 'get' && attrs.verb !== 'list' && attrs.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (attrs.subresource) return noOpinion('cannot read subresource');
    if (!attrs.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(node, type, attrs);
  }

  private createToken(node: string, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (attrs.verb !== 'create' || !attrs.name) return noOpinion('can only create tokens for individual service accounts');
    if (attrs.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.related(node, 'serviceaccount', attrs);
  }

  private lease(node: string, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (attrs.namespace !== 'kube-node-lease') return noOpinion('can only access leases in the "kube-node-lease" system namespace');
    if (attrs.verb !== 'create' && attrs.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }

  private csiNode(node: string, attrs: AuthorizationAttributes): AuthorizationDecision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (attrs.subresource) return noOpinion('cannot authorize CSINode subresources');
    if (attrs.verb !== 'create' && attrs.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
    return ALLOW;
  }

  private nodeObject(node: string, attrs: AuthorizationAttributes): AuthorizationDecision {
    const sub = attrs.subresource ?? '';
    if (sub === '') {
      if (attrs.verb === 'create' || attrs.verb === 'update' || attrs.verb === 'patch') return ALLOW;
      if (attrs.verb === 'get' || attrs.verb === 'list' || attrs.verb === 'watch') {
        if (attrs.name === node) return ALLOW;
        if (!attrs.name) return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${node}' cannot read '${attrs.name}', only its own Node object`);
      }
    } else if (sub === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) return ALLOW;
    return NO_OPINION;
  }

  private pod(node: string, attrs: AuthorizationAttributes): AuthorizationDecision {
    const sub = attrs.subresource ?? '';
    if (sub === '') {
      switch (attrs.verb) {
        case 'get':
          return this.get(node, 'pod', attrs);
        case 'list':
        case 'watch':
          if (selects(attrs, 'spec.nodeName', node)) return ALLOW;
          if (attrs.name) return this.related(node, 'pod', attrs);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        case 'create':
        case 'delete':
          return ALLOW;
      }
    } else if (sub === 'status' && (attrs.verb === 'update' || attrs.verb === 'patch')) return ALLOW;
    else if (sub === 'eviction' && attrs.verb === 'create') return ALLOW;
    return NO_OPINION;
  }
}

/**
 * kube's union of authorizers: the first that allows decides; otherwise no opinion, with the
 * reasons given joined by newlines. Decisions are remembered only when every member can say
 * under which identity (see Authorizer.identity).
 */
export function unionAuthorizer(members: readonly Authorizer[]): Authorizer {
  return {
    authorize(attrs) {
      let reasons: string[] | undefined;
      for (const m of members) {
        const d = m.authorize(attrs);
        if (d.allowed) return d;
        if (d.reason) (reasons ??= []).push(d.reason);
      }
      return reasons === undefined ? NO_OPINION : { allowed: false, reason: reasons.join('\n') };
    },
    identity(user) {
      let id: object | undefined;
      for (const m of members) {
        if (!m.identity) return undefined;
        const k = m.identity(user);
        if (k === undefined) return undefined;
        if (k !== null) {
          if (id !== undefined && id !== k) return undefined;
          id = k;
        }
      }
      // No member tells users apart: do not remember (a refusal names its user).
      return id;
    },
  };
}
