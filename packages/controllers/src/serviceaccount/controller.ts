/**
 * The serviceaccount controller: makes sure every active namespace has the ServiceAccounts it
 * should (`default`), recreating them when they are deleted (kube-controller-manager's
 * serviceaccount-controller).
 */
import { ApiError } from '@kplane/api';
import {
  Namespaces,
  ServiceAccounts,
  type Controller,
  type Manager,
  type Namespace,
  type ServiceAccount,
} from '@kplane/runtime';

/** The name of the controller and of its workqueue, as in kube-controller-manager. */
export const SERVICEACCOUNT_QUEUE_NAME = 'serviceaccount';

/** Options of createServiceAccountController. */
export interface ServiceAccountControllerOptions {
  /** The manager that runs the controller. */
  manager: Manager;
  /** Names of the ServiceAccounts every namespace gets (default ["default"]). */
  serviceAccounts?: string[];
  /** Namespaces processed at once (default 1, as kube-controller-manager runs it). */
  workers?: number;
}

/** Is this the API server refusing because the namespace is being terminated? */
function namespaceTerminating(err: unknown): boolean {
  return err instanceof ApiError && err.code === 403 && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

/**
 * Creates the serviceaccount controller and registers it with the manager.
 *
 * Guarantees: a namespace is reconciled when it appears or changes and when one of its
 * ServiceAccounts is deleted; a namespace whose phase is not Active gets nothing; an
 * AlreadyExists or NamespaceTerminating answer to a create is not an error.
 */
export function createServiceAccountController(options: ServiceAccountControllerOptions): Controller {
  const { manager } = options;
  const names = options.serviceAccounts ?? ['default'];
  const namespaces = manager.factory.informerFor<Namespace>(Namespaces);
  const serviceAccounts = manager.factory.informerFor<ServiceAccount>(ServiceAccounts);
  const api = manager.client.resource(ServiceAccounts);
  return manager
    .controller()
    .named(SERVICEACCOUNT_QUEUE_NAME)
    .for(Namespaces)
    .watches<ServiceAccount>(ServiceAccounts, (sa) => (sa.metadata?.namespace ? [{ namespace: '', name: sa.metadata.namespace }] : []), {
      predicates: [(change) => change.type === 'delete'],
    })
    .withOptions({ maxConcurrentReconciles: options.workers ?? 1 })
    .complete(async (request, { signal }) => {
      const ns = namespaces.store.get(request.name);
      if (!ns || ns.status?.phase !== 'Active') return;
      const failures: string[] = [];
      for (const name of names) {
        if (serviceAccounts.store.get(`${request.name}/${name}`)) continue;
        try {
          await api.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: request.name } }, { namespace: request.name, signal });
        } catch (err) {
          if (err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists') continue;
          if (namespaceTerminating(err)) continue;
          failures.push(err instanceof Error ? err.message : String(err));
        }
      }
      if (failures.length === 1) throw new Error(failures[0]);
      if (failures.length > 1) throw new Error(`[${failures.join(', ')}]`);
    });
}
