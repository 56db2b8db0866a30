/**
 * Test support (not exported from the package): a real in-process kplane API server on memory
 * storage and a client on it.
 */

export { startTestKplane, type TestKplane } from '@kplane/apiserver/testing';
