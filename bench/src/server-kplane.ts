/**
 * Child-process entry: starts a kplane control plane (storage and HTTPS API server) and
 * reports its URL and kubeconfig to the parent. Arguments: <sqlite|memory> <dataDir>.
 */
import { join } from 'node:path';
import { startControlPlane } from '@kplane/cli';
import { serveInChild } from './child.js';

/** What the kplane child reports when ready. */
export interface KplaneInfo {
  url: string;
  kubeconfigPath: string;
  pkiDir: string;
}

const [storage, dataDir] = process.argv.slice(2);
if ((storage !== 'sqlite' && storage !== 'memory') || !dataDir) {
  throw new Error('usage: server-kplane.js <sqlite|memory> <dataDir>');
}

await serveInChild<KplaneInfo>(async () => {
  const cp = await startControlPlane({ dataDir, storage, port: 0 });
  return {
    info: { url: cp.url!, kubeconfigPath: cp.kubeconfigPath!, pkiDir: join(dataDir, 'pki') },
    stop: () => cp.stop(),
  };
});
