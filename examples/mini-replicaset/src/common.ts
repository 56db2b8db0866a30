/**
 * What both versions of the mini-replicaset share, on Node's standard library only: the labels
 * and fields of the course, the pods it creates, the rule that picks the pods to delete,
 * the status annotation of exercise 4, the command line and the log lines (English, or the
 * course's French with `--lang fr`).
 */
import { parseArgs } from 'node:util';

/** The label that makes a ConfigMap a desired state for this controller (`cours/mini-rs=oui`). */
export const WANT_LABEL = 'cours/mini-rs';
/** The label selector of the ConfigMaps this controller reads. */
export const WANT_SELECTOR = `${WANT_LABEL}=oui`;
/** The label every pod carries, its value the name of the ConfigMap that wants it. */
export const OWNER_LABEL = 'cours/proprietaire';
/** The ConfigMap field that holds the desired number of pods. */
export const REPLICAS_FIELD = 'repliques';
/** The annotation of exercise 4: ready pods / wanted pods, e.g. `3/3`. */
export const STATUS_ANNOTATION = 'cours/pods';
/** The Lease that the copies of the SDK version elect a leader on (`--leader-elect`). */
export const LEASE_NAME = 'mini-replicaset';

/** The object metadata this controller reads. */
export interface Meta {
  name?: string;
  uid?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
}

/** A ConfigMap, as far as this controller reads it. */
export interface WantLike {
  metadata?: Meta;
  data?: Record<string, string>;
}

/** A pod, as far as this controller reads it. */
export interface PodLike {
  metadata?: Meta;
  status?: { conditions?: { type: string; status: string }[] };
}

/** The pods that count for the ConfigMap `name`: its label, and not already being deleted. */
export function podsOf<P extends PodLike>(pods: Iterable<P>, name: string): P[] {
  return [...pods].filter((p) => p.metadata?.labels?.[OWNER_LABEL] === name && !p.metadata?.deletionTimestamp);
}

/** The desired count of a ConfigMap (`data.repliques`, 0 when absent); throws when it is not a count. */
export function desiredCount(cm: WantLike): number {
  const raw = cm.data?.[REPLICAS_FIELD] ?? '0';
  if (!/^\s*\d+\s*$/.test(raw)) throw new Error(`data.${REPLICAS_FIELD} is not a number of pods: "${raw}"`);
  return Number(raw);
}

/** A pod for the ConfigMap `cm`: generated name, the owner label, and cm as its controller owner. */
export function podFor(cm: WantLike): { apiVersion: 'v1'; kind: 'Pod'; metadata: Meta & { generateName: string; ownerReferences: object[] }; spec: object } {
  const name = cm.metadata!.name!;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${name}-`,
      labels: { [OWNER_LABEL]: name },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: cm.metadata!.uid!, controller: true, blockOwnerDeletion: true }],
    },
    spec: { containers: [{ name: 'c', image: 'registry.k8s.io/e2e-test-images/agnhost:2.61', args: ['pause'] }] },
  };
}

/** The pods to delete to keep `want`: all but the `want` oldest (creationTimestamp; ties keep their order). */
export function surplus<P extends PodLike>(pods: P[], want: number): P[] {
  const ts = (p: P) => p.metadata?.creationTimestamp ?? '';
  return [...pods].sort((a, b) => (ts(a) < ts(b) ? -1 : ts(a) > ts(b) ? 1 : 0)).slice(want);
}

/** Exercise 4's status: pods whose Ready condition is True, over the desired count (`2/3`). */
export function statusOf(pods: PodLike[], want: number): string {
  const ready = pods.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  return `${ready}/${want}`;
}

/** The status annotation to write, or undefined when the ConfigMap already shows it (no write, no loop). */
export function statusPatch(cm: WantLike, status: string): { metadata: { annotations: Record<string, string> } } | undefined {
  if (cm.metadata?.annotations?.[STATUS_ANNOTATION] === status) return undefined;
  return { metadata: { annotations: { [STATUS_ANNOTATION]: status } } };
}

/** The command line of both versions. */
export interface Options {
  /** The namespace to work in (default `default`). */
  namespace: string;
  /** Write the status annotation (exercise 4). */
  status: boolean;
  /** Act only while holding the Lease `mini-replicaset` (SDK version). */
  leaderElect: boolean;
  /** The `kubectl proxy` URL (bare version; default http://127.0.0.1:8001). */
  proxy: string;
  lang: 'en' | 'fr';
}

/** Parses `[NAMESPACE] [--status] [--leader-elect] [--proxy URL] [--lang en|fr]`; LANG=fr… also picks French. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): Options {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      status: { type: 'boolean', default: false },
      'leader-elect': { type: 'boolean', default: false },
      proxy: { type: 'string', default: 'http://127.0.0.1:8001' },
      lang: { type: 'string' },
    },
  });
  const lang = values.lang ?? (/^fr/i.test(env.LC_ALL || env.LANG || '') ? 'fr' : 'en');
  if (lang !== 'en' && lang !== 'fr') throw new Error(`--lang: en or fr, not ${lang}`);
  if (positionals.length > 1) throw new Error(`one namespace at most, not ${positionals.join(' ')}`);
  return { namespace: positionals[0] ?? 'default', status: values.status, leaderElect: values['leader-elect'], proxy: values.proxy.replace(/\/+$/, ''), lang };
}

/** The local time of day, HH:MM:SS, that starts each action line. */
export function clockTime(d = new Date()): string {
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** The log lines, in one language. */
export interface Messages {
  started(namespace: string): string;
  creating(name: string, have: number, want: number, pod: string): string;
  deleting(name: string, have: number, want: number, pod: string): string;
  status(name: string, status: string): string;
  failed(name: string, err: unknown): string;
  leading(lease: string, identity: string): string;
}

const text = (err: unknown) => (err instanceof Error ? err.message : String(err));

const MESSAGES: Record<Options['lang'], Messages> = {
  en: {
    started: (ns) => `controller started in ${ns}`,
    creating: (name, have, want, pod) => `${clockTime()} ${name}: ${have} pod(s) for ${want} wanted, creating ${pod}`,
    deleting: (name, have, want, pod) => `${clockTime()} ${name}: ${have} pod(s) for ${want} wanted, deleting ${pod}`,
    status: (name, s) => `${clockTime()} ${name}: status ${s}`,
    failed: (name, err) => `${clockTime()} ${name}: error: ${text(err)}`,
    leading: (lease, id) => `${clockTime()} leader: lease ${lease} held as ${id}`,
  },
  fr: {
    started: (ns) => `contrôleur démarré dans ${ns}`,
    creating: (name, have, want, pod) => `${clockTime()} ${name} : ${have} Pod(s) pour ${want} voulus, je crée ${pod}`,
    deleting: (name, have, want, pod) => `${clockTime()} ${name} : ${have} Pod(s) pour ${want} voulus, je supprime ${pod}`,
    status: (name, s) => `${clockTime()} ${name} : statut ${s}`,
    failed: (name, err) => `${clockTime()} ${name} : erreur : ${text(err)}`,
    leading: (lease, id) => `${clockTime()} leader : bail ${lease} détenu par ${id}`,
  },
};

/** The log lines of `lang`. */
export function messages(lang: Options['lang']): Messages {
  return MESSAGES[lang];
}
