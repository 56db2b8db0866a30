/** Selecting requests by verb, resource, subresource, namespace, name and client. */
import type { RequestInfo, Verb } from './request-info.js';

/** One field's filter: a value, any of several, a pattern, or a predicate. */
export type FieldMatch = string | readonly string[] | RegExp | ((value: string) => boolean);

/**
 * Which requests a rule (or a recorder query) applies to; every field given must match, an
 * absent field matches anything. `subresource: ''` selects the main resource only; `resource`
 * is the plural name ("configmaps"), `who` the name a transport was wrapped with.
 */
export interface RequestMatch {
  verb?: Verb | string | readonly (Verb | string)[] | RegExp | ((verb: string) => boolean);
  group?: FieldMatch;
  resource?: FieldMatch;
  subresource?: FieldMatch;
  namespace?: FieldMatch;
  name?: FieldMatch;
  who?: FieldMatch;
}

function fieldMatches(m: FieldMatch | undefined, value: string): boolean {
  if (m === undefined) return true;
  if (typeof m === 'string') return m === value;
  if (typeof m === 'function') return m(value);
  if (m instanceof RegExp) {
    m.lastIndex = 0;
    return m.test(value);
  }
  return m.includes(value);
}

/** Whether a request (read by describeRequest, sent by `who`) is selected by `m`. */
export function requestMatches(m: RequestMatch, info: RequestInfo, who: string): boolean {
  return (
    fieldMatches(m.verb as FieldMatch | undefined, info.verb) &&
    fieldMatches(m.group, info.group) &&
    fieldMatches(m.resource, info.resource) &&
    fieldMatches(m.subresource, info.subresource) &&
    fieldMatches(m.namespace, info.namespace) &&
    fieldMatches(m.name, info.name) &&
    fieldMatches(m.who, who)
  );
}
