export { createManager, type LeaderElectionOptions, type Manager, type ManagerEndpoints, type ManagerOptions } from './manager.js';
export { parseBindAddress, type HealthCheck } from './probes.js';
