/**
 * kube-controller-manager's certificate controllers: `certificatesigningrequest-signing-controller`
 * (the `kubernetes.io/kube-apiserver-client` signer) and `certificatesigningrequest-cleaner-controller`
 * (csrcleaner), on the runtime SDK.
 */
import { ApiError, rfc3339 } from '@kplane/api';
import { Action, kindDescriptor, type CertificateSigningRequest, type CertificateSigningRequestCondition, type Controller, type Manager } from '@kplane/runtime';
import { certificateNotAfter, kubeApiServerClientUsagesError, signRequest, type SigningCa } from './sign.js';

/** certificates.k8s.io/v1 certificatesigningrequests. */
export const CertificateSigningRequests = kindDescriptor<CertificateSigningRequest>({
  group: 'certificates.k8s.io',
  version: 'v1',
  resource: 'certificatesigningrequests',
  kind: 'CertificateSigningRequest',
  namespaced: false,
});

/** The signer of client certificates the API server accepts. */
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

/** kube-controller-manager's --cluster-signing-duration default: one year. */
export const DEFAULT_CLUSTER_SIGNING_DURATION_MS = 365 * 24 * 3600 * 1000;

/** How often the csrcleaner looks at a CSR at least (kube-controller-manager's polling interval). */
export const CSR_CLEANER_POLL_MS = 3600_000;

/** The csrcleaner's deadlines. */
export const CSR_CLEANER_DEADLINES = { approvedMs: 3600_000, deniedMs: 3600_000, pendingMs: 24 * 3600_000 } as const;

