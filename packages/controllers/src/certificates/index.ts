export {
  CertificateSigningRequests,
  CSR_CLEANER_DEADLINES,
  CSR_CLEANER_POLL_MS,
  DEFAULT_CLUSTER_SIGNING_DURATION_MS,
  KUBE_APISERVER_CLIENT_SIGNER,
  createCsrCleanerController,
  createCsrSigningController,
  csrCleanupDeadline,
  type CsrCleanerControllerOptions,
  type CsrSigningControllerOptions,
} from './controller.js';
export { BACKDATE_MS, createClientCertificateRequest, issueClientCertificate, kubeApiServerClientUsagesError, loadSigningCa, signRequest, type ClientCertificateOptions, type SignOptions, type SigningCa } from './sign.js';
