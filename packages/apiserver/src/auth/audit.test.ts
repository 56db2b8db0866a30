import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawRequest, RawResponse } from '@kplane/api';
import { createMemoryBackend } from '@kplane/storage';
import { createApiServer } from '../server/server.js';
import { createAuditLog, microTime, recordAuthorizationDecision, recordImpersonatedUser, withAudit, type AuditEvent } from './audit.js';

const alice = { username: 'alice', uid: 'a-1', groups: ['system:masters', 'system:authenticated'] };

it('writes one Metadata event per request, with the Audit-Id header kube sends', async () => {
  const events: AuditEvent[] = [];
  let t = Date.parse('2026-12-03T10:00:00.000Z');
  const now = () => new Date((t += 1));
  const backend = createMemoryBackend();
  const server = createApiServer({ backend, audit: { write: (e) => events.push(e) }, now });
  await server.start();
  try {
    events.length = 0;
    const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }));
    const created = await server.handle({
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      query: { fieldManager: 'kubectl-create' },
      headers: { 'content-type': 'application/json', 'user-agent': 'kubectl/v1.32.0', 'x-forwarded-for': '10.0.0.9' },
      body,
      user: alice,
      remoteAddress: '::ffff:127.0.0.1',
    });
    assert.equal(created.status, 201);
    assert.match(created.headers['audit-id'] ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(events, [
      {
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID: created.headers['audit-id'],
        stage: 'ResponseComplete',
        requestURI: '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create',
        verb: 'create',
        user: alice,
        sourceIPs: ['10.0.0.9', '127.0.0.1'],
        userAgent: 'kubectl/v1.32.0',
        objectRef: { resource: 'configmaps', namespace: 'default', apiGroup: '', apiVersion: 'v1' },
        responseStatus: { metadata: {}, code: 201 },
        requestReceivedTimestamp: events[0]!.requestReceivedTimestamp,
        stageTimestamp: events[0]!.stageTimestamp,
        // system:masters: allowed by the privileged-group authorizer, with no reason.
        annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
      },
    ]);
    assert.match(events[0]!.requestReceivedTimestamp, /^2026-12-03T10:00:00\.\d{6}Z$/);
    assert.ok(events[0]!.stageTimestamp > events[0]!.requestReceivedTimestamp);

    // The client's Audit-ID is kept; a failure records its Status.
    const missing = await server.handle({ method: 'GET', path: '/apis/apps/v1/namespaces/default/deployments/nope/status', headers: { 'audit-id': 'mon-id' }, user: alice });
    assert.equal(missing.headers['audit-id'], 'mon-id');
    const e = events.at(-1)!;
    assert.deepEqual([e.auditID, e.verb, e.objectRef, e.responseStatus], [
      'mon-id',
      'get',
      { resource: 'deployments', namespace: 'default', name: 'nope', apiGroup: 'apps', apiVersion: 'v1', subresource: 'status' },
      { metadata: {}, status: 'Failure', message: 'deployments.apps "nope" not found', reason: 'NotFound', code: 404 },
    ]);
    await server.handle({ method: 'GET', path: '/api/v1/namespaces', user: alice });
    await server.handle({ method: 'DELETE', path: '/api/v1/namespaces/default/configmaps', user: alice });
    await server.handle({ method: 'GET', path: '/version', user: alice });
    await server.handle({ method: 'PUT', path: '/api/v1/namespaces/kube-public/finalize', user: alice, body: Buffer.from('{}') });
    assert.deepEqual(events.slice(-4).map((x) => [x.verb, x.objectRef ? `${x.objectRef.resource}/${x.objectRef.namespace ?? ''}/${x.objectRef.name ?? ''}/${x.objectRef.subresource ?? ''}` : x.requestURI]), [
      ['list', 'namespaces///'],
      ['deletecollection', 'configmaps/default//'],
      ['get', '/version'],
      ['update', 'namespaces/kube-public/kube-public/finalize'],
    ]);

    // A watch: one event when it starts, one when it ends.
    const abort = new AbortController();
    const before = events.length;
    const watch = await server.handle({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', query: { watch: 'true' }, user: alice, signal: abort.signal });
    assert.ok(watch.stream);
    assert.deepEqual(events.slice(before).map((x) => [x.stage, x.verb]), [['ResponseStarted', 'watch']]);
    const it = watch.stream[Symbol.asyncIterator]();
    abort.abort();
    while (!(await it.next()).done);
    assert.deepEqual(events.slice(before).map((x) => [x.stage, x.verb, x.auditID === watch.headers['audit-id']]), [['ResponseStarted', 'watch', true], ['ResponseComplete', 'watch', true]]);

    // A watch answered as objects (in-process) is audited the same.
    const abortObjects = new AbortController();
    const start = events.length;
    const objects = await server.handle({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', query: { watch: 'true' }, user: alice, signal: abortObjects.signal, objects: true });
    assert.ok(objects.events);
    assert.ok(objects.headers['audit-id']);
    assert.deepEqual(events.slice(start).map((x) => [x.stage, x.verb]), [['ResponseStarted', 'watch']]);
    const batches = objects.events[Symbol.asyncIterator]();
    abortObjects.abort();
    while (!(await batches.next()).done);
    assert.deepEqual(events.slice(start).map((x) => [x.stage, x.verb, x.auditID === objects.headers['audit-id']]), [['ResponseStarted', 'watch', true], ['ResponseComplete', 'watch', true]]);
  } finally {
    await server.close();
    await backend.close();
  }
});

it('records the impersonated user and the authorization decision the later layers report', async () => {
  const events: AuditEvent[] = [];
  const inner = async (req: RawRequest): Promise<RawResponse> => {
    // Impersonation hands on a copy of the request: the audit context goes with it.
    const { 'impersonate-user': _, ...headers } = req.headers ?? {};
    const asBob: RawRequest = { ...req, headers, user: { username: 'bob', groups: ['system:authenticated'] } };
    recordImpersonatedUser(asBob, asBob.user!);
    recordAuthorizationDecision(asBob, true, 'RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "view" to User "bob"');
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') };
  };
  const handle = withAudit(inner, { sink: { write: (e) => events.push(e) } });
  await handle({ method: 'GET', path: '/api/v1/pods', user: alice, headers: { 'impersonate-user': 'bob' } });
  assert.deepEqual(events[0]!.impersonatedUser, { username: 'bob', groups: ['system:authenticated'] });
  assert.deepEqual(events[0]!.annotations, {
    'authorization.k8s.io/decision': 'allow',
    'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "view" to User "bob"',
  });
  // Outside an audited request the recorders do nothing.
  recordAuthorizationDecision({ method: 'GET', path: '/' }, false, '');
});

it('records the authorizer decision and the impersonated user of requests the handler authorizes', async () => {
  const events: AuditEvent[] = [];
  const backend = createMemoryBackend();
  const server = createApiServer({ backend, audit: { write: (e) => events.push(e) } });
  await server.start();
  try {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const post = async (path: string, obj: object) => assert.equal((await server.handle({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(obj)) })).status, 201);
    await post(`${rbac}/namespaces/default/roles`, { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] });
    const created = await server.handle({ method: 'POST', path: `${rbac}/namespaces/default/rolebindings`, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ metadata: { name: 'carol' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'carol' }] })) });
    await post(`${rbac}/clusterroles`, { metadata: { name: 'impersonator' }, rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['carol'] }] });
    const last = await server.handle({ method: 'POST', path: `${rbac}/clusterrolebindings`, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ metadata: { name: 'dan' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonator' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'dan' }] })) });
    await server.rbacSynced('rolebindings', JSON.parse(Buffer.from(created.body!).toString()).metadata.resourceVersion);
    await server.rbacSynced('clusterrolebindings', JSON.parse(Buffer.from(last.body!).toString()).metadata.resourceVersion);
    const carol = { username: 'carol', groups: ['system:authenticated'] };
    const dan = { username: 'dan', groups: ['system:authenticated'] };

    events.length = 0;
    assert.equal((await server.handle({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', user: carol })).status, 200);
    assert.deepEqual(events.at(-1)!.annotations, {
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': 'RBAC: allowed by RoleBinding "carol/default" of Role "cm-reader" to User "carol"',
    });
    assert.equal((await server.handle({ method: 'GET', path: '/api/v1/namespaces/default/secrets', user: carol })).status, 403);
    assert.deepEqual([events.at(-1)!.annotations, events.at(-1)!.responseStatus?.code], [{ 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' }, 403]);
    // The same request again: the remembered decision is recorded too.
    await server.handle({ method: 'GET', path: '/api/v1/namespaces/default/secrets', user: carol });
    assert.equal(events.at(-1)!.annotations?.['authorization.k8s.io/decision'], 'forbid');

    // dan acts as carol: the event keeps dan as the user and names carol as impersonated.
    const asCarol = await server.handle({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', user: dan, headers: { 'impersonate-user': 'carol' } });
    assert.equal(asCarol.status, 200);
    const e = events.at(-1)!;
    assert.deepEqual([e.user.username, e.impersonatedUser, e.annotations?.['authorization.k8s.io/decision']], ['dan', { username: 'carol', groups: ['system:authenticated'] }, 'allow']);
    // Impersonation refused: 403, no impersonated user.
    assert.equal((await server.handle({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', user: dan, headers: { 'impersonate-user': 'erin' } })).status, 403);
    assert.deepEqual([events.at(-1)!.impersonatedUser, events.at(-1)!.responseStatus?.code], [undefined, 403]);
  } finally {
    await server.close();
    await backend.close();
  }
});

it('appends JSON lines to an owner-only file, and drops rather than grows past its buffer', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-audit-'));
  try {
    const path = join(dir, 'audit.log');
    const errors: string[] = [];
    const log = await createAuditLog({ path, maxBufferedEvents: 2, onError: (m) => errors.push(m) });
    const ev = (n: number): AuditEvent => ({
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: String(n), stage: 'ResponseComplete', requestURI: '/', verb: 'get', user: {},
      requestReceivedTimestamp: microTime(new Date(0)), stageTimestamp: microTime(new Date(0)),
    });
    for (let i = 0; i < 6; i++) log.write(ev(i));
    await log.flush();
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    assert.equal(lines.length + log.dropped(), 6);
    assert.ok(log.dropped() > 0, 'the buffer is bounded');
    assert.deepEqual(errors, Array(log.dropped()).fill('buffer full: events dropped'));
    assert.equal(JSON.parse(lines[0]!).auditID, '0');
    log.write(ev(9));
    await log.close();
    assert.equal(JSON.parse((await readFile(path, 'utf8')).trim().split('\n').at(-1)!).auditID, '9');
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.equal(microTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678))), '2026-01-02T03:04:05.678000Z');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
