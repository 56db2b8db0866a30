/**
 * The connection to etcd: the `etcd3` package (its gRPC clients of etcd's v3 API, over
 * @grpc/grpc-js), loaded on first use so memory and sqlite users never load it, and the
 * translation of etcd's errors into the storage errors.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Etcd3, IOptions } from 'etcd3';
import { StorageError } from '../backend.js';
import type { EtcdConnectionOptions } from './options.js';

type Etcd3Module = typeof import('etcd3');

type HostPolicy = ReturnType<NonNullable<NonNullable<IOptions['faultHandling']>['host']>>;

/** The part of cockatiel (the fault-handling library etcd3 is built with) the client configures. */
interface Cockatiel {
  circuitBreaker(policy: unknown, options: { halfOpenAfter: number; breaker: unknown }): unknown;
  handleWhen(predicate: (error: Error) => boolean): unknown;
  ConsecutiveBreaker: new (threshold: number) => unknown;
}
let loaded: Etcd3Module | undefined;

/** The etcd3 package, loaded on first use (an optional dependency of @kplane/storage). */
export function loadEtcd3(): Etcd3Module {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)('etcd3') as Etcd3Module;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') {
      throw new StorageError('etcd storage needs the etcd3 package: npm install etcd3');
    }
    throw err;
  }
  return loaded;
}

/** Opens a client to the cluster (connections are made lazily, on the first call). */
export function connect(options: EtcdConnectionOptions): Etcd3 {
  const { Etcd3: Client } = loadEtcd3();
  if (options.endpoints.length === 0) throw new StorageError('etcd storage needs at least one endpoint');
  const tls = options.tls || !!options.caFile || !!options.certFile;
  if (!!options.certFile !== !!options.keyFile) {
    throw new StorageError('etcd TLS: a client certificate needs its key, and a key its certificate');
  }
  const read = (path: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new StorageError(`etcd TLS: cannot read ${path}: ${(err as Error).message}`);
    }
  };
  const clientOptions: IOptions = {
    hosts: options.endpoints.map((e) => `${tls ? 'https' : 'http'}://${e}`),
    // Lists of many objects are large: no receive limit (etcd bounds requests itself).
    grpcOptions: { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 },
    dialTimeout: 5000,
  };
  if (tls) {
    clientOptions.credentials = {
      rootCertificate: options.caFile ? read(options.caFile) : (undefined as unknown as Buffer),
      ...(options.certFile ? { certChain: read(options.certFile), privateKey: read(options.keyFile!) } : {}),
    };
  }
  // A member that failed three calls in a row is skipped, then tried again after 1 s (etcd3's
  // default waits 5 s: with a single member, every request would fail that long after etcd
  // came back). cockatiel is etcd3's own dependency, loaded from where etcd3 finds it.
  const faults = createRequire(createRequire(import.meta.url).resolve('etcd3'))('cockatiel') as Cockatiel;
  const { isRecoverableError } = loadEtcd3();
  clientOptions.faultHandling = {
    host: () => faults.circuitBreaker(faults.handleWhen(isRecoverableError), { halfOpenAfter: 1000, breaker: new faults.ConsecutiveBreaker(3) }) as HostPolicy,
  };
  const timeout = options.callTimeoutMs ?? 30_000;
  // Watch streams live on; every other call gets a deadline.
  clientOptions.defaultCallOptions = (context) => (context.isStream ? {} : { deadline: Date.now() + timeout });
  return new Client(clientOptions);
}

/** What kind of failure an etcd error message reports. */
export type EtcdFailure = 'compacted' | 'future' | 'too-large' | 'other';

/** Classifies an error thrown by an etcd call. */
export function classify(err: unknown): EtcdFailure {
  const message = err instanceof Error ? err.message : String(err);
  if (message.includes('required revision has been compacted')) return 'compacted';
  if (message.includes('required revision is a future revision')) return 'future';
  if (message.includes('request is too large') || message.includes('larger than max')) return 'too-large';
  return 'other';
}
