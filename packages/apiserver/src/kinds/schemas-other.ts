/** Schemas of coordination.k8s.io Lease, events.k8s.io Event, networking.k8s.io Ingress, CRDs and RBAC. */
import type { SchemaDefinitions } from '@kplane/api';
import {
  CORE, MICROTIME, TIME, addKind, arr, atomicList, bool, enumStr, int32, int64, mapList, obj, open, ref, refObj, str, strList,
} from './schema-dsl.js';

const COORD = 'io.k8s.api.coordination.v1.';
const EVENTS = 'io.k8s.api.events.v1.';
const NET = 'io.k8s.api.networking.v1.';
const CRD = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
const RBAC = 'io.k8s.api.rbac.v1.';

/** Lease, events.k8s.io Event, Ingress, CustomResourceDefinition and RBAC schemas. */
export function otherDefinitions(): SchemaDefinitions {
  const defs: SchemaDefinitions = {
    [`${COORD}LeaseSpec`]: obj('Specification of a lease.', {
      acquireTime: ref(MICROTIME, 'When the current holder acquired the lease.'),
      holderIdentity: str('Identity of the current holder.'),
      leaseDurationSeconds: int32('Seconds candidates wait, since the last renewTime, before they may take the lease.'),
      leaseTransitions: int32('How many times the lease changed holders.'),
      preferredHolder: str('The holder the lease should go to, with strategy set.'),
      renewTime: ref(MICROTIME, 'When the holder last renewed the lease.'),
      strategy: str('The strategy for picking the leader in coordinated elections.'),
    }),
    [`${EVENTS}EventSeries`]: obj(
      'A series of repeated events.',
      { count: int32('Occurrences so far.', { default: 0 }), lastObservedTime: ref(MICROTIME, 'Time of the last occurrence.') },
      { required: ['count', 'lastObservedTime'] },
    ),
    [`${NET}IngressSpec`]: obj('Desired state of an ingress.', {
      defaultBackend: ref(`${NET}IngressBackend`, 'Backend for requests matching no rule.'),
      ingressClassName: str('Name of the IngressClass of the controller implementing this ingress.'),
      rules: atomicList(`${NET}IngressRule`, 'Host rules; requests matching none go to the default backend.'),
      tls: atomicList(`${NET}IngressTLS`, 'TLS configuration.'),
    }),
    [`${NET}IngressRule`]: obj('Maps the paths of a host to backends.', {
      host: str('Fully qualified domain name (a leading "*." wildcard is allowed); all hosts when empty.'),
      http: ref(`${NET}HTTPIngressRuleValue`, 'HTTP paths of the rule.'),
    }),
    [`${NET}HTTPIngressRuleValue`]: obj('HTTP paths and their backends.', { paths: atomicList(`${NET}HTTPIngressPath`, 'Paths mapped to backends.') }, { required: ['paths'] }),
    [`${NET}HTTPIngressPath`]: obj(
      'A path and the backend it routes to.',
      {
        backend: refObj(`${NET}IngressBackend`, 'Where matching traffic goes.'),
        path: str('Path matched against the request path; must start with "/".'),
        pathType: enumStr('How the path matches: Exact, Prefix or ImplementationSpecific.', ['Exact', 'ImplementationSpecific', 'Prefix']),
      },
      { required: ['pathType', 'backend'] },
    ),
    [`${NET}IngressBackend`]: obj('A service (or other resource) receiving traffic.', {
      resource: open('A reference to another object in the ingress\'s namespace (apiGroup, kind, name).'),
      service: ref(`${NET}IngressServiceBackend`, 'A service backend.'),
    }),
    [`${NET}IngressServiceBackend`]: obj(
      'A service as a backend.',
      { name: str('Name of the service.', { default: '' }), port: refObj(`${NET}ServiceBackendPort`, 'Port of the service.') },
      { required: ['name'] },
    ),
    [`${NET}ServiceBackendPort`]: obj(
      'A port of a service, by name or number.',
      { name: str('Port name.'), number: int32('Port number.') },
      { 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${NET}IngressTLS`]: obj('TLS for a set of hosts.', {
      hosts: strList('Hosts covered by the certificate.'),
      secretName: str('Name of the Secret holding the certificate and key.'),
    }),
    [`${NET}IngressStatus`]: obj('Observed state of an ingress.', { loadBalancer: refObj(`${NET}IngressLoadBalancerStatus`, 'The load balancer.') }),
    [`${NET}IngressLoadBalancerStatus`]: obj('Status of an ingress load balancer.', { ingress: atomicList(`${NET}IngressLoadBalancerIngress`, 'Ingress points.') }),
    [`${NET}IngressLoadBalancerIngress`]: obj('An ingress point.', {
      hostname: str('DNS name.'),
      ip: str('IP address.'),
      ports: { type: 'array', description: 'Port statuses.', items: open('Status of one port.'), 'x-kubernetes-list-type': 'atomic' },
    }),
    [`${CRD}CustomResourceDefinitionSpec`]: obj(
      'How a custom resource appears.',
      {
        conversion: open('How versions are converted: strategy None or Webhook.'),
        group: str('API group of the resource, e.g. stable.example.com.', { default: '' }),
        names: refObj(`${CRD}CustomResourceDefinitionNames`, 'Resource and kind names.'),
        preserveUnknownFields: bool('Deprecated: keep unknown fields (v1 requires false).'),
        scope: enumStr('Namespaced or Cluster.', ['Cluster', 'Namespaced'], { default: '' }),
        versions: atomicList(`${CRD}CustomResourceDefinitionVersion`, 'Served versions; exactly one is the storage version.'),
      },
      { required: ['group', 'names', 'scope', 'versions'] },
    ),
    [`${CRD}CustomResourceDefinitionNames`]: obj(
      'Names of a custom resource.',
      {
        categories: strList('Groups the resource belongs to, e.g. all.'),
        kind: str('Kind, in CamelCase.', { default: '' }),
        listKind: str('Kind of lists. Defaults to <kind>List.'),
        plural: str('Plural resource name, lower case, used in URLs.', { default: '' }),
        shortNames: strList('Short names for kubectl.'),
        singular: str('Singular name. Defaults to the lower-cased kind.'),
      },
      { required: ['plural', 'kind'] },
    ),
    [`${CRD}CustomResourceDefinitionVersion`]: obj(
      'One version of a custom resource.',
      {
        additionalPrinterColumns: atomicList(`${CRD}CustomResourceColumnDefinition`, 'Extra Table columns.'),
        deprecated: bool('Marks the version deprecated.'),
        deprecationWarning: str('Warning returned to clients using a deprecated version.'),
        name: str('Version name, e.g. v1.', { default: '' }),
        schema: ref(`${CRD}CustomResourceValidation`, 'Schema of the version.'),
        selectableFields: atomicList(`${CRD}SelectableField`, 'Extra fields usable in field selectors.'),
        served: bool('Whether the version is served.', { default: false }),
        storage: bool('Whether objects are stored in this version.', { default: false }),
        subresources: ref(`${CRD}CustomResourceSubresources`, 'Status and scale subresources.'),
      },
      { required: ['name', 'served', 'storage'] },
    ),
    [`${CRD}CustomResourceValidation`]: obj('Validation of a version.', {
      openAPIV3Schema: ref(`${CRD}JSONSchemaProps`, 'The structural OpenAPI v3 schema of the resource.'),
    }),
    // The fields kplane reads are typed (a wrongly typed CRD is refused as Kubernetes refuses
    // it); the rest (default, enum, example: JSON values) is kept as it is.
    [`${CRD}JSONSchemaProps`]: open('A JSON-Schema (OpenAPI v3) following the structural schema rules, with the x-kubernetes-* extensions.', {
      allOf: arr(ref(`${CRD}JSONSchemaProps`), 'Schemas that must all match.'),
      anyOf: arr(ref(`${CRD}JSONSchemaProps`), 'Schemas of which at least one must match.'),
      description: str('Description of the field, shown by kubectl explain.'),
      exclusiveMaximum: bool('Whether maximum is exclusive.'),
      exclusiveMinimum: bool('Whether minimum is exclusive.'),
      additionalProperties: ref(`${CRD}JSONSchemaPropsOrBool`, 'Schema of the values of a map, or false.'),
      format: str('Format of a string or number, e.g. int32, date-time, byte.'),
      items: ref(`${CRD}JSONSchemaPropsOrArray`, 'Schema of the items of a list.'),
      maxItems: int64('Most items a list may have.'),
      maxLength: int64('Longest string allowed.'),
      maxProperties: int64('Most properties a map may have.'),
      maximum: { type: 'number', format: 'double', description: 'Largest number allowed.' },
      minItems: int64('Fewest items a list may have.'),
      minLength: int64('Shortest string allowed.'),
      minProperties: int64('Fewest properties a map may have.'),
      minimum: { type: 'number', format: 'double', description: 'Smallest number allowed.' },
      multipleOf: { type: 'number', format: 'double', description: 'Numbers must be a multiple of this.' },
      not: ref(`${CRD}JSONSchemaProps`, 'A schema that must not match.'),
      nullable: bool('Whether null is allowed (and kept).'),
      oneOf: arr(ref(`${CRD}JSONSchemaProps`), 'Schemas of which exactly one must match.'),
      pattern: str('Regular expression strings must match.'),
      patternProperties: { type: 'object', description: 'Schemas of properties by name pattern (not allowed in CRDs).', additionalProperties: ref(`${CRD}JSONSchemaProps`) },
      properties: { type: 'object', description: 'Schemas of the properties of an object.', additionalProperties: ref(`${CRD}JSONSchemaProps`) },
      required: strList('Properties that must be present.'),
      title: str('Title of the schema.'),
      type: str('JSON type: object, array, string, integer, number or boolean.'),
      uniqueItems: bool('Whether list items must be unique (not allowed in CRDs).'),
      'x-kubernetes-embedded-resource': bool('The value is a Kubernetes object with apiVersion, kind and metadata.'),
      'x-kubernetes-int-or-string': bool('The value is an integer or a string.'),
      'x-kubernetes-list-map-keys': strList('Keys of the items of a list of type map.'),
      'x-kubernetes-list-type': str('atomic, set or map.'),
      'x-kubernetes-map-type': str('granular or atomic.'),
      'x-kubernetes-preserve-unknown-fields': bool('Keep fields the schema does not describe.'),
      'x-kubernetes-validations': atomicList(`${CRD}ValidationRule`, 'CEL rules the value must satisfy.'),
    }),
    [`${CRD}JSONSchemaPropsOrArray`]: { description: 'A schema, or a list of schemas.', 'x-kubernetes-preserve-unknown-fields': true },
    [`${CRD}JSONSchemaPropsOrBool`]: { description: 'A schema, or a boolean.', 'x-kubernetes-preserve-unknown-fields': true },
    [`${CRD}ValidationRule`]: obj(
      'A CEL validation rule.',
      {
        fieldPath: str('Path of the field errors are reported on, relative to the schema.'),
        message: str('Message returned when the rule fails.'),
        messageExpression: str('CEL expression computing the message.'),
        optionalOldSelf: bool('Run the transition rule also when there is no old value.'),
        reason: str('Reason of the error: FieldValueInvalid, FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.'),
        rule: str('The CEL expression.', { default: '' }),
      },
      { required: ['rule'] },
    ),
    [`${CRD}CustomResourceColumnDefinition`]: obj(
      'An additional column of Table output.',
      {
        description: str('Description of the column.'),
        format: str('Format of the column.'),
        jsonPath: str('JSON path of the value shown.', { default: '' }),
        name: str('Name of the column.', { default: '' }),
        priority: int32('0: always shown; more: only with -o wide.'),
        type: str('OpenAPI type of the column.', { default: '' }),
      },
      { required: ['name', 'type', 'jsonPath'] },
    ),
    [`${CRD}SelectableField`]: obj('A field usable in field selectors.', { jsonPath: str('JSON path of the field.', { default: '' }) }, { required: ['jsonPath'] }),
    [`${CRD}CustomResourceSubresources`]: obj('Subresources of a custom resource.', {
      scale: ref(`${CRD}CustomResourceSubresourceScale`, 'The scale subresource.'),
      status: open('The status subresource (an empty object enables it).'),
    }),
    [`${CRD}CustomResourceSubresourceScale`]: obj(
      'Paths of the scale subresource.',
      {
        labelSelectorPath: str('JSON path of the serialized label selector in status.'),
        specReplicasPath: str('JSON path of the desired replicas, e.g. .spec.replicas.', { default: '' }),
        statusReplicasPath: str('JSON path of the observed replicas, e.g. .status.replicas.', { default: '' }),
      },
      { required: ['specReplicasPath', 'statusReplicasPath'] },
    ),
    [`${CRD}CustomResourceDefinitionStatus`]: obj('Observed state of a CustomResourceDefinition.', {
      acceptedNames: refObj(`${CRD}CustomResourceDefinitionNames`, 'The names actually being served.'),
      conditions: mapList(`${CRD}CustomResourceDefinitionCondition`, 'Conditions: Established, NamesAccepted, Terminating.', ['type']),
      storedVersions: strList('Versions objects were ever stored in.'),
    }),
    [`${CRD}CustomResourceDefinitionCondition`]: obj(
      'One condition of a CustomResourceDefinition.',
      {
        lastTransitionTime: ref(TIME, 'Last time the condition changed.'),
        message: str('Human-readable details.'),
        reason: str('CamelCase reason.'),
        status: str('True, False or Unknown.', { default: '' }),
        type: str('Condition type.', { default: '' }),
      },
      { required: ['type', 'status'] },
    ),
    [`${RBAC}PolicyRule`]: obj(
      'A set of permissions: verbs on resources (or non-resource URLs).',
      {
        apiGroups: strList('API groups of the resources; "" is the core group, "*" all groups.'),
        nonResourceURLs: strList('URL paths (with a trailing * wildcard) for cluster roles only.'),
        resourceNames: strList('Names of the objects the rule is restricted to.'),
        resources: strList('Resources the rule applies to; "*" means all.'),
        verbs: strList('Verbs allowed, e.g. get, list, watch, create; "*" means all.'),
      },
      { required: ['verbs'] },
    ),
    [`${RBAC}RoleRef`]: obj(
      'The role a binding grants.',
      {
        apiGroup: str('rbac.authorization.k8s.io.', { default: '' }),
        kind: str('Role or ClusterRole.', { default: '' }),
        name: str('Name of the role.', { default: '' }),
      },
      { required: ['apiGroup', 'kind', 'name'], 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${RBAC}Subject`]: obj(
      'A user, group or service account a binding applies to.',
      {
        apiGroup: str('"" for ServiceAccount, rbac.authorization.k8s.io for User and Group.'),
        kind: str('User, Group or ServiceAccount.', { default: '' }),
        name: str('Name of the subject.', { default: '' }),
        namespace: str('Namespace of a ServiceAccount subject.'),
      },
      { required: ['kind', 'name'], 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${RBAC}AggregationRule`]: obj('Aggregates the rules of the cluster roles it selects.', {
      clusterRoleSelectors: { type: 'array', description: 'Selectors of the cluster roles to aggregate.', items: ref('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector'), 'x-kubernetes-list-type': 'atomic' },
    }),
  };
  // CRD conditions are a list-map without a strategic-merge key in Kubernetes' schema.
  const crdConditions = defs[`${CRD}CustomResourceDefinitionStatus`]!.properties!.conditions!;
  delete crdConditions['x-kubernetes-patch-merge-key'];
  delete crdConditions['x-kubernetes-patch-strategy'];

  addKind(defs, COORD, 'coordination.k8s.io', 'v1', 'Lease', 'A lease: a lock with a holder and a duration, used for leader election and node heartbeats.', {
    spec: refObj(`${COORD}LeaseSpec`, 'Specification of the lease.'),
  });
  addKind(defs, EVENTS, 'events.k8s.io', 'v1', 'Event', 'A report of an event somewhere in the cluster (the events.k8s.io form of core/v1 Event).', {
    action: str('What action was taken or failed.'),
    deprecatedCount: int32('Deprecated count of the core/v1 form.'),
    deprecatedFirstTimestamp: ref(TIME, 'Deprecated firstTimestamp of the core/v1 form.'),
    deprecatedLastTimestamp: ref(TIME, 'Deprecated lastTimestamp of the core/v1 form.'),
    deprecatedSource: refObj(`${CORE}EventSource`, 'Deprecated source of the core/v1 form.'),
    eventTime: ref(MICROTIME, 'When the event was first observed. Required.'),
    note: str('Human-readable description of the event.'),
    reason: str('Why the action was taken.'),
    regarding: refObj(`${CORE}ObjectReference`, 'The object the event is about.'),
    related: ref(`${CORE}ObjectReference`, 'A secondary object involved.'),
    reportingController: str('Controller that emitted the event, e.g. kubernetes.io/kubelet.'),
    reportingInstance: str('Id of the controller instance.'),
    series: ref(`${EVENTS}EventSeries`, 'Data about the series this event represents.'),
    type: str('Normal or Warning.'),
  }, { required: ['eventTime'] });
  addKind(defs, NET, 'networking.k8s.io', 'v1', 'Ingress', 'Rules routing external HTTP(S) traffic to services.', {
    spec: refObj(`${NET}IngressSpec`, 'Desired state of the ingress.'),
    status: refObj(`${NET}IngressStatus`, 'Observed state of the ingress. Read-only.'),
  });
  addKind(defs, CRD, 'apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'Defines a custom resource served by the API server: CustomResourceDefinitions are named <plural>.<group>.', {
    spec: refObj(`${CRD}CustomResourceDefinitionSpec`, 'How the custom resource appears.'),
    status: refObj(`${CRD}CustomResourceDefinitionStatus`, 'Observed state of the definition. Read-only.'),
  }, { required: ['spec'] });
  addKind(defs, RBAC, 'rbac.authorization.k8s.io', 'v1', 'Role', 'A namespaced set of permissions.', {
    rules: atomicList(`${RBAC}PolicyRule`, 'The permissions of the role.'),
  });
  addKind(defs, RBAC, 'rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'A cluster-wide set of permissions.', {
    aggregationRule: ref(`${RBAC}AggregationRule`, 'When set, the rules are computed from the selected cluster roles.'),
    rules: atomicList(`${RBAC}PolicyRule`, 'The permissions of the role.'),
  });
  addKind(defs, RBAC, 'rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'Grants a Role or ClusterRole to subjects within a namespace.', {
    roleRef: refObj(`${RBAC}RoleRef`, 'The role granted. Cannot be updated.'),
    subjects: atomicList(`${RBAC}Subject`, 'Who the role is granted to.'),
  }, { required: ['roleRef'] });
  addKind(defs, RBAC, 'rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'Grants a ClusterRole to subjects across the cluster.', {
    roleRef: refObj(`${RBAC}RoleRef`, 'The cluster role granted. Cannot be updated.'),
    subjects: atomicList(`${RBAC}Subject`, 'Who the role is granted to.'),
  }, { required: ['roleRef'] });
  return defs;
}
