export * from './backend.js';
export { createMemoryBackend } from './memory.js';
export { createSqliteBackend, type SqliteBackendOptions } from './sqlite.js';
export { createBackend } from './factory.js';
export { createWatchHub, runWatch, type WatchHub, type WatchSource, type Subscription } from './watch-hub.js';
