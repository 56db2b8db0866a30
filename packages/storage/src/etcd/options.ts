/**
 * The connection options of the etcd driver, apart from the client code: the public types of
 * @kplane/storage never name the etcd3 package (an optional dependency).
 */

/** How to reach an etcd cluster. */
export interface EtcdConnectionOptions {
  /** `host:port` of each member (the client fails over between them). */
  endpoints: string[];
  /** TLS to etcd: the CA bundle that signs the members' certificates (kube-apiserver's --etcd-cafile). */
  caFile?: string;
  /** Client certificate, PEM (--etcd-certfile); needs keyFile. */
  certFile?: string;
  /** Client key, PEM (--etcd-keyfile). */
  keyFile?: string;
  /** Use TLS (implied by caFile or certFile); without caFile the system's roots are trusted. */
  tls?: boolean;
  /** Per-call deadline in ms (default 30 s). */
  callTimeoutMs?: number;
}
