/**
 * @kplane/testing — what a controller author's tests use: a test control plane, virtual time,
 * run-until-idle, fault injection and recorded calls.
 */
export const TESTING_PACKAGE = '@kplane/testing';
export * from './faults/index.js';
export { createRecorder, type CallMatch, type RecordedCall, type Recorder } from './recorder.js';
