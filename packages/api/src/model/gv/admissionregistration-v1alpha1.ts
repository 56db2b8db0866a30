// The MutatingAdmissionPolicy types of Kubernetes v1.32.0's admissionregistration.k8s.io/v1alpha1
// (an alpha API: only the types kplane serves), written in the importer's format from the
// 1.32.0 API definitions (Apache License 2.0); the protobuf numbers are checked against kubectl.
import type { ApiPackageModel } from '../types.js';

const P = 'io.k8s.api.admissionregistration.v1alpha1.';
const GROUP = 'admissionregistration.k8s.io';

export const admissionregistrationV1alpha1: ApiPackageModel = {
  kubernetes: '1.32.0',
  group: GROUP,
  version: 'v1alpha1',
  schemaPrefix: P,
  protoPackage: 'k8s.io.api.admissionregistration.v1alpha1',
  types: {
    ApplyConfiguration: {
      fields: {
        expression: { type: 'string', proto: 1 },
      },
    },
    JSONPatch: {
      fields: {
        expression: { type: 'string', proto: 1 },
      },
    },
    MatchCondition: {
      fields: {
        expression: { type: 'string', proto: 2, required: true, always: true, default: '' },
        name: { type: 'string', proto: 1, required: true, always: true, default: '' },
      },
    },
    MatchResources: {
      fields: {
        excludeResourceRules: { type: `[]${P}NamedRuleWithOperations`, proto: 4, items: { default: {} }, listType: 'atomic' },
        matchPolicy: { type: 'string', proto: 7, ptr: true, enum: ['Equivalent', 'Exact'] },
        namespaceSelector: { type: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector', proto: 1, ptr: true },
        objectSelector: { type: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector', proto: 2, ptr: true },
        resourceRules: { type: `[]${P}NamedRuleWithOperations`, proto: 3, items: { default: {} }, listType: 'atomic' },
      },
      mapType: 'atomic',
    },
    MutatingAdmissionPolicy: {
      fields: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', proto: 1, default: {} },
        spec: { type: `${P}MutatingAdmissionPolicySpec`, proto: 2, default: {} },
      },
      gvk: [{ group: GROUP, version: 'v1alpha1', kind: 'MutatingAdmissionPolicy' }],
    },
    MutatingAdmissionPolicyBinding: {
      fields: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', proto: 1, default: {} },
        spec: { type: `${P}MutatingAdmissionPolicyBindingSpec`, proto: 2, default: {} },
      },
      gvk: [{ group: GROUP, version: 'v1alpha1', kind: 'MutatingAdmissionPolicyBinding' }],
    },
    MutatingAdmissionPolicyBindingList: {
      fields: {
        apiVersion: { type: 'string' },
        items: { type: `[]${P}MutatingAdmissionPolicyBinding`, proto: 2, required: true, always: true, items: { default: {} } },
        kind: { type: 'string' },
        metadata: { type: 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta', proto: 1, default: {} },
      },
      gvk: [{ group: GROUP, version: 'v1alpha1', kind: 'MutatingAdmissionPolicyBindingList' }],
    },
    MutatingAdmissionPolicyBindingSpec: {
      fields: {
        matchResources: { type: `${P}MatchResources`, proto: 3, ptr: true },
        paramRef: { type: `${P}ParamRef`, proto: 2, ptr: true },
        policyName: { type: 'string', proto: 1 },
      },
    },
    MutatingAdmissionPolicyList: {
      fields: {
        apiVersion: { type: 'string' },
        items: { type: `[]${P}MutatingAdmissionPolicy`, proto: 2, required: true, always: true, items: { default: {} } },
        kind: { type: 'string' },
        metadata: { type: 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta', proto: 1, default: {} },
      },
      gvk: [{ group: GROUP, version: 'v1alpha1', kind: 'MutatingAdmissionPolicyList' }],
    },
    MutatingAdmissionPolicySpec: {
      fields: {
        failurePolicy: { type: 'string', proto: 5, ptr: true, enum: ['Fail', 'Ignore'] },
        matchConditions: { type: `[]${P}MatchCondition`, proto: 6, items: { default: {} }, listType: 'map', listMapKeys: ['name'], patchStrategy: 'merge', patchMergeKey: 'name' },
        matchConstraints: { type: `${P}MatchResources`, proto: 2, ptr: true },
        mutations: { type: `[]${P}Mutation`, proto: 4, items: { default: {} }, listType: 'atomic' },
        paramKind: { type: `${P}ParamKind`, proto: 1, ptr: true },
        reinvocationPolicy: { type: 'string', proto: 7, enum: ['IfNeeded', 'Never'] },
        variables: { type: `[]${P}Variable`, proto: 3, items: { default: {} }, listType: 'atomic' },
      },
    },
    Mutation: {
      fields: {
        applyConfiguration: { type: `${P}ApplyConfiguration`, proto: 3, ptr: true },
        jsonPatch: { type: `${P}JSONPatch`, proto: 4, ptr: true },
        patchType: { type: 'string', proto: 2, required: true, always: true, default: '', enum: ['ApplyConfiguration', 'JSONPatch'] },
      },
    },
    NamedRuleWithOperations: {
      fields: {
        apiGroups: { type: '[]string', items: { default: '' }, listType: 'atomic' },
        apiVersions: { type: '[]string', items: { default: '' }, listType: 'atomic' },
        operations: { type: '[]string', items: { default: '', enum: ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'] }, listType: 'atomic' },
        resourceNames: { type: '[]string', proto: 1, items: { default: '' }, listType: 'atomic' },
        resources: { type: '[]string', items: { default: '' }, listType: 'atomic' },
        scope: { type: 'string', ptr: true, enum: ['*', 'Cluster', 'Namespaced'] },
      },
      embedded: [{ proto: 2, type: 'io.k8s.api.admissionregistration.v1.RuleWithOperations' }],
      mapType: 'atomic',
    },
    ParamKind: {
      fields: {
        apiVersion: { type: 'string', proto: 1 },
        kind: { type: 'string', proto: 2 },
      },
      mapType: 'atomic',
    },
    ParamRef: {
      fields: {
        name: { type: 'string', proto: 1 },
        namespace: { type: 'string', proto: 2 },
        parameterNotFoundAction: { type: 'string', proto: 4, ptr: true },
        selector: { type: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector', proto: 3, ptr: true },
      },
      mapType: 'atomic',
    },
    Variable: {
      fields: {
        expression: { type: 'string', proto: 2, required: true, always: true, default: '' },
        name: { type: 'string', proto: 1, required: true, always: true, default: '' },
      },
      mapType: 'atomic',
    },
  },
};
