import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { webcrypto } from 'node:crypto';
import type { UserInfo } from '@kplane/api';
import * as x509 from '@peculiar/x509';
import '../auth/pki.js';
import { startTestServer, type TestServer } from '../testing.js';
import { validateSignerName } from './certificates.js';
import { certificateError, checkCsrSignature, parseCsrPem } from './csr-request.js';

const PATH = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const ALICE: UserInfo = { username: 'alice', uid: 'a-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['x'] } };

async function csrPem(subject = 'CN=alice, O=dev, O=ops', alg: 'ECDSA' | 'RSA' = 'ECDSA'): Promise<string> {
  const params = alg === 'ECDSA' ? { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } : { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
  const keys = (await webcrypto.subtle.generateKey(params, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const req = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: params });
  return req.toString('pem');
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

function csrBody(name: string, request: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: b64(request), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...extra },
  };
}

let ts: TestServer;
let pem: string;
before(async () => {
  ts = await startTestServer();
  pem = await csrPem();
  // alice may do anything (where the server authorizes requests); the tests are about CSRs.
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'alice-admin' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
  };
  assert.equal((await as(undefined, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding)).status, 201);
  // The authorizer follows bindings through a watch: wait until it has seen this one.
  for (let i = 0; (await as(ALICE, 'GET', PATH)).status === 403; i++) {
    assert.ok(i < 1000, 'the binding never took effect');
    await new Promise((r) => setImmediate(r));
  }
});
after(() => ts.close());

async function as(user: UserInfo | undefined, method: string, path: string, body?: unknown) {
  const r = await ts.server.handle({
    method,
    path,
    query: {},
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    ...(user ? { user } : {}),
  });
  return { status: r.status, body: JSON.parse(Buffer.from(r.body ?? new Uint8Array()).toString() || '{}') };
}

test('parseCsrPem reads the subject and checkCsrSignature verifies EC and RSA requests; a changed byte fails', async () => {
  for (const alg of ['ECDSA', 'RSA'] as const) {
    const p = await csrPem('CN=bob, O=a, O=b', alg);
    const parsed = parseCsrPem(p);
    assert.equal(parsed.commonName, 'bob');
    assert.deepEqual(parsed.organizations, ['a', 'b']);
    checkCsrSignature(parsed);
    parsed.tbs[parsed.tbs.length - 1] ^= 1;
    assert.throws(() => checkCsrSignature(parsed), { message: alg === 'ECDSA' ? 'x509: ECDSA verification failure' : 'crypto/rsa: verification error' });
  }
  assert.throws(() => parseCsrPem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), { message: 'PEM block type must be CERTIFICATE REQUEST' });
  assert.throws(() => parseCsrPem('nothing'), { message: 'PEM block type must be CERTIFICATE REQUEST' });
  assert.equal(certificateError(''), undefined);
  assert.equal(certificateError('junk'), 'must contain at least one CERTIFICATE PEM block');
  assert.equal(certificateError(pem), 'only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"');
});

