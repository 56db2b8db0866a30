/** Schemas of meta/v1 and the other apimachinery types every kind references, plus autoscaling/v1 Scale. */
import type { SchemaDefinitions, SchemaObject } from '@kplane/api';
import {
  INT_OR_STRING, LABEL_SELECTOR, LIST_META, META, MICROTIME, OBJECT_META, QUANTITY, TIME,
  atomicList, bool, int32, int64, obj, ref, refObj, str, strList, strMap, kindSchema,
} from './schema-dsl.js';

function withoutMetadata(s: SchemaObject): SchemaObject {
  const { metadata: _m, ...rest } = s.properties ?? {};
  return { ...s, properties: rest };
}

/** meta/v1, intstr, resource.Quantity and autoscaling/v1 Scale schemas. */
export function metaDefinitions(): SchemaDefinitions {
  return {
    [TIME]: { type: 'string', format: 'date-time', description: 'A timestamp in RFC 3339 form, with second precision.' },
    [MICROTIME]: { type: 'string', format: 'date-time', description: 'A timestamp in RFC 3339 form, with microsecond precision.' },
    [INT_OR_STRING]: {
      description: 'Either an integer or a string, e.g. a port number or a port name, or a count or a percentage.',
      format: 'int-or-string',
      oneOf: [{ type: 'integer' }, { type: 'string' }],
      'x-kubernetes-int-or-string': true,
    },
    [QUANTITY]: {
      description: 'An amount, written as a number with an optional suffix: "100m" CPU, "128Mi" memory, "1.5", "2e3".',
      oneOf: [{ type: 'string' }, { type: 'number' }],
      'x-kubernetes-int-or-string': true,
    },
    [OBJECT_META]: obj('Metadata every persisted object carries.', {
      annotations: strMap('Unstructured key/value data kept with the object, for tools and controllers. Not queryable.'),
      creationTimestamp: ref(TIME, 'When the server created this object. Read-only.'),
      deletionGracePeriodSeconds: int64('Seconds the object has left to terminate gracefully once deletion started. Read-only.'),
      deletionTimestamp: ref(TIME, 'When the object will be (or was asked to be) deleted. Set by the server on a graceful delete. Read-only.'),
      finalizers: {
        type: 'array',
        description: 'Names of finalizers that must be removed before the object is deleted from storage.',
        items: { type: 'string', default: '' },
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-patch-strategy': 'merge',
      },
      generateName: str('A prefix the server uses to generate a unique name when name is empty.'),
      generation: int64('A sequence number of changes to the desired state. Set by the server. Read-only.'),
      labels: strMap('Key/value pairs used to organize and select objects (label selectors).'),
      managedFields: atomicList(`${META}ManagedFieldsEntry`, 'Which field manager owns which fields. Maintained by the server.'),
      name: str('The name, unique within a namespace (or the cluster for cluster-scoped kinds). Cannot be updated.'),
      namespace: str('The namespace of a namespaced object. Empty for cluster-scoped kinds. Cannot be updated.'),
      ownerReferences: {
        type: 'array',
        description: 'Objects this object depends on. When all owners are deleted, the garbage collector deletes it.',
        items: refObj(`${META}OwnerReference`),
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
      resourceVersion: str('An opaque version of this object, changed on every write; used for optimistic concurrency and watches.'),
      selfLink: str('Deprecated and unused.'),
      uid: str('The unique id of this object over time. Set by the server. Read-only.'),
    }),
    [LIST_META]: obj('Metadata of a list response.', {
      continue: str('Token to fetch the next page when the list was limited.'),
      remainingItemCount: int64('How many items follow this page, when known.'),
      resourceVersion: str('The resource version the list was read at; start a watch from here.'),
      selfLink: str('Deprecated and unused.'),
    }),
    [`${META}OwnerReference`]: obj(
      'Identifies an owning object, which must be in the same namespace or cluster-scoped.',
      {
        apiVersion: str('API version of the owner.', { default: '' }),
        blockOwnerDeletion: bool('When true, the owner cannot be deleted in the foreground until this reference is removed.'),
        controller: bool('When true, this owner is the managing controller. At most one owner may be the controller.'),
        kind: str('Kind of the owner.', { default: '' }),
        name: str('Name of the owner.', { default: '' }),
        uid: str('UID of the owner.', { default: '' }),
      },
      { required: ['apiVersion', 'kind', 'name', 'uid'], 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${META}ManagedFieldsEntry`]: obj('The fields one manager owns, for server-side apply.', {
      apiVersion: str('Version of the resource the fields were written with.'),
      fieldsType: str('Format of fieldsV1; only "FieldsV1".'),
      fieldsV1: ref(`${META}FieldsV1`, 'The owned fields, as a set.'),
      manager: str('Name of the field manager.'),
      operation: str('"Apply" or "Update".'),
      subresource: str('Subresource the fields were written through, if any.'),
      time: ref(TIME, 'When the fields were last changed.'),
    }),
    [`${META}FieldsV1`]: { type: 'object', description: 'A set of field paths in the FieldsV1 trie encoding.', 'x-kubernetes-preserve-unknown-fields': true },
    [LABEL_SELECTOR]: obj(
      'A label query. An empty selector matches everything; a null selector matches nothing. All requirements are ANDed.',
      {
        matchExpressions: atomicList(`${META}LabelSelectorRequirement`, 'Requirements on label keys and values.'),
        matchLabels: strMap('Exact key=value matches, each equivalent to an In requirement with one value.'),
      },
      { 'x-kubernetes-map-type': 'atomic' },
    ),
    [`${META}LabelSelectorRequirement`]: obj(
      'A requirement on one label key.',
      {
        key: str('The label key.', { default: '' }),
        operator: str('In, NotIn, Exists or DoesNotExist.', { default: '' }),
        values: strList('Values for In and NotIn; must be empty for Exists and DoesNotExist.'),
      },
      { required: ['key', 'operator'] },
    ),
    [`${META}Condition`]: obj(
      'One aspect of the current state of an object.',
      {
        lastTransitionTime: ref(TIME, 'When the condition last changed status.'),
        message: str('Human-readable details.', { default: '' }),
        observedGeneration: int64('The generation the condition was computed for.'),
        reason: str('CamelCase reason for the last transition.', { default: '' }),
        status: str('True, False or Unknown.', { default: '' }),
        type: str('Condition type in CamelCase.', { default: '' }),
      },
      { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
    ),
    [`${META}Status`]: kindSchema('', 'v1', 'Status', 'The result of an operation that does not return an object.', {
      code: int32('HTTP status code.'),
      details: ref(`${META}StatusDetails`, 'Extended data about the failure.'),
      message: str('Human-readable description of the status.'),
      metadata: refObj(LIST_META, 'Standard list metadata.'),
      reason: str('Machine-readable reason, e.g. NotFound or AlreadyExists.'),
      status: str('"Success" or "Failure".'),
    }),
    [`${META}StatusDetails`]: obj('Details of a failure.', {
      causes: atomicList(`${META}StatusCause`, 'Individual causes, e.g. the invalid fields.'),
      group: str('Group of the resource.'),
      kind: str('Kind (or resource) concerned.'),
      name: str('Name of the object concerned.'),
      retryAfterSeconds: int32('Seconds to wait before retrying.'),
      uid: str('UID of the object concerned.'),
    }),
    [`${META}StatusCause`]: obj('One cause of a failure.', {
      field: str('The field concerned, e.g. "spec.containers[0].name".'),
      message: str('Human-readable description.'),
      reason: str('Machine-readable cause, e.g. FieldValueInvalid.'),
    }),
    [`${META}DeleteOptions`]: withoutMetadata(
      kindSchema('', 'v1', 'DeleteOptions', 'Options of a delete request.', {
        dryRun: strList('"All" to run every stage without persisting.'),
        gracePeriodSeconds: int64('Seconds before the object is deleted; 0 deletes immediately.'),
        orphanDependents: bool('Deprecated: use propagationPolicy.'),
        preconditions: ref(`${META}Preconditions`, 'Must hold for the deletion to proceed, else 409 Conflict.'),
        propagationPolicy: str('Orphan, Background or Foreground garbage collection of dependents.'),
      }),
    ),
    [`${META}Preconditions`]: obj('Conditions on the current object for a delete to proceed.', {
      resourceVersion: str('The expected resourceVersion.'),
      uid: str('The expected UID.'),
    }),
    [`${META}Patch`]: { type: 'object', description: 'The body of a PATCH request: a JSON patch, merge patch, strategic merge patch or apply configuration.' },
    'io.k8s.api.autoscaling.v1.Scale': kindSchema('autoscaling', 'v1', 'Scale', 'The scale subresource of a scalable resource.', {
      spec: refObj('io.k8s.api.autoscaling.v1.ScaleSpec', 'The desired scale.'),
      status: ref('io.k8s.api.autoscaling.v1.ScaleStatus', 'The observed scale. Read-only.'),
    }),
    'io.k8s.api.autoscaling.v1.ScaleSpec': obj('Desired scale.', { replicas: int32('The desired number of instances.') }),
    'io.k8s.api.autoscaling.v1.ScaleStatus': obj(
      'Observed scale.',
      {
        replicas: int32('The observed number of instances.', { default: 0 }),
        selector: str('The label query over the scaled pods, in string form.'),
      },
      { required: ['replicas'] },
    ),
  };
}

