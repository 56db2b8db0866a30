import { ApiError, type ApiErrorDetails, type RawResponse, type Status, type StatusCause } from '@kplane/api';

/** The resource a request addressed, used to word errors for non-Status bodies. */
export interface ErrorTarget {
  group?: string;
  resource?: string;
  name?: string;
}

const decoder = new TextDecoder();

/** Is this value a meta/v1 Status? */
export function isStatus(value: unknown): value is Status {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

/** Reads a whole stream into one byte array. */
export async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    parts.push(chunk);
    size += chunk.byteLength;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** The body of a response as bytes, whether buffered or streamed. */
export async function responseBytes(res: RawResponse): Promise<Uint8Array> {
  if (res.body) return res.body;
  if (res.stream) return readAll(res.stream);
  return new Uint8Array(0);
}

/** Parses a JSON body; returns undefined for an empty or non-JSON body. */
export function tryParseJson(body: Uint8Array | undefined): unknown {
  if (!body || body.byteLength === 0) return undefined;
  try {
    return JSON.parse(decoder.decode(body));
  } catch {
    return undefined;
  }
}

/** Turns a Status object into an ApiError (its code falls back to `httpCode`). */
export function apiErrorFromStatus(status: Status, httpCode: number): ApiError {
  const details: ApiErrorDetails = {};
  const d = status.details;
  if (d) {
    if (d.name) details.name = d.name;
    if (d.group) details.group = d.group;
    if (d.kind) details.kind = d.kind;
    if (d.uid) details.uid = d.uid;
    if (d.causes && d.causes.length > 0) details.causes = d.causes;
    if (d.retryAfterSeconds) details.retryAfterSeconds = d.retryAfterSeconds;
  }
  const code = typeof status.code === 'number' && status.code > 0 ? status.code : httpCode;
  return new ApiError(code, status.reason || 'Unknown', status.message ?? '', Object.keys(details).length ? details : undefined);
}

/**
 * The error for a response whose body is not a Status, worded as client-go words it (reason
 * and message chosen by HTTP code, the server's text kept as an UnexpectedServerResponse cause).
 */
export function genericServerError(
  code: number,
  method: string,
  serverMessage: string,
  target: ErrorTarget = {},
  retryAfterSeconds = 0,
): ApiError {
  let reason = 'Unknown';
  let message = `the server responded with the status code ${code} but did not return more information`;
  switch (code) {
    case 409:
      reason = method.toUpperCase() === 'POST' ? 'AlreadyExists' : 'Conflict';
      message = 'the server reported a conflict';
      break;
    case 404:
      reason = 'NotFound';
      message = 'the server could not find the requested resource';
      break;
    case 400:
      reason = 'BadRequest';
      message = 'the server rejected our request for an unknown reason';
      break;
    case 401:
      reason = 'Unauthorized';
      message = 'the server has asked for the client to provide credentials';
      break;
    case 403:
      reason = 'Forbidden';
      message = serverMessage;
      break;
    case 406:
      reason = 'NotAcceptable';
      message = serverMessage === '' || serverMessage === 'unknown'
        ? 'the server was unable to respond with a content type that the client supports'
        : serverMessage;
      break;
    case 415:
      reason = 'UnsupportedMediaType';
      message = serverMessage;
      break;
    case 405:
      reason = 'MethodNotAllowed';
      message = 'the server does not allow this method on the requested resource';
      break;
    case 422:
      reason = 'Invalid';
      message = 'the server rejected our request due to an error in our request';
      break;
    case 503:
      reason = 'ServiceUnavailable';
      message = 'the server is currently unable to handle the request';
      break;
    case 504:
      reason = 'Timeout';
      message = 'the server was unable to return a response in the time allotted, but may still be processing the request';
      break;
    case 429:
      reason = 'TooManyRequests';
      message = 'the server has received too many requests and has asked us to try again later';
      break;
    default:
      if (code >= 500) {
        reason = 'InternalError';
        message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
      }
  }
  const qualified = target.resource ? (target.group ? `${target.resource}.${target.group}` : target.resource) : '';
  if (qualified && target.name) message = `${message} (${method.toLowerCase()} ${qualified} ${target.name})`;
  else if (qualified) message = `${message} (${method.toLowerCase()} ${qualified})`;
  const details: ApiErrorDetails = {};
  if (target.group) details.group = target.group;
  if (target.resource) details.kind = target.resource;
  if (target.name) details.name = target.name;
  const causes: StatusCause[] = [{ reason: 'UnexpectedServerResponse', message: serverMessage }];
  details.causes = causes;
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  return new ApiError(code, reason, message, details);
}

/** Maps a non-2xx response (or a 2xx carrying a Failure Status) to an ApiError. */
export function errorFromResponse(res: RawResponse, body: Uint8Array | undefined, method: string, target?: ErrorTarget): ApiError {
  const parsed = tryParseJson(body);
  if (isStatus(parsed)) return apiErrorFromStatus(parsed, res.status);
  const text = body ? decoder.decode(body).trim() : '';
  const retryAfter = Number.parseInt(res.headers['retry-after'] ?? '', 10);
  return genericServerError(res.status, method, text, target, Number.isFinite(retryAfter) ? retryAfter : 0);
}
