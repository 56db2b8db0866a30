/**
 * @kplane/testing — what a controller author's tests use: a test control plane, virtual time,
 * run-until-idle, fault injection and recorded calls.
 */
export const TESTING_PACKAGE = '@kplane/testing';

/** Polling for what runs on its own time (a child process, a socket): `eventually`, `until`. */
export { eventually, eventuallyWith, until, TimeoutError, type PollClock, type PollOptions, type Truthy } from '@kplane/api/testing';
