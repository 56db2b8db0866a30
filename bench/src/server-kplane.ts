/**
 * Child-process entry: starts a kplane control plane (storage and HTTPS API server) and
 * reports its URL and kubeconfig to the parent. Arguments: <sqlite|memory|storage URL> <dataDir>
 * [compactionIntervalMs] (the server's storage compaction interval; default 5 minutes).
 */
import { join } from 'node:path';
import { startControlPlane } from 'kplane';
import { serveInChild } from './child.js';

/** What the kplane child reports when ready. */
export interface KplaneInfo {
  url: string;
  kubeconfigPath: string;
  pkiDir: string;
}

const [storage, dataDir, interval] = process.argv.slice(2);
const compactionIntervalMs = interval === undefined ? undefined : Number(interval);
if ((storage !== 'sqlite' && storage !== 'memory' && !storage?.includes('://')) || !dataDir || (compactionIntervalMs !== undefined && !(compactionIntervalMs >= 0))) {
  throw new Error('usage: server-kplane.js <sqlite|memory|storage URL> <dataDir> [compactionIntervalMs]');
}

await serveInChild<KplaneInfo>(async () => {
  const cp = await startControlPlane({ dataDir, storage: storage as 'sqlite' | 'memory' | `${string}://${string}`, port: 0, ...(compactionIntervalMs === undefined ? {} : { compactionIntervalMs }) });
  return {
    info: { url: cp.url!, kubeconfigPath: cp.kubeconfigPath!, pkiDir: join(dataDir, 'pki') },
    stop: () => cp.stop(),
  };
});
