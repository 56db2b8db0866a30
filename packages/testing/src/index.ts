/**
 * @kplane/testing — what a controller author's tests use: a test control plane, virtual time,
 * run-until-idle, fault injection and recorded calls.
 */
export const TESTING_PACKAGE = '@kplane/testing';
export * from './faults/index.js';
export { createRecorder, type CallMatch, type RecordedCall, type Recorder } from './recorder.js';
export { startControlPlane, USURPER_IDENTITY, type TestControlPlane, type TestControlPlaneOptions } from './control-plane.js';
export { settle, SettleTimeoutError, type SettleOptions, type SettleProbe } from './settle.js';
export { installWebhooks, type InstalledWebhooks } from './webhooks.js';
export { createTestClock, type TestClock, type TrackingClock } from './clock.js';
export { createFakeClock, type Clock, type FakeClock } from '@kplane/runtime';
export { eventually, eventuallyWith, until, TimeoutError, type PollOptions } from '@kplane/api/testing';
