/**
 * The API server's flags that `kplane up` and `kplane apiserver` share (kube-apiserver's
 * names): their parseArgs options, their help and their reading into startControlPlane options.
 */
import { parseAuthorizationModes } from '@kplane/apiserver';
import type { ControlPlaneOptions } from '../control-plane.js';
import { parseDuration } from './duration.js';

/** parseArgs options of the shared API server flags. */
export const API_SERVER_FLAGS = {
  'event-ttl': { type: 'string', default: '1h' },
  'default-not-ready-toleration-seconds': { type: 'string', default: '300' },
  'default-unreachable-toleration-seconds': { type: 'string', default: '300' },
  'compaction-interval': { type: 'string', default: '5m' },
  'token-auth-file': { type: 'string' },
  'service-account-signing-key-file': { type: 'string' },
  'service-account-key-file': { type: 'string', multiple: true },
  'service-account-issuer': { type: 'string', multiple: true },
  'api-audiences': { type: 'string' },
  'service-account-max-token-expiration': { type: 'string' },
  'audit-log': { type: 'string' },
  'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12' },
  'service-node-port-range': { type: 'string', default: '30000-32767' },
  'authorization-mode': { type: 'string', default: 'Node,RBAC' },
} as const;

/** The values parseArgs gives for API_SERVER_FLAGS. */
export interface ApiServerFlagValues {
  'event-ttl'?: string;
  'default-not-ready-toleration-seconds'?: string;
  'default-unreachable-toleration-seconds'?: string;
  'compaction-interval'?: string;
  'token-auth-file'?: string;
  'service-account-signing-key-file'?: string;
  'service-account-key-file'?: string[];
  'service-account-issuer'?: string[];
  'api-audiences'?: string;
  'service-account-max-token-expiration'?: string;
  'audit-log'?: string;
  'service-cluster-ip-range'?: string;
  'service-node-port-range'?: string;
  'authorization-mode'?: string;
}

/** Help of the shared API server flags (the lines `kplane apiserver --help` prints). */
export const API_SERVER_FLAGS_USAGE = `  --event-ttl DURATION    how long Events are kept after their last write (default 1h)
  --compaction-interval DURATION
                          how often storage history is compacted (default 5m; 0: never)
  --default-not-ready-toleration-seconds N
  --default-unreachable-toleration-seconds N
                          tolerationSeconds of the not-ready / unreachable NoExecute tolerations
                          pods get when they have none (default 300)
  --service-cluster-ip-range CIDR
                          IPv4 range of Services' ClusterIPs; the kubernetes Service takes its
                          first address (default 10.96.0.0/12)
  --service-node-port-range RANGE
                          NodePorts of NodePort and LoadBalancer Services (default 30000-32767)
  --audit-log PATH        append one audit.k8s.io/v1 Event (level Metadata) per request to PATH,
                          as JSON lines (created 0600)
  --authorization-mode M  authorizers asked in order, comma-separated: Node, RBAC, AlwaysAllow
                          (default Node,RBAC, as kube-apiserver)

Authentication (as kube-apiserver's flags):
  --token-auth-file FILE  static bearer tokens: CSV lines token,user,uid,"group1,group2"
  --service-account-signing-key-file FILE
                          private key that signs ServiceAccount tokens (default: pki/sa.key
                          in the data dir, made at first start)
  --service-account-key-file FILE
                          more public keys (or private keys, certificates) that verify
                          ServiceAccount tokens; repeatable
  --service-account-issuer URL
                          issuer of ServiceAccount tokens; the first signs, all are accepted;
                          repeatable (default https://kubernetes.default.svc.cluster.local)
  --api-audiences A,B     audiences of the API (default: the first issuer)
  --service-account-max-token-expiration DURATION
                          longest token a TokenRequest gets (default: no limit)
`;

/** Reads the shared API server flags; throws a one-line error naming the flag for a bad value. */
export function apiServerSettings(values: ApiServerFlagValues): Pick<
  ControlPlaneOptions,
  'eventTTLSeconds' | 'compactionIntervalMs' | 'defaultTolerationSeconds' | 'authentication' | 'auditLogPath' | 'serviceCIDR' | 'serviceNodePortRange' | 'authorizationMode'
> {
  const eventTTLMs = parseDuration('--event-ttl', values['event-ttl'] ?? '1h');
  if (eventTTLMs < 1000) throw new Error(`--event-ttl: must be at least 1s, not ${values['event-ttl']}`);
  const seconds = (flag: string, v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n)) throw new Error(`--${flag}: must be a whole number of seconds >= 0, not ${v}`);
    return n;
  };
  const maxExpiration = values['service-account-max-token-expiration'];
  const maxExpirationMs = maxExpiration === undefined ? 0 : parseDuration('--service-account-max-token-expiration', maxExpiration);
  if (maxExpiration !== undefined && maxExpirationMs < 600_000) throw new Error(`--service-account-max-token-expiration: must be at least 10m, not ${maxExpiration}`);
  const authorizationMode = values['authorization-mode'] ?? 'Node,RBAC';
  parseAuthorizationModes(authorizationMode);
  return {
    eventTTLSeconds: Math.floor(eventTTLMs / 1000),
    compactionIntervalMs: parseDuration('--compaction-interval', values['compaction-interval'] ?? '5m'),
    defaultTolerationSeconds: {
      notReadySeconds: seconds('default-not-ready-toleration-seconds', values['default-not-ready-toleration-seconds'] ?? '300'),
      unreachableSeconds: seconds('default-unreachable-toleration-seconds', values['default-unreachable-toleration-seconds'] ?? '300'),
    },
    authentication: {
      tokenAuthFile: values['token-auth-file'],
      serviceAccountSigningKeyFile: values['service-account-signing-key-file'],
      serviceAccountKeyFiles: values['service-account-key-file'],
      serviceAccountIssuers: values['service-account-issuer'],
      apiAudiences: values['api-audiences']?.split(',').map((a) => a.trim()).filter(Boolean),
      serviceAccountMaxTokenExpirationSeconds: Math.floor(maxExpirationMs / 1000),
    },
    auditLogPath: values['audit-log'],
    serviceCIDR: values['service-cluster-ip-range'],
    serviceNodePortRange: values['service-node-port-range'],
    authorizationMode,
  };
}
