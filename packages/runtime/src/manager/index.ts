export { createManager, type LeaderElectionOptions, type Manager, type ManagerOptions } from './manager.js';