function hasTrue(csr: CertificateSigningRequest, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** Options of createCsrSigningController. */
export interface CsrSigningControllerOptions {
  manager: Manager;
  /** The CA that signs (kube-controller-manager's --cluster-signing-cert-file / -key-file). */
  ca: SigningCa;
  /** The longest validity given (--cluster-signing-duration, default one year). */
  durationMs?: number;
}

/**
 * The kube-apiserver-client signer: an Approved, not Failed CSR for
 * `kubernetes.io/kube-apiserver-client` without a certificate gets one in status.certificate,
 * signed by the CA, valid for spec.expirationSeconds capped by `durationMs`. Usages other than
 * "client auth" (required), "digital signature" and "key encipherment" get a Failed condition
 * (reason SignerValidationFailure). Pending, Denied, Failed and issued CSRs, and other signers'
 * CSRs, are left alone.
 */
export function createCsrSigningController(options: CsrSigningControllerOptions): Controller {
  const { manager, ca } = options;
  const maxMs = options.durationMs ?? DEFAULT_CLUSTER_SIGNING_DURATION_MS;
  const csrs = manager.factory.informerFor<CertificateSigningRequest>(CertificateSigningRequests);
  const api = manager.client.resource(CertificateSigningRequests);
  return manager
    .controller()
    .named('csrsigning')
    .for(CertificateSigningRequests)
    .complete(async ({ name }, { signal }) => {
      const cached = csrs.store.get(name);
      if (!cached || cached.status?.certificate) return Action.awaitChange();
      if (!hasTrue(cached, 'Approved') || hasTrue(cached, 'Failed')) return Action.awaitChange();
      if (cached.spec?.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return Action.awaitChange();
      const csr = structuredClone(cached) as CertificateSigningRequest;
      const conditions: CertificateSigningRequestCondition[] = csr.status?.conditions ?? [];
      const status = (csr.status ??= {});
      const usagesError = kubeApiServerClientUsagesError(csr.spec?.usages ?? []);
      if (usagesError) {
        status.conditions = [
          ...conditions,
          { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: usagesError, lastUpdateTime: rfc3339(manager.clock.now()) },
        ];
      } else {
        const exp = csr.spec?.expirationSeconds;
        const durationMs = typeof exp === 'number' ? Math.min(exp * 1000, maxMs) : maxMs;
        const request = Buffer.from(csr.spec.request, 'base64').toString('latin1');
        let pem: string;
        try {
          pem = await signRequest(ca, { request, usages: csr.spec?.usages ?? [], durationMs, now: new Date(manager.clock.now()) });
        } catch (err) {
          throw new Error(`error auto signing csr: ${err instanceof Error ? err.message : String(err)}`);
        }
        status.certificate = Buffer.from(pem).toString('base64');
      }
      try {
        await api.updateStatus(csr, { signal });
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) return Action.awaitChange();
        throw err;
      }
      return Action.awaitChange();
    });
}

/**
 * When the csrcleaner deletes a CSR (epoch ms), or undefined for never: an issued certificate
 * once it expired or an hour after approval, a Denied or Failed CSR an hour after that
 * condition was written, a CSR with no condition at all 24 hours after its creation.
 */
export function csrCleanupDeadline(csr: Pick<CertificateSigningRequest, 'metadata' | 'status'>): number | undefined {
  const deadlines: number[] = [];
  const at = (t: string | undefined) => (t ? Date.parse(t) : NaN);
  const conditions = csr.status?.conditions ?? [];
  const issued = !!csr.status?.certificate;
  if (conditions.length === 0) {
    const created = at(csr.metadata?.creationTimestamp);
    if (!Number.isNaN(created)) deadlines.push(created + CSR_CLEANER_DEADLINES.pendingMs);
  }
  for (const c of conditions) {
    const updated = at(c.lastUpdateTime);
    if (c.type === 'Denied' && !Number.isNaN(updated)) deadlines.push(updated + CSR_CLEANER_DEADLINES.deniedMs);
    if (c.type === 'Failed' && !Number.isNaN(updated)) deadlines.push(updated + CSR_CLEANER_DEADLINES.deniedMs);
    if (c.type === 'Approved' && issued) {
      if (!Number.isNaN(updated)) deadlines.push(updated + CSR_CLEANER_DEADLINES.approvedMs);
      const notAfter = certificateNotAfter(Buffer.from(csr.status!.certificate!, 'base64').toString('latin1'));
      if (notAfter) deadlines.push(notAfter.getTime());
    }
  }
  return deadlines.length ? Math.min(...deadlines) : undefined;
}

/** Options of createCsrCleanerController. */
export interface CsrCleanerControllerOptions {
  manager: Manager;
  /** Told of each deletion (default: nothing). */
  log?: (message: string) => void;
}

/**
 * The csrcleaner: deletes each CSR at its csrCleanupDeadline, on the manager's clock (a CSR is
 * looked at again when it changes or when its deadline comes).
 */
export function createCsrCleanerController(options: CsrCleanerControllerOptions): Controller {
  const { manager } = options;
  const csrs = manager.factory.informerFor<CertificateSigningRequest>(CertificateSigningRequests);
  const api = manager.client.resource(CertificateSigningRequests);
  return manager
    .controller()
    .named('csrcleaner')
    .for(CertificateSigningRequests)
    .complete(async ({ name }, { signal }) => {
      const csr = csrs.store.get(name);
      if (!csr || csr.metadata?.deletionTimestamp) return Action.awaitChange();
      const deadline = csrCleanupDeadline(csr);
      if (deadline === undefined) return Action.awaitChange();
      const now = manager.clock.now();
      // Looked at again at its deadline, and at least hourly (kube's polling interval), which
      // also keeps every timer far below the 24.8 days a JavaScript timer can wait.
      if (now < deadline) return Action.requeue(Math.min(deadline - now, CSR_CLEANER_POLL_MS));
      try {
        await api.delete(name, { signal, preconditions: { uid: csr.metadata?.uid } });
        options.log?.(`cleaned up certificate signing request ${name}`);
      } catch (err) {
        if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return Action.awaitChange();
        throw err;
      }
      return Action.awaitChange();
    });
}
