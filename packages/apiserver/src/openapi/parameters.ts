/** The query and path parameters kube-apiserver documents on its REST operations. */

/** One OpenAPI 3 parameter. */
export interface Parameter {
  name: string;
  in: 'query' | 'path';
  description: string;
  required?: boolean;
  schema: { type: string; uniqueItems: true };
}

function q(name: string, type: string, description: string): Parameter {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

function p(name: string, description: string): Parameter {
  return { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } };
}

const P = {
  allowWatchBookmarks: q('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers may ignore it.'),
  continue: q('continue', 'string', 'The continue token of a previous, limited list, to fetch the next page.'),
  dryRun: q('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed'),
  fieldManager: q('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  fieldSelector: q('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  fieldValidation: q(
    'fieldValidation',
    'string',
    'fieldValidation determines how the server should respond to unknown/duplicate fields in the object in the request. Valid values are: - Ignore: ignores unknown/duplicate fields. - Warn: responds with a warning for each unknown/duplicate field, but successfully serves the request. - Strict: fails the request on unknown/duplicate fields.',
  ),
  force: q('force', 'boolean', 'Force is going to "force" Apply requests: the user re-acquires conflicting fields owned by other managers. Must be unset for non-apply patches.'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted. Zero means delete immediately.'),
  labelSelector: q('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  limit: q('limit', 'integer', 'limit is a maximum number of responses to return for a list call; a continue token is returned when more exist.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy.'),
  pretty: q('pretty', 'string', "If 'true', then the output is pretty printed."),
  propagationPolicy: q('propagationPolicy', 'string', "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'."),
  resourceVersion: q('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  resourceVersionMatch: q('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  sendInitialEvents: q('sendInitialEvents', 'boolean', 'With watch, sends synthetic ADDED events for the current state first, then a bookmark.'),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  watch: q('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
};

/** Parameters of each action. */
export const ACTION_PARAMETERS: Record<string, Parameter[]> = {
  list: [P.allowWatchBookmarks, P.continue, P.fieldSelector, P.labelSelector, P.limit, P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds, P.watch],
  post: [P.dryRun, P.fieldManager, P.fieldValidation],
  put: [P.dryRun, P.fieldManager, P.fieldValidation],
  patch: [P.dryRun, P.fieldManager, P.fieldValidation, P.force],
  delete: [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy],
  deletecollection: [
    P.continue, P.dryRun, P.fieldSelector, P.gracePeriodSeconds, P.labelSelector, P.limit, P.orphanDependents, P.propagationPolicy,
    P.resourceVersion, P.resourceVersionMatch, P.sendInitialEvents, P.timeoutSeconds,
  ],
  get: [],
};

/** Path-level parameters: {name}, {namespace} and pretty. */
export function pathParameters(kind: string, named: boolean, namespaced: boolean): Parameter[] {
  const out: Parameter[] = [];
  if (named) out.push(p('name', `name of the ${kind}`));
  if (namespaced) out.push(p('namespace', 'object name and auth scope, such as for teams and projects'));
  out.push(P.pretty);
  return out;
}