test('signerName must be domain/path', () => {
  const m = (s: string) => validateSignerName('spec.signerName', s).map((c) => c.message);
  assert.deepEqual(m('kubernetes.io/kube-apiserver-client'), []);
  assert.deepEqual(m(''), ['Required value']);
  assert.deepEqual(m('foo'), ["Invalid value: \"foo\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]);
  assert.deepEqual(m('example/x'), ['Invalid value: "example": should be a domain with at least two segments separated by dots']);
  assert.equal(m('Bad_.com/x').length, 1);
});

test('create: the requester fills spec.username/uid/groups/extra, whatever the body says; the status is dropped', async () => {
  const body = csrBody('alice-1', pem, { username: 'admin', groups: ['system:masters'] });
  (body as Record<string, unknown>).status = { conditions: [{ type: 'Approved', status: 'True' }] };
  const r = await as(ALICE, 'POST', PATH, body);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.spec.username, 'alice');
  assert.equal(r.body.spec.uid, 'a-1');
  assert.deepEqual(r.body.spec.groups, ['dev', 'system:authenticated']);
  assert.deepEqual(r.body.spec.extra, { scopes: ['x'] });
  assert.equal(r.body.status, undefined);
  // In-process code without a user acts as the API server's own admin identity.
  const r2 = await as(undefined, 'POST', PATH, csrBody('internal', pem));
  assert.equal(r2.body.spec.username, 'system:apiserver');
  // The spec cannot change afterwards: an update keeps the stored spec.
  const changed = structuredClone(r.body);
  changed.spec.username = 'mallory';
  changed.spec.usages = ['server auth'];
  changed.metadata.labels = { a: 'b' };
  const u = await as(ALICE, 'PUT', `${PATH}/alice-1`, changed);
  assert.equal(u.status, 200, JSON.stringify(u.body));
  assert.equal(u.body.spec.username, 'alice');
  assert.deepEqual(u.body.spec.usages, ['client auth']);
  assert.deepEqual(u.body.metadata.labels, { a: 'b' });
});

test('create: validation as kube-apiserver', async () => {
  const causes = async (body: unknown) => {
    const r = await as(ALICE, 'POST', PATH, body);
    assert.equal(r.status, 422, JSON.stringify(r.body));
    return (r.body.details.causes as { field: string; message: string }[]).map((c) => `${c.field}: ${c.message.replace(/\[\]byte\{[^}]*\}/, '[]byte{…}')}`);
  };
  assert.deepEqual(await causes(csrBody('bad1', 'hello')), ['spec.request: Invalid value: []byte{…}: PEM block type must be CERTIFICATE REQUEST']);
  // A request whose signature does not verify.
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
  der[der.length - 3] ^= 0xff;
  const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
  const sig = await causes(csrBody('bad2', tampered));
  assert.equal(sig.length, 1);
  assert.match(sig[0]!, /^spec\.request: Invalid value: \[\]byte\{…\}: (x509: ECDSA verification failure|x509: malformed certificate request)$/);
  assert.deepEqual(await causes(csrBody('bad3', pem, { usages: [], signerName: '' })), ['spec.usages: Required value', 'spec.signerName: Required value']);
  assert.deepEqual(await causes(csrBody('bad4', pem, { usages: ['client auth', 'flying', 'client auth'], expirationSeconds: 599 })), [
    `spec.usages[1]: Unsupported value: "flying": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"`,
    'spec.usages[2]: Duplicate value: "client auth"',
    'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)',
  ]);
  assert.deepEqual(await causes(csrBody('bad5', pem, { signerName: 'kubernetes.io/legacy-unknown' })), ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']);
  const ok = await as(ALICE, 'POST', PATH, csrBody('ok-600', pem, { expirationSeconds: 600 }));
  assert.equal(ok.status, 201);
});

test('approval: only Approved/Denied conditions, not both, never removed; status: no approval conditions, certificate once', async () => {
  await as(ALICE, 'POST', PATH, csrBody('flow', pem));
  const get = async () => (await as(undefined, 'GET', `${PATH}/flow`)).body;
  const withConditions = (obj: any, conditions: unknown[]) => ({ ...obj, status: { ...(obj.status ?? {}), conditions } });
  const approved = { type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'This CSR was approved by kubectl certificate approve.' };

  // The main resource and /status cannot approve.
  let cur = await get();
  let r = await as(ALICE, 'PUT', `${PATH}/flow`, withConditions(cur, [approved]));
  assert.equal(r.status, 200);
  assert.equal(r.body.status, undefined);
  r = await as(ALICE, 'PUT', `${PATH}/flow/status`, withConditions(cur, [approved]));
  assert.equal(r.status, 422);
  assert.equal(r.body.message, 'CertificateSigningRequest.certificates.k8s.io "flow" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"');

  // Approved and Denied together are refused; Approved alone is taken, with timestamps filled.
  r = await as(ALICE, 'PUT', `${PATH}/flow/approval`, withConditions(cur, [approved, { type: 'Denied', status: 'True' }]));
  assert.equal(r.status, 422);
  assert.match(r.body.message, /status\.conditions\[1\]\.type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive/);
  r = await as(ALICE, 'PUT', `${PATH}/flow/approval`, withConditions(cur, [{ type: 'Approved', status: 'False' }]));
  assert.equal(r.status, 422);
  assert.match(r.body.message, /status\.conditions\[0\]\.status: Unsupported value: "False": supported values: "True"/);
  r = await as(ALICE, 'PUT', `${PATH}/flow/approval`, withConditions({ ...cur, spec: { ...cur.spec, usages: ['server auth'] } }, [approved]));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.status.conditions[0].type, 'Approved');
  assert.ok(r.body.status.conditions[0].lastUpdateTime);
  assert.ok(r.body.status.conditions[0].lastTransitionTime);
  assert.deepEqual(r.body.spec.usages, ['client auth']);
  const view = await as(ALICE, 'GET', `${PATH}/flow/approval`);
  assert.equal(view.body.status.conditions[0].type, 'Approved');

  // Removing it is refused, on /approval and on /status.
  cur = await get();
  r = await as(ALICE, 'PUT', `${PATH}/flow/approval`, withConditions(cur, []));
  assert.equal(r.status, 422);
  assert.match(r.body.message, /status\.conditions: Forbidden: updates may not remove a condition of type "Approved"/);
  r = await as(ALICE, 'PUT', `${PATH}/flow/status`, withConditions(cur, []));
  assert.equal(r.status, 422);

  // /status: a certificate is set once; approval conditions sent changed are kept as stored.
  const cert = (await import('../auth/pki.js')).createCa('issued');
  const certPem = (await cert).pem.cert;
  r = await as(ALICE, 'PUT', `${PATH}/flow/status`, { ...cur, status: { ...cur.status, certificate: b64('junk') } });
  assert.equal(r.status, 422);
  assert.match(r.body.message, /status\.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block/);
  r = await as(ALICE, 'PUT', `${PATH}/flow/status`, { ...cur, status: { conditions: [{ ...cur.status.conditions[0], message: 'changed' }], certificate: b64(certPem) } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.status.conditions[0].message, approved.message);
  assert.equal(Buffer.from(r.body.status.certificate, 'base64').toString(), certPem);
  cur = await get();
  r = await as(ALICE, 'PUT', `${PATH}/flow/status`, { ...cur, status: { ...cur.status, certificate: b64((await (await import('../auth/pki.js')).createCa('other')).pem.cert) } });
  assert.equal(r.status, 422);
  assert.match(r.body.message, /status\.certificate: Forbidden: updates may not modify existing certificate content/);
  // /approval cannot set the certificate either: it keeps the stored one.
  r = await as(ALICE, 'PUT', `${PATH}/flow/approval`, { ...cur, status: { ...cur.status, certificate: '' } });
  assert.equal(r.status, 200);
  assert.equal(Buffer.from(r.body.status.certificate, 'base64').toString(), certPem);

  // Table: Condition column and requestor.
  const table = await ts.call('GET', `${PATH}/flow`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  assert.deepEqual(table.body.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
  assert.deepEqual(table.body.rows[0].cells.slice(2), ['kubernetes.io/kube-apiserver-client', 'alice', '<none>', 'Approved,Issued']);
  const sel = await ts.call('GET', `${PATH}?fieldSelector=spec.signerName=example.com/x`);
  assert.equal(sel.body.items.length, 0);
});

test('denied: Denied is added through /approval and cannot be turned into Approved', async () => {
  await as(ALICE, 'POST', PATH, csrBody('deny', pem));
  const cur = (await as(undefined, 'GET', `${PATH}/deny`)).body;
  let r = await as(ALICE, 'PUT', `${PATH}/deny/approval`, { ...cur, status: { conditions: [{ type: 'Denied', status: 'True', reason: 'KubectlDeny' }] } });
  assert.equal(r.status, 200);
  r = await as(ALICE, 'PUT', `${PATH}/deny/approval`, { ...r.body, status: { conditions: [...r.body.status.conditions, { type: 'Approved', status: 'True' }] } });
  assert.equal(r.status, 422);
  const other = await as(ALICE, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/x/approval', {});
  assert.equal(other.status, 404);
});

test('no kube-apiserver-client certificate for system:masters (CertificateSubjectRestriction)', async () => {
  const masters = await csrPem('CN=eve, O=system:masters');
  const r = await as(ALICE, 'POST', PATH, csrBody('eve', masters));
  assert.equal(r.status, 403);
  assert.equal(r.body.reason, 'Forbidden');
  assert.equal(r.body.message, 'certificatesigningrequests.certificates.k8s.io "eve" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed');
  // Another signer may.
  assert.equal((await as(ALICE, 'POST', PATH, csrBody('eve-other', masters, { signerName: 'example.com/masters' }))).status, 201);
});

test('approving needs approve, issuing needs sign, on signers named by the signerName or domain/* (CertificateApproval/CertificateSigning)', async () => {
  await as(ALICE, 'POST', PATH, csrBody('authz', pem, { signerName: 'example.com/team' }));
  const store = ts.server.registry.get('certificates.k8s.io', 'v1', 'certificatesigningrequests')!;
  const asked: string[] = [];
  const grants = new Set<string>();
  const authorizer = {
    authorize(a: { user: UserInfo; verb: string; resource?: string; name?: string }) {
      asked.push(`${a.user.username} ${a.verb} ${a.resource} ${a.name}`);
      return { allowed: grants.has(`${a.verb} ${a.name}`), reason: '' };
    },
  };
  const cur = await store.get(undefined, 'authz');
  const approve = { ...cur, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R' }] } };
  await assert.rejects(store.update(undefined, 'authz', structuredClone(approve), { subresource: 'approval', user: ALICE, authorizer }), {
    code: 403,
    message: 'certificatesigningrequests.certificates.k8s.io "authz" is forbidden: user not permitted to approve requests with signerName "example.com/team"',
  });
  assert.deepEqual(asked, ['alice approve signers example.com/team', 'alice approve signers example.com/*']);
  grants.add('approve example.com/*');
  const approved = await store.update(undefined, 'authz', structuredClone(approve), { subresource: 'approval', user: ALICE, authorizer });
  const withCert = { ...approved, status: { ...(approved.status as object), certificate: b64((await (await import('../auth/pki.js')).createCa('x')).pem.cert) } };
  await assert.rejects(store.update(undefined, 'authz', structuredClone(withCert), { subresource: 'status', user: ALICE, authorizer }), {
    code: 403,
    message: 'certificatesigningrequests.certificates.k8s.io "authz" is forbidden: user not permitted to sign requests with signerName "example.com/team"',
  });
  grants.add('sign example.com/team');
  await store.update(undefined, 'authz', structuredClone(withCert), { subresource: 'status', user: ALICE, authorizer });
  // In-process code (no user) is not asked.
  asked.length = 0;
  await store.update(undefined, 'authz', { ...(await store.get(undefined, 'authz')), metadata: { name: 'authz', labels: { x: 'y' } } }, { authorizer });
  assert.deepEqual(asked, []);
});

test('discovery lists certificatesigningrequests with its approval and status subresources', async () => {
  const r = await ts.call('GET', '/apis/certificates.k8s.io/v1');
  const names = (r.body.resources as { name: string; verbs: string[]; shortNames?: string[] }[]).map((x) => `${x.name} ${x.verbs.join(',')}`);
  assert.deepEqual(names, [
    'certificatesigningrequests create,delete,deletecollection,get,list,patch,update,watch',
    'certificatesigningrequests/approval get,patch,update',
    'certificatesigningrequests/status get,patch,update',
  ]);
  assert.deepEqual(r.body.resources[0].shortNames, ['csr']);
});

test('a merge patch on /approval approves; on the object it changes nothing but metadata', async () => {
  await as(ALICE, 'POST', PATH, csrBody('patched', pem));
  const patch = async (path: string, body: unknown) => {
    const r = await ts.server.handle({ method: 'PATCH', path, query: {}, headers: { 'content-type': 'application/merge-patch+json' }, body: Buffer.from(JSON.stringify(body)), user: ALICE });
    return { status: r.status, body: JSON.parse(Buffer.from(r.body!).toString()) };
  };
  let r = await patch(`${PATH}/patched`, { spec: { signerName: 'example.com/x' }, status: { conditions: [{ type: 'Approved', status: 'True' }] }, metadata: { labels: { p: 'q' } } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.spec.signerName, 'kubernetes.io/kube-apiserver-client');
  assert.equal(r.body.status, undefined);
  assert.deepEqual(r.body.metadata.labels, { p: 'q' });
  r = await patch(`${PATH}/patched/approval`, { status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Patched' }] } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.status.conditions[0].reason, 'Patched');
});
