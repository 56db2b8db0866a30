/**
 * Admission webhooks' contract (admission.k8s.io/v1 AdmissionReview) and the handlers that turn
 * a review into calls on a kind's defaulter or validator, as controller-runtime's
 * CustomDefaulter / CustomValidator do.
 */
import type { KubeObject, Status } from '@kplane/api';

/** The operation a review is about. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** admission.k8s.io/v1 AdmissionRequest. */
export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind?: { group: string; version: string; kind: string };
  requestResource?: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
  options?: unknown;
}

/** admission.k8s.io/v1 AdmissionResponse. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: Partial<Status>;
  patch?: string;
  patchType?: 'JSONPatch';
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

/** admission.k8s.io/v1 AdmissionReview: a request in, the same review with a response out. */
export interface AdmissionReview {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** Warnings a validator returns: shown by kubectl as `Warning: …`. */
export type AdmissionWarnings = string[] | void;

/**
 * Sets a kind's defaults (controller-runtime's CustomDefaulter): mutate `obj` in place (or
 * return a new object). Throwing denies the request (an error with `toStatus()`, such as
 * ApiError, gives its own Status).
 */
export interface CustomDefaulter<T extends KubeObject = KubeObject> {
  default(obj: T, request: AdmissionRequest): void | T | Promise<void | T>;
}

/**
 * Validates a kind (controller-runtime's CustomValidator): each method returns warnings, or
 * throws to deny (the error's message is the denial's; an error with `toStatus()`, such as
 * ApiError, gives its own code and reason). A missing method allows.
 */
export interface CustomValidator<T extends KubeObject = KubeObject> {
  validateCreate?(obj: T, request: AdmissionRequest): AdmissionWarnings | Promise<AdmissionWarnings>;
  validateUpdate?(oldObj: T, newObj: T, request: AdmissionRequest): AdmissionWarnings | Promise<AdmissionWarnings>;
  validateDelete?(obj: T, request: AdmissionRequest): AdmissionWarnings | Promise<AdmissionWarnings>;
}

/** One RFC 6902 operation of a JSONPatch. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

const pointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSONPatch that turns `from` into `to` (both plain JSON): objects are compared key by key,
 * arrays of the same length element by element, anything else is replaced whole.
 */
export function createJsonPatch(from: unknown, to: unknown, path = ''): JsonPatchOperation[] {
  if (isObject(from) && isObject(to)) {
    const ops: JsonPatchOperation[] = [];
    for (const k of Object.keys(from)) {
      if (!(k in to) || to[k] === undefined) ops.push({ op: 'remove', path: `${path}/${pointer(k)}` });
    }
    for (const [k, v] of Object.entries(to)) {
      if (v === undefined) continue;
      if (!(k in from) || from[k] === undefined) ops.push({ op: 'add', path: `${path}/${pointer(k)}`, value: v });
      else ops.push(...createJsonPatch(from[k], v, `${path}/${pointer(k)}`));
    }
    return ops;
  }
  if (Array.isArray(from) && Array.isArray(to) && from.length === to.length) {
    return from.flatMap((v, i) => createJsonPatch(v, to[i], `${path}/${i}`));
  }
  return JSON.stringify(from) === JSON.stringify(to) ? [] : [{ op: 'replace', path, value: to }];
}

/** Allows, with HTTP-like code 200 in the status as controller-runtime's `Allowed("")`. */
function allowed(uid: string, warnings?: AdmissionWarnings): AdmissionResponse {
  return { uid, allowed: true, status: { metadata: {}, code: 200 }, ...(warnings && warnings.length ? { warnings } : {}) };
}

/**
 * The denial for a thrown error: its own Status when it has `toStatus()` (ApiError), else
 * 403 Forbidden with the error's message, as controller-runtime's `Denied(err.Error())`.
 */
export function denial(uid: string, err: unknown, warnings?: AdmissionWarnings): AdmissionResponse {
  const withStatus = err as { toStatus?: () => Status };
  const status: Partial<Status> =
    typeof withStatus?.toStatus === 'function'
      ? withStatus.toStatus()
      : { metadata: {}, message: err instanceof Error ? err.message : String(err), reason: 'Forbidden', code: 403 };
  return { uid, allowed: false, status, ...(warnings && warnings.length ? { warnings } : {}) };
}

/** A malformed review: 400, as controller-runtime's `Errored(http.StatusBadRequest, err)`. */
export function errored(uid: string, code: number, message: string): AdmissionResponse {
  return { uid, allowed: false, status: { metadata: {}, message, code } };
}

/** Answers one AdmissionRequest. */
export type AdmissionHandler = (request: AdmissionRequest) => Promise<AdmissionResponse>;

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/**
 * The handler of a mutating webhook from a defaulter: DELETE is allowed untouched; otherwise the
 * defaulter runs on a copy of `request.object` and the answer carries the JSONPatch (base64) from
 * the object sent to the defaulted one, or none when nothing changed.
 */
export function defaultingHandler<T extends KubeObject>(defaulter: CustomDefaulter<T>): AdmissionHandler {
  return async (request) => {
    if (request.operation === 'DELETE') return { uid: request.uid, allowed: true, status: { metadata: {}, code: 200 } };
    if (!isObject(request.object)) return errored(request.uid, 400, 'there is no content to decode');
    const original = request.object;
    const obj = clone(original) as T;
    let result: void | T;
    try {
      result = await defaulter.default(obj, request);
    } catch (err) {
      return denial(request.uid, err);
    }
    const patch = createJsonPatch(original, clone(result ?? obj));
    if (patch.length === 0) return { uid: request.uid, allowed: true };
    return { uid: request.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') };
  };
}

/**
 * The handler of a validating webhook from a validator: CREATE calls `validateCreate(object)`,
 * UPDATE `validateUpdate(oldObject, object)`, DELETE `validateDelete(oldObject)`; returned
 * warnings are passed on, a throw denies.
 */
export function validatingHandler<T extends KubeObject>(validator: CustomValidator<T>): AdmissionHandler {
  return async (request) => {
    const { uid, operation } = request;
    const obj = request.object as T | undefined;
    const old = request.oldObject as T | undefined;
    let warnings: AdmissionWarnings = undefined;
    try {
      switch (operation) {
        case 'CREATE':
          if (!isObject(obj)) return errored(uid, 400, 'there is no content to decode');
          warnings = await validator.validateCreate?.(obj, request);
          break;
        case 'UPDATE':
          if (!isObject(obj) || !isObject(old)) return errored(uid, 400, 'there is no content to decode');
          warnings = await validator.validateUpdate?.(old, obj, request);
          break;
        case 'DELETE':
          // The API server sends the object being deleted as oldObject.
          if (!isObject(old)) return errored(uid, 400, 'there is no content to decode');
          warnings = await validator.validateDelete?.(old, request);
          break;
        default:
          return errored(uid, 400, `unknown operation "${String(operation)}"`);
      }
    } catch (err) {
      return denial(uid, err);
    }
    return allowed(uid, warnings);
  };
}

/**
 * Answers a whole AdmissionReview body: the same apiVersion and kind with `response` set. A body
 * that is no v1 AdmissionReview with a request gets a 400 response.
 */
export async function reviewAdmission(body: unknown, handler: AdmissionHandler): Promise<AdmissionReview> {
  const review = body as Partial<AdmissionReview> | undefined;
  const request = review?.request;
  const out = (response: AdmissionResponse): AdmissionReview => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });
  if (!isObject(review) || review.kind !== 'AdmissionReview') return out(errored('', 400, 'the body is not an AdmissionReview'));
  if (review.apiVersion !== 'admission.k8s.io/v1') return out(errored(request?.uid ?? '', 400, `unsupported AdmissionReview version "${String(review.apiVersion)}": only admission.k8s.io/v1`));
  if (!isObject(request) || typeof request.uid !== 'string') return out(errored('', 400, 'the AdmissionReview has no request'));
  const response = await handler(request);
  return out({ ...response, uid: request.uid });
}
