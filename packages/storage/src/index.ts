export * from './backend.js';
export { createMemoryBackend, type MemoryBackendOptions } from './memory.js';
export { createSqliteBackend, type SqliteBackend, type SqliteBackendOptions, type SqliteStats } from './sqlite.js';
export { createBackend } from './factory.js';
export { createEtcdBackend, EtcdBackend, type EtcdBackendOptions } from './etcd/backend.js';
export { parseEtcdUrl } from './etcd/url.js';
export { createWatchHub, runWatch, type WatchHub, type WatchSource, type Subscription } from './watch-hub.js';
export { systemClock, runPeriodically, type Clock, type Periodic } from './clock.js';
export {
  startCompactor,
  startExpirySweeper,
  DEFAULT_COMPACTION_INTERVAL_MS,
  DEFAULT_EXPIRY_INTERVAL_MS,
  type MaintenanceOptions,
} from './maintenance.js';
