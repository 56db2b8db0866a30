/**
 * The root CA certificate publisher: keeps a `kube-root-ca.crt` ConfigMap holding the cluster
 * CA in every namespace, recreating it when deleted and restoring it when changed
 * (kube-controller-manager's root-ca-cert-publisher). Pods read it to verify the API server.
 */
import { isDeepStrictEqual } from 'node:util';
import { ApiError } from '@kplane/api';
import { ConfigMaps, Namespaces, type ConfigMap, type Controller, type Manager, type Namespace, type WatchChange } from '@kplane/runtime';

/** The name of the ConfigMap published in each namespace. */
export const ROOT_CA_CONFIGMAP_NAME = 'kube-root-ca.crt';
/** The annotation that describes the ConfigMap's use. */
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
/** The description Kubernetes writes into that annotation. */
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';
/** The name of the controller and of its workqueue, as in kube-controller-manager. */
export const ROOT_CA_QUEUE_NAME = 'root_ca_cert_publisher';

/** Options of createRootCACertPublisher. */
export interface RootCACertPublisherOptions {
  /** The manager that runs the controller. */
  manager: Manager;
  /** The cluster CA certificate (PEM) published as `ca.crt`. */
  rootCA: string;
  /** Namespaces processed at once (default 1). */
  workers?: number;
}

/** Is this the API server refusing because the namespace is gone or being terminated? */
function namespaceGone(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.code === 404) return true;
  return (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

/**
 * Creates the root CA certificate publisher and registers it with the manager.
 *
 * Guarantees: a namespace is reconciled when it is added, when it changes while Active, and
 * when its `kube-root-ca.crt` is updated or deleted; a missing ConfigMap is created, one whose
 * data or description annotation differ is updated (other fields are left as they are); a
 * create refused because the namespace is gone or terminating is not an error.
 */
export function createRootCACertPublisher(options: RootCACertPublisherOptions): Controller {
  const { manager, rootCA } = options;
  const configMaps = manager.factory.informerFor<ConfigMap>(ConfigMaps);
  const api = manager.client.resource(ConfigMaps);
  const data = { 'ca.crt': rootCA };
  return manager
    .controller()
    .named(ROOT_CA_QUEUE_NAME)
    .for<Namespace>(Namespaces, { predicates: [(c: WatchChange<Namespace>) => c.type === 'create' || (c.type === 'update' && c.object.status?.phase === 'Active')] })
    .watches<ConfigMap>(ConfigMaps, (cm) => (cm.metadata?.namespace ? [{ namespace: '', name: cm.metadata.namespace }] : []), {
      predicates: [(c) => c.type !== 'create' && c.object.metadata?.name === ROOT_CA_CONFIGMAP_NAME],
    })
    .withOptions({ maxConcurrentReconciles: options.workers ?? 1 })
    .complete(async (request, { signal }) => {
      const namespace = request.name;
      const current = configMaps.store.get(`${namespace}/${ROOT_CA_CONFIGMAP_NAME}`);
      if (!current) {
        try {
          await api.create(
            { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP_NAME, namespace, annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } }, data },
            { namespace, signal },
          );
        } catch (err) {
          if (namespaceGone(err)) return;
          throw err;
        }
        return;
      }
      if (isDeepStrictEqual(current.data ?? {}, data) && (current.metadata?.annotations?.[DESCRIPTION_ANNOTATION] ?? '') !== '') return;
      const next = structuredClone(current);
      next.data = { ...data };
      next.metadata = { ...next.metadata, annotations: { ...(next.metadata?.annotations ?? {}), [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } };
      await api.update(next, { namespace, signal });
    });
}
