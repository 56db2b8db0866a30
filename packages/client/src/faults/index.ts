/**
 * `@kplane/client/faults`: seeded fault injection for any Transport (errors, latency, hangs,
 * dropped and expired watches, control-plane actions), and reading a request as
 * kube-apiserver does. `@kplane/testing` re-exports it for tests.
 */
export * from './clock.js';
export * from './faults.js';
export * from './match.js';
export * from './request-info.js';
export { connectionError, expiredWatchResponse, injectedError, plainTextResponse, statusResponse, type InjectedErrorCode } from './responses.js';
export { cutStream, type CutOptions } from './stream.js';
