/**
 * The etcd storage URL: `etcd://host:port[,host:port...][?options]`, or `etcds://` for TLS.
 * Options (query parameters), after kube-apiserver's flags:
 * - `prefix` — the key prefix (--etcd-prefix), default `/registry`;
 * - `cafile`, `certfile`, `keyfile` — TLS files (--etcd-cafile, --etcd-certfile,
 *   --etcd-keyfile); any of them turns TLS on;
 * - `namespace` — a string put before every key (several kplanes in one etcd).
 */
import { StorageError } from '../backend.js';
import type { EtcdBackendOptions } from './backend.js';

const KNOWN = new Set(['prefix', 'cafile', 'certfile', 'keyfile', 'namespace']);

/** Parses an etcd:// or etcds:// storage URL into driver options; throws StorageError when it is malformed. */
export function parseEtcdUrl(url: string): EtcdBackendOptions {
  const match = /^(etcds?):\/\/([^?]*)(?:\?(.*))?$/i.exec(url);
  if (!match) throw new StorageError(`invalid etcd storage URL "${url}": expected etcd://host:port[,host:port...]`);
  const tls = match[1].toLowerCase() === 'etcds';
  const endpoints = match[2].split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (endpoints.length === 0) throw new StorageError(`invalid etcd storage URL "${url}": no endpoint`);
  for (const e of endpoints) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/i.test(e)) {
      throw new StorageError(`invalid etcd endpoint "${e}" in "${url}": expected host:port`);
    }
  }
  const params = new URLSearchParams(match[3] ?? '');
  for (const name of params.keys()) {
    if (!KNOWN.has(name)) throw new StorageError(`unknown etcd storage option "${name}" in "${url}": expected one of ${[...KNOWN].join(', ')}`);
  }
  const options: EtcdBackendOptions = { endpoints, tls };
  const prefix = params.get('prefix');
  if (prefix !== null) {
    if (!prefix.startsWith('/') || prefix.length < 2 || prefix.endsWith('/')) {
      throw new StorageError(`invalid etcd prefix "${prefix}": expected a path such as /registry`);
    }
    options.prefix = prefix;
  }
  const namespace = params.get('namespace');
  if (namespace) options.namespace = namespace;
  const caFile = params.get('cafile');
  const certFile = params.get('certfile');
  const keyFile = params.get('keyfile');
  if (caFile) options.caFile = caFile;
  if (certFile) options.certFile = certFile;
  if (keyFile) options.keyFile = keyFile;
  if (!!certFile !== !!keyFile) throw new StorageError(`etcd storage URL "${url}": certfile and keyfile go together`);
  if (caFile || certFile) options.tls = true;
  return options;
}
