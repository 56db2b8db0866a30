/**
 * Prints the operator's manifests as JSON, for `kubectl apply -f -`:
 *
 *   node dist/manifests.js crd                     the Greeting CRD (from the TypeScript schema)
 *   node dist/manifests.js rbac [NAMESPACE]        ServiceAccount, ClusterRole, ClusterRoleBinding
 *   node dist/manifests.js [all] [NAMESPACE]       the namespace, the CRD and the RBAC
 */
import { manifests } from './rbac.js';

const [what = 'all', namespace] = process.argv.slice(2);
try {
  process.stdout.write(`${JSON.stringify(manifests(what, namespace), null, 2)}\n`);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 2;
}
