/**
 * The ServiceAccount token controller (kube-controller-manager's serviceaccount-token
 * controller): every Secret of type `kubernetes.io/service-account-token` whose
 * `kubernetes.io/service-account.name` annotation names an existing ServiceAccount gets
 * `data.token` (a legacy, non-expiring token signed by the API server's key), `data["ca.crt"]`
 * and `data.namespace`, and the `kubernetes.io/service-account.uid` annotation; a Secret whose
 * ServiceAccount is gone (or was recreated, another uid) is deleted.
 */
import { ApiError } from '@kplane/api';
import { Secrets, ServiceAccounts, type Controller, type Manager, type Secret, type ServiceAccount } from '@kplane/runtime';

/** The controller's name, as kube-controller-manager's. */
export const TOKENS_CONTROLLER_NAME = 'serviceaccount-token';
/** The Secret type the controller fills. */
export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
/** The annotation naming a token Secret's ServiceAccount. */
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
/** The annotation holding the uid of a token Secret's ServiceAccount. */
export const SERVICE_ACCOUNT_UID_ANNOTATION = 'kubernetes.io/service-account.uid';

/** What a legacy token says. */
export interface LegacyTokenClaims {
  namespace: string;
  secretName: string;
  serviceAccount: { name: string; uid: string };
}

/** Options of createTokensController. */
export interface TokensControllerOptions {
  manager: Manager;
  /** Signs a legacy token (the API server's ServiceAccount signing key). */
  generateToken(claims: LegacyTokenClaims): Promise<string>;
  /** The CA bundle written to `ca.crt` (PEM). */
  rootCA: string;
  /** Secrets processed at once (default 1). */
  workers?: number;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/**
 * Creates the token controller and registers it with the manager. A ServiceAccount's change or
 * deletion requeues the token Secrets that name it.
 */
export function createTokensController(options: TokensControllerOptions): Controller {
  const { manager } = options;
  const secrets = manager.factory.informerFor<Secret>(Secrets);
  const accounts = manager.factory.informerFor<ServiceAccount>(ServiceAccounts);
  const secretApi = manager.client.resource(Secrets);
  const accountApi = manager.client.resource(ServiceAccounts);
  const isToken = (s: Secret | undefined) => s?.type === SERVICE_ACCOUNT_TOKEN_TYPE;

  /** The ServiceAccount from the cache, else from the API (a just-created one the cache has not seen). */
  async function account(namespace: string, name: string, signal: AbortSignal): Promise<ServiceAccount | undefined> {
    const cached = accounts.store.get(`${namespace}/${name}`);
    if (cached) return cached;
    try {
      return await accountApi.get(name, { namespace, signal });
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
  }

  return manager
    .controller()
    .named(TOKENS_CONTROLLER_NAME)
    .for(Secrets, { predicates: [(change) => isToken(change.object as Secret)] })
    .watches<ServiceAccount>(ServiceAccounts, (sa) => {
      const ns = sa.metadata?.namespace ?? '';
      return secrets.store
        .list()
        .filter((s) => isToken(s) && s.metadata?.namespace === ns && s.metadata?.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION] === sa.metadata?.name)
        .map((s) => ({ namespace: ns, name: s.metadata!.name! }));
    })
    .withOptions({ maxConcurrentReconciles: options.workers ?? 1 })
    .complete(async (request, { signal }) => {
      const secret = secrets.store.get(`${request.namespace}/${request.name}`);
      if (!isToken(secret) || secret!.metadata?.deletionTimestamp) return;
      const ns = request.namespace;
      const annotations = secret!.metadata?.annotations ?? {};
      const saName = annotations[SERVICE_ACCOUNT_NAME_ANNOTATION];
      if (!saName) return;
      const sa = await account(ns, saName, signal);
      const uidAnnotation = annotations[SERVICE_ACCOUNT_UID_ANNOTATION];
      if (!sa || (uidAnnotation && uidAnnotation !== sa.metadata?.uid)) {
        try {
          await secretApi.delete(request.name, { namespace: ns, preconditions: { uid: secret!.metadata!.uid! }, signal });
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
        }
        return;
      }
      const data = (secret!.data ?? {}) as Record<string, string>;
      const uid = sa.metadata!.uid!;
      const needsToken = !data.token;
      const needsCA = data['ca.crt'] !== b64(options.rootCA);
      const needsNamespace = data.namespace !== b64(ns);
      const needsUid = uidAnnotation !== uid;
      if (!needsToken && !needsCA && !needsNamespace && !needsUid) return;
      const next = structuredClone(secret!) as Secret;
      const nextData: Record<string, string> = { ...data };
      if (needsToken) nextData.token = b64(await options.generateToken({ namespace: ns, secretName: request.name, serviceAccount: { name: saName, uid } }));
      nextData['ca.crt'] = b64(options.rootCA);
      nextData.namespace = b64(ns);
      next.data = nextData;
      next.metadata = { ...next.metadata, annotations: { ...annotations, [SERVICE_ACCOUNT_UID_ANNOTATION]: uid } };
      try {
        await secretApi.update(next, { namespace: ns, signal });
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) return;
        throw err; // a conflict: retried with the newer Secret
      }
    });
}
