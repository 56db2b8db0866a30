/**
 * Chooses a driver from a storage URL, kine style:
 * - `memory://` (anything after the scheme is ignored): a fresh in-memory store;
 * - `sqlite://<path>`: a sqlite file; `sqlite:///var/lib/kplane/state.db` is absolute,
 *   `sqlite://./data/state.db` or `sqlite://data/state.db` relative to the working directory.
 *   Query parameter `synchronous=full|normal` (default full) sets the durability level.
 * - `etcd://host:port[,host:port...]` (or `etcds://` for TLS): an etcd v3 cluster; options
 *   `prefix`, `cafile`, `certfile`, `keyfile`, `namespace` (see etcd/url.ts).
 */
import { StorageError, type Backend } from './backend.js';
import { createMemoryBackend } from './memory.js';
import { createSqliteBackend } from './sqlite.js';
import { createEtcdBackend } from './etcd/backend.js';
import { parseEtcdUrl } from './etcd/url.js';

/** Opens the backend a storage URL names; throws StorageError for an unknown scheme or a bad URL. */
export async function createBackend(url: string): Promise<Backend> {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(url);
  if (!match) {
    throw new StorageError(`invalid storage URL "${url}": expected memory://, sqlite://<path> or etcd://host:port`);
  }
  const scheme = match[1].toLowerCase();
  const rest = match[2];
  switch (scheme) {
    case 'memory':
      return createMemoryBackend();
    case 'sqlite': {
      const q = rest.indexOf('?');
      const path = q < 0 ? rest : rest.slice(0, q);
      const params = new URLSearchParams(q < 0 ? '' : rest.slice(q + 1));
      if (!path) throw new StorageError(`invalid storage URL "${url}": sqlite:// needs a database path`);
      const sync = params.get('synchronous')?.toLowerCase();
      if (sync !== undefined && sync !== 'normal' && sync !== 'full') {
        throw new StorageError(`invalid storage URL "${url}": synchronous must be "normal" or "full"`);
      }
      return createSqliteBackend({ path: decodeURIComponent(path), synchronous: sync });
    }
    case 'etcd':
    case 'etcds':
      return createEtcdBackend(parseEtcdUrl(url));
    default:
      throw new StorageError(`unsupported storage scheme "${scheme}://" in "${url}": expected memory://, sqlite://<path> or etcd://host:port`);
  }
}
