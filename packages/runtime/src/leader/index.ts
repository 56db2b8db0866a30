export {
  createLeaderElector,
  JITTER_FACTOR,
  type LeaderElector,
  type LeaderElectorOptions,
} from './leader-elector.js';
export {
  createLeaseLock,
  formatMicroTime,
  leaseResource,
  leaseToRecord,
  parseMicroTime,
  recordKey,
  recordToLeaseSpec,
  type LeaderElectionRecord,
  type Lease,
  type LeaseLock,
  type LeaseLockOptions,
} from './lease-lock.js';
