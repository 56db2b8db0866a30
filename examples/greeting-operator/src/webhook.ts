/**
 * The Greeting's admission webhooks, served by the SDK's webhook server: a defaulter that
 * tidies what a person types, and a validator for what the CRD's schema and CEL rules cannot
 * see — other objects of the cluster.
 */
import type { AdmissionWarnings, CustomDefaulter, CustomValidator } from '@kplane/runtime';
import type { Greeting } from './kind.js';

/**
 * Tidies a Greeting before the API server validates it: a version written `v1.2` becomes `1.2`
 * (the image tags have no `v`), a host is lower-cased and loses a trailing dot.
 */
export const greetingDefaulter: CustomDefaulter<Greeting> = {
  default(g) {
    if (!g.spec) return;
    if (typeof g.spec.version === 'string') g.spec.version = g.spec.version.trim().replace(/^v(?=\d)/, '');
    if (typeof g.spec.host === 'string') g.spec.host = g.spec.host.trim().toLowerCase().replace(/\.$/, '');
  },
};

/**
 * Checks what needs the rest of the cluster: two Greetings cannot claim one host (each owns its
 * DNS record). Warns when a Greeting has no host (it is then reachable inside the cluster only).
 * `greetings` lists the Greetings known (the operator's cache).
 */
export function greetingValidator(greetings: () => Iterable<Greeting>): CustomValidator<Greeting> {
  const check = (g: Greeting): AdmissionWarnings => {
    const host = g.spec?.host;
    if (!host) return ['spec.host is not set: the Greeting gets no DNS record and is reachable inside the cluster only'];
    const me = `${g.metadata?.namespace}/${g.metadata?.name}`;
    for (const other of greetings()) {
      const them = `${other.metadata?.namespace}/${other.metadata?.name}`;
      if (them !== me && other.spec?.host === host && !other.metadata?.deletionTimestamp) {
        throw new Error(`spec.host: Duplicate value: "${host}": already used by Greeting ${them}`);
      }
    }
    return [];
  };
  return { validateCreate: check, validateUpdate: (_old, g) => check(g) };
}
