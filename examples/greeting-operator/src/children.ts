/**
 * What the operator wants to exist for a Greeting, as pure functions: the Deployment, the
 * Service and the Ingress it applies (only the fields it owns), the status it writes, and the
 * check that tells whether a live object already holds every field it would apply.
 */
import { setStatusCondition, type ApplyConfiguration, type Condition, type Deployment, type Ingress, type OwnerReference, type Service } from '@kplane/runtime';
import { Greetings, type Greeting, type GreetingStatusFields } from './kind.js';

/** The app every Greeting runs (the value of `app.kubernetes.io/name`). */
export const APP_NAME = 'hello';
/** The image of the app; a Greeting's spec.version is its tag. */
export const IMAGE = 'ghcr.io/example/hello';
/** The field manager of every write the operator makes by server-side apply. */
export const FIELD_MANAGER = 'greeting-operator';

/** The labels of a Greeting's children and of their pods. */
export function labelsFor(g: Greeting): Record<string, string> {
  return { 'app.kubernetes.io/name': APP_NAME, 'app.kubernetes.io/instance': g.metadata!.name! };
}

/** The label selector of a Greeting's pods as a string (status.selector, read by /scale). */
export function selectorFor(g: Greeting): string {
  return `app.kubernetes.io/instance=${g.metadata!.name!}`;
}

/** The owner reference that makes the Greeting the managing owner of a child. */
export function ownerReferenceTo(g: Greeting): OwnerReference {
  return {
    apiVersion: `${Greetings.group}/${Greetings.version}`,
    kind: Greetings.kind!,
    name: g.metadata!.name!,
    uid: g.metadata!.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function metadataFor(g: Greeting) {
  return { name: g.metadata!.name!, namespace: g.metadata!.namespace!, labels: labelsFor(g), ownerReferences: [ownerReferenceTo(g)] };
}

/** The Deployment of a Greeting: spec.replicas pods of the image at spec.version, greeting with spec.message. */
export function desiredDeployment(g: Greeting): ApplyConfiguration<Deployment> {
  const labels = labelsFor(g);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: metadataFor(g),
    spec: {
      replicas: g.spec.replicas ?? 2,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: APP_NAME,
              image: `${IMAGE}:${g.spec.version}`,
              env: [{ name: 'GREETING', value: g.spec.message ?? 'hello' }],
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
            },
          ],
        },
      },
    },
  };
}

/** The Service of a Greeting: port 80 to the pods' http port. */
export function desiredService(g: Greeting): ApplyConfiguration<Service> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metadataFor(g),
    spec: { selector: labelsFor(g), ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] },
  };
}

/** The Ingress of a Greeting: spec.host (every host when there is none), path / to the Service. */
export function desiredIngress(g: Greeting): ApplyConfiguration<Ingress> {
  const http = { paths: [{ path: '/', pathType: 'Prefix' as const, backend: { service: { name: g.metadata!.name!, port: { number: 80 } } } }] };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: metadataFor(g),
    spec: { rules: [g.spec.host ? { host: g.spec.host, http } : { http }] },
  };
}

/**
 * The status of a Greeting whose Deployment reports `readyReplicas`: the count, the selector,
 * the URL, the generation seen, and a Ready condition ("2/2 replicas ready") whose
 * lastTransitionTime moves only when its status does (kept from `g.status`).
 */
export function desiredStatus(g: Greeting, readyReplicas: number, now: number): GreetingStatusFields {
  const want = g.spec.replicas ?? 2;
  const generation = g.metadata?.generation ?? 0;
  const conditions = (g.status?.conditions ?? []).map((c) => ({ ...c })) as Condition[];
  setStatusCondition(
    conditions,
    {
      type: 'Ready',
      status: readyReplicas === want ? 'True' : 'False',
      reason: 'DeploymentStatus',
      message: `${readyReplicas}/${want} replicas ready`,
      observedGeneration: generation,
    },
    now,
  );
  // Only Ready: under server-side apply, a condition another writer set stays theirs.
  const ready = conditions.filter((c) => c.type === 'Ready');
  const status: GreetingStatusFields = { readyReplicas, selector: selectorFor(g), observedGeneration: generation, conditions: ready };
  if (g.spec.host) status.url = `https://${g.spec.host}`;
  return status;
}

/**
 * True when `live` already holds every field of `desired` with the same value (arrays of the
 * same length, element by element): applying `desired` would change nothing the operator owns,
 * so it can skip the request and write nothing once the world is as it wants.
 */
export function covers(live: unknown, desired: unknown): boolean {
  if (desired === undefined) return true;
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length && desired.every((d, i) => covers(live[i], d));
  }
  if (typeof desired === 'object' && desired !== null) {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    return Object.entries(desired).every(([k, v]) => covers((live as Record<string, unknown>)[k], v));
  }
  return live === desired;
}

/** True when `g`'s stored status already is `status` (the fields the operator owns, its Ready condition included). */
export function statusCovered(g: Greeting, status: GreetingStatusFields): boolean {
  const { url, conditions = [], ...rest } = status;
  const stored = g.status ?? {};
  if (stored.url !== url || !covers(stored, rest)) return false;
  return conditions.every((c) => covers(stored.conditions?.find((s) => s.type === c.type), c));
}
