/**
 * The flags `kplane scheduler` and `kplane controller-manager` share with kube-scheduler and
 * kube-controller-manager: leader election and the secure serving of /metrics and /healthz.
 */
import { readFile } from 'node:fs/promises';
import { createCa, issueCertificate } from '@kplane/apiserver';
import { parseDuration } from './duration.js';

/** parseArgs options of the leader election flags (a bare `--leader-elect` must be normalised to `=true` first). */
export const LEADER_ELECTION_FLAGS = {
  'leader-elect': { type: 'string', default: 'true' },
  'leader-elect-lease-duration': { type: 'string', default: '15s' },
  'leader-elect-renew-deadline': { type: 'string', default: '10s' },
  'leader-elect-retry-period': { type: 'string', default: '2s' },
} as const;

/** parseArgs options of the serving flags (each command has its own --secure-port default). */
export const SERVING_FLAGS = {
  'bind-address': { type: 'string', default: '127.0.0.1' },
  'tls-cert-file': { type: 'string' },
  'tls-private-key-file': { type: 'string' },
  'client-ca-file': { type: 'string' },
} as const;

/** A `true`/`false` flag's value; throws a one-line error naming the flag for anything else. */
export function booleanFlag(flag: string, value: string | undefined): boolean {
  if (value !== 'true' && value !== 'false') throw new Error(`--${flag}: must be true or false, not ${value}`);
  return value === 'true';
}

/** Reads the leader election flags: whether to elect, and the lease timing. */
export function leaderElectionSettings(values: { [K in keyof typeof LEADER_ELECTION_FLAGS]?: string }): {
  leaderElect: boolean;
  timing: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
} {
  return {
    leaderElect: booleanFlag('leader-elect', values['leader-elect']),
    timing: {
      leaseDurationMs: parseDuration('--leader-elect-lease-duration', values['leader-elect-lease-duration'] ?? '15s'),
      renewDeadlineMs: parseDuration('--leader-elect-renew-deadline', values['leader-elect-renew-deadline'] ?? '10s'),
      retryPeriodMs: parseDuration('--leader-elect-retry-period', values['leader-elect-retry-period'] ?? '2s'),
    },
  };
}

/** The values parseArgs gives for SERVING_FLAGS. */
export type ServingFlagValues = { [K in keyof typeof SERVING_FLAGS]?: string };

/** Throws unless --tls-cert-file and --tls-private-key-file come together (or neither). */
export function checkServingFlags(values: ServingFlagValues): void {
  if (Boolean(values['tls-cert-file']) !== Boolean(values['tls-private-key-file'])) {
    throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
  }
}

/**
 * The serving certificate and key (from --tls-cert-file, or as kube's components without it a
 * self-signed one for loopback, from a fresh CA named `caName`) and the CA that verifies client
 * certificates (--client-ca-file, else the kubeconfig's CA).
 */
export async function servingCredentials(values: ServingFlagValues, caName: string, kubeCa: string | Uint8Array | undefined): Promise<{ cert: string; key: string; clientCa?: string }> {
  let cert: string;
  let key: string;
  if (values['tls-cert-file']) {
    cert = await readFile(values['tls-cert-file'], 'utf8');
    key = await readFile(values['tls-private-key-file']!, 'utf8');
  } else {
    const ca = await createCa(caName);
    ({ cert, key } = await issueCertificate(ca, { subject: 'CN=localhost', usage: 'server', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'] }));
  }
  const clientCa = values['client-ca-file'] ? await readFile(values['client-ca-file'], 'utf8') : caText(kubeCa);
  return { cert, key, clientCa };
}

/** A kubeconfig CA as PEM text. */
export function caText(ca: string | Uint8Array | undefined): string | undefined {
  return ca === undefined ? undefined : typeof ca === 'string' ? ca : Buffer.from(ca).toString('utf8');
}
