/**
 * The audit log: one audit.k8s.io/v1 Event per request at level Metadata, written as JSON lines
 * to a file, as kube-apiserver's --audit-log-path with a Metadata policy. Events are queued and
 * written asynchronously through a bounded buffer: a request never waits for the disk, and
 * when the disk cannot keep up events are dropped (and counted) rather than held without bound.
 */
import { randomUUID } from 'node:crypto';
import { chmod, open, type FileHandle } from 'node:fs/promises';
import type { RawRequest, RawResponse, UserInfo } from '@kplane/api';
import { classifyRequest, parsePath } from '../server/request-info.js';
import { withIterationEnd, withStreamEnd } from '../server/watch-output.js';
import { requestUser } from './identity.js';

/** authentication.k8s.io/v1 UserInfo as the audit Event writes it. */
export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** An audit.k8s.io/v1 Event (the fields level Metadata records). */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: 'Metadata';
  auditID: string;
  stage: 'ResponseStarted' | 'ResponseComplete';
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string; apiVersion?: string; subresource?: string };
  responseStatus?: { metadata: Record<string, never>; status?: string; message?: string; reason?: string; code: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where events go. */
export interface AuditSink {
  /** Queues an event; never blocks, never throws. */
  write(event: AuditEvent): void;
}

/** What the layers after authentication learn about a request, for its audit event. */
interface AuditContext {
  impersonatedUser?: UserInfo;
  annotations: Record<string, string>;
}

/**
 * Where a request's audit context travels: an own symbol property of the request the audit layer
 * hands on, so that copies the later layers make (`{ ...req, user }` for impersonation) keep it.
 */
const AUDIT_CONTEXT = Symbol('kplane.audit');
type AuditedRequest = RawRequest & { [AUDIT_CONTEXT]?: AuditContext };
const contextOf = (req: RawRequest): AuditContext | undefined => (req as AuditedRequest)[AUDIT_CONTEXT];

/**
 * Adds an annotation to the audit event of a request (e.g. `authorization.k8s.io/decision` =
 * "allow" | "forbid" and `authorization.k8s.io/reason`, as kube's authorization filter does):
 * the request the handler was given, or a copy of it. A request that is not audited is left alone.
 */
export function addAuditAnnotation(req: RawRequest, key: string, value: string): void {
  const ctx = contextOf(req);
  if (ctx && !(key in ctx.annotations)) ctx.annotations[key] = value;
}

/** Records the authorization decision of a request on its audit event. */
export function recordAuthorizationDecision(req: RawRequest, allowed: boolean, reason: string): void {
  const ctx = contextOf(req);
  if (ctx === undefined) return;
  const a = ctx.annotations;
  if (!('authorization.k8s.io/decision' in a)) a['authorization.k8s.io/decision'] = allowed ? 'allow' : 'forbid';
  if (!('authorization.k8s.io/reason' in a)) a['authorization.k8s.io/reason'] = reason;
}

/** Records the user a request impersonates (set once impersonation is allowed). */
export function recordImpersonatedUser(req: RawRequest, user: UserInfo): void {
  const ctx = contextOf(req);
  if (ctx) ctx.impersonatedUser = user;
}

/** RFC 3339 with microseconds, as Kubernetes writes MicroTime. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function auditUser(u: UserInfo | undefined): AuditUser {
  if (!u) return {};
  return { username: u.username, ...(u.uid ? { uid: u.uid } : {}), ...(u.groups.length ? { groups: [...u.groups] } : {}), ...(u.extra ? { extra: Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]])) } : {}) };
}

/** The verb kube's RequestInfo gives a request: resource verbs, or the lower-case method. */
function verbOf(req: RawRequest, resource: boolean, named: boolean): string {
  const method = req.method.toUpperCase();
  if (!resource) return method.toLowerCase();
  const watch = req.query?.watch === 'true' || req.query?.watch === '1';
  switch (method) {
    case 'GET':
    case 'HEAD':
      return watch ? 'watch' : named ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/** Client addresses: X-Forwarded-For, X-Real-Ip, then the connection's (kube's utilnet.SourceIPs). */
function sourceIPs(req: RawRequest): string[] | undefined {
  const ips: string[] = [];
  const add = (ip: string | undefined) => {
    const v = ip?.trim().replace(/^::ffff:/, '');
    if (v && !ips.includes(v)) ips.push(v);
  };
  for (const ip of (req.headers?.['x-forwarded-for'] ?? '').split(',')) add(ip);
  add(req.headers?.['x-real-ip']);
  add(req.remoteAddress);
  return ips.length ? ips : undefined;
}

function requestURI(req: RawRequest): string {
  const q = req.query && Object.keys(req.query).length ? `?${new URLSearchParams(req.query).toString()}` : '';
  return `${req.path}${q}`;
}

function responseStatus(r: RawResponse): AuditEvent['responseStatus'] {
  const out: NonNullable<AuditEvent['responseStatus']> = { metadata: {}, code: r.status };
  if (r.status >= 400 && r.body && (r.headers['content-type'] ?? '').startsWith('application/json')) {
    try {
      const s = JSON.parse(Buffer.from(r.body).toString('utf8')) as { kind?: string; status?: string; message?: string; reason?: string };
      if (s.kind === 'Status') Object.assign(out, { ...(s.status ? { status: s.status } : {}), ...(s.message ? { message: s.message } : {}), ...(s.reason ? { reason: s.reason } : {}) });
    } catch {
      // not a Status: the code alone
    }
  }
  return out;
}

/** Options of withAudit. */
export interface AuditOptions {
  sink: AuditSink;
  /** Clock of the timestamps (default: the real one). */
  now?: () => Date;
}

/** The audit event of a request, built at each stage from what the layers reported. */
function eventBuilder(req: RawRequest, ctx: AuditContext, auditID: string, received: Date, now: () => Date, user: UserInfo | undefined) {
  const parsed = (() => {
    try {
      return parsePath(req.path);
    } catch {
      return { kind: 'other' as const };
    }
  })();
  const info = parsed.kind === 'resource' ? parsed.info : undefined;
  const objectRef: AuditEvent['objectRef'] = info
    ? {
        resource: info.resource,
        ...(info.namespace ?? (info.resource === 'namespaces' ? info.name : undefined) ? { namespace: info.namespace ?? info.name } : {}),
        ...(info.name ? { name: info.name } : {}),
        apiGroup: info.group,
        apiVersion: info.version,
        ...(info.subresource ? { subresource: info.subresource } : {}),
      }
    : undefined;
  return (stage: AuditEvent['stage'], r: RawResponse, status = responseStatus(r)): AuditEvent => ({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID,
    stage,
    requestURI: requestURI(req),
    verb: verbOf(req, !!info, !!info?.name),
    user: auditUser(user),
    ...(ctx.impersonatedUser ? { impersonatedUser: auditUser(ctx.impersonatedUser) } : {}),
    ...(sourceIPs(req) ? { sourceIPs: sourceIPs(req) } : {}),
    ...(req.headers?.['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
    ...(objectRef ? { objectRef } : {}),
    responseStatus: status,
    requestReceivedTimestamp: microTime(received),
    stageTimestamp: microTime(now()),
    ...(Object.keys(ctx.annotations).length ? { annotations: { ...ctx.annotations } } : {}),
  });
}

function auditIdOf(req: RawRequest): string {
  return req.headers?.['audit-id']?.trim() || randomUUID();
}

/**
 * Wraps a request handler so that every request gets an Audit-ID (the client's `Audit-ID`
 * header, else a new UUID; sent back as the `Audit-Id` response header) and one audit event
 * when its response is complete (long-running ones — watches, logs — also one when the response starts).
 */
export function withAudit(handler: (req: RawRequest) => Promise<RawResponse>, options: AuditOptions): (req: RawRequest) => Promise<RawResponse> {
  const now = options.now ?? (() => new Date());
  return async (req) => {
    const received = now();
    const auditID = auditIdOf(req);
    const ctx: AuditContext = { annotations: {} };
    const event = eventBuilder(req, ctx, auditID, received, now, requestUser(req));
    let r: RawResponse;
    try {
      r = await handler({ ...req, [AUDIT_CONTEXT]: ctx } as AuditedRequest);
    } catch (err) {
      options.sink.write(event('ResponseComplete', { status: 500, headers: {} }));
      throw err;
    }
    const headers = { ...r.headers, 'audit-id': auditID };
    if (r.events) {
      // A watch answered as objects (in-process): audited as its bytes would be.
      options.sink.write(event('ResponseStarted', r));
      return { ...r, headers, events: withIterationEnd(r.events, () => options.sink.write(event('ResponseComplete', r))) };
    }
    if (!r.stream) {
      options.sink.write(event('ResponseComplete', r));
      return { ...r, headers };
    }
    // Only long-running requests (watches, logs) have a ResponseStarted stage; a streamed LIST
    // is audited once, when complete.
    if (classifyRequest(req.method, req.path, req.query) === 'long-running') options.sink.write(event('ResponseStarted', r));
    const stream = withStreamEnd(r.stream, () => options.sink.write(event('ResponseComplete', r)));
    return { ...r, headers, stream };
  };
}

/**
 * kube's message for a request whose credentials did not authenticate (WithFailedAuthenticationAudit):
 * the methods it tried, or that it brought none.
 */
export function failedAuthenticationMessage(req: RawRequest, presentedCertificate: boolean): string {
  const methods: string[] = [];
  const auth = (req.headers?.authorization ?? '').trim();
  if (/^basic\s/i.test(auth)) methods.push('basic');
  const parts = auth.split(' ');
  if (parts.length > 1 && parts[0]!.toLowerCase() === 'bearer') methods.push('bearer');
  if ((req.query?.access_token ?? '').trim()) methods.push('access_token');
  if (presentedCertificate) methods.push('x509');
  return methods.length ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

/**
 * The audit of requests the HTTPS server refuses before they reach the handler: a request whose
 * credentials do not authenticate (401: no user; the event says which methods failed, at stage
 * ResponseStarted, as kube's failed-authentication audit), and an authenticated one refused
 * for its size (413) or past the in-flight bounds (429). Writes the event and returns the
 * response with its `Audit-Id` header.
 */
export function auditRefusal(options: AuditOptions): (req: RawRequest, r: RawResponse, failedAuthentication?: { presentedCertificate: boolean }) => RawResponse {
  const now = options.now ?? (() => new Date());
  return (req, r, failed) => {
    const auditID = auditIdOf(req);
    const ctx: AuditContext = { annotations: {} };
    const event = eventBuilder(req, ctx, auditID, now(), now, failed ? undefined : req.user);
    if (failed) options.sink.write(event('ResponseStarted', r, { metadata: {}, message: failedAuthenticationMessage(req, failed.presentedCertificate), code: r.status }));
    else options.sink.write(event('ResponseComplete', r));
    return { ...r, headers: { ...r.headers, 'audit-id': auditID } };
  };
}

/** Options of createAuditLog. */
export interface AuditLogOptions {
  /** The file events are appended to (created 0600). */
  path: string;
  /** Most events waiting for the disk; past it new events are dropped (default 10 000). */
  maxBufferedEvents?: number;
  /** Told about write failures and drops (default: stderr, at most once a minute per kind). */
  onError?: (message: string) => void;
}

/** A running audit log file. */
export interface AuditLog extends AuditSink {
  /** Events dropped because the buffer was full or a write failed. */
  dropped(): number;
  /** Resolves once every queued event is written. */
  flush(): Promise<void>;
  /** Writes what is queued and closes the file. */
  close(): Promise<void>;
}

/**
 * Opens (appending) the audit log file, owner-only (0600), and returns its sink. Events are
 * serialised at once and written in batches by one writer loop, one JSON object a line.
 */
export async function createAuditLog(options: AuditLogOptions): Promise<AuditLog> {
  const max = options.maxBufferedEvents ?? 10_000;
  let lastReport = 0;
  const onError =
    options.onError ??
    ((m: string) => {
      if (Date.now() - lastReport < 60_000) return;
      lastReport = Date.now();
      process.stderr.write(`kplane: audit log: ${m}\n`);
    });
  const fh: FileHandle = await open(options.path, 'a', 0o600);
  await chmod(options.path, 0o600);
  let queue: string[] = [];
  let dropped = 0;
  let writing: Promise<void> | undefined;
  let closed = false;

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await fh.write(batch.join(''));
      } catch (err) {
        dropped += batch.length;
        onError(`write failed (${batch.length} events dropped): ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  const kick = (): void => {
    writing ??= drain().finally(() => {
      writing = undefined;
      if (queue.length > 0 && !closed) kick();
    });
  };

  const log: AuditLog = {
    write(event) {
      if (closed) return;
      if (queue.length >= max) {
        dropped++;
        onError('buffer full: events dropped');
        return;
      }
      queue.push(`${JSON.stringify(event)}\n`);
      kick();
    },
    dropped: () => dropped,
    async flush() {
      while (writing || queue.length > 0) {
        if (!writing) kick();
        await writing;
      }
    },
    async close() {
      if (closed) return;
      await log.flush();
      closed = true;
      await fh.close();
    },
  };
  return log;
}
