export { createBackoff, type Backoff, type BackoffOptions } from './backoff.js';
export { stepWatcher, watcher, watcherBatches, type WatchableApi, type WatcherEvent, type WatcherOptions, type WatcherState } from './watcher.js';
export {
  CONTROLLER_OWNER_INDEX,
  NAMESPACE_INDEX,
  controllerOwnerIndexFunc,
  createInterner,
  createStore,
  deepFreeze,
  freezeSharing,
  namespaceIndexFunc,
  objectKey,
  type Cache,
  type IndexFunc,
  type Interner,
  type Store,
  type StoreDelta,
  type StoreOptions,
} from './store.js';
export { createInformer, type EventHandler, type HandlerRegistration, type Informer, type InformerOptions } from './informer.js';
export { createInformerFactory, type InformerFactory, type InformerFactoryOptions } from './factory.js';
