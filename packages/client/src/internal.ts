/**
 * `@kplane/client/internal`: the building blocks under the client that kplane's own packages
 * share — request paths, response and error decoding, watch-stream decoding. Not the public
 * API (no stability promise): a user goes through `createClient` and `ResourceClient`.
 */
export * from './paths.js';
export { apiErrorFromStatus, errorFromResponse, genericServerError, readAll, responseBytes, tryParseJson, type ErrorTarget } from './response.js';
export * from './watch-stream.js';
