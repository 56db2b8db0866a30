import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { X509Certificate, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { createCa } from '@kplane/apiserver';
import { createFakeClock, createManager } from '@kplane/runtime';
import { eventually } from '@kplane/api/testing';
import { startTestKplane, type TestKplane } from '../namespace/testing.js';
import type { CertificateSigningRequest } from '@kplane/runtime';
import { CertificateSigningRequests, createCsrCleanerController, createCsrSigningController, csrCleanupDeadline } from './controller.js';
import { BACKDATE_MS, kubeApiServerClientUsagesError, loadSigningCa, signRequest, type SigningCa } from './sign.js';

const PATH = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

async function csrPem(subject: string): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: alg })).toString('pem');
}

let kp: TestKplane;
let ca: SigningCa;
let caPem: string;
let pem: string;
before(async () => {
  kp = await startTestKplane();
  const made = await createCa('test-ca');
  caPem = made.pem.cert;
  ca = await loadSigningCa(made.pem.cert, made.pem.key);
  pem = await csrPem('CN=alice, O=dev, O=ops');
});
after(() => kp.close());

it('signRequest: issuer, subject CN/O, validity from now (backdated 5 min), client auth usage, signed by the CA', async () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const out = new X509Certificate(await signRequest(ca, { request: pem, usages: ['client auth', 'digital signature'], durationMs: 3600_000, now }));
  const caCert = new X509Certificate(caPem);
  assert.equal(out.issuer, caCert.subject);
  assert.equal(out.subject, 'CN=alice\nO=dev\nO=ops');
  assert.equal(new Date(out.validFrom).getTime(), now.getTime() - BACKDATE_MS);
  assert.equal(new Date(out.validTo).getTime(), now.getTime() + 3600_000);
  assert.deepEqual(out.keyUsage, [CLIENT_AUTH_OID]);
  assert.equal(out.ca, false);
  assert.ok(out.checkIssued(caCert));
  assert.ok(out.verify(caCert.publicKey));
  // Never past the CA's own expiry.
  const long = new X509Certificate(await signRequest(ca, { request: pem, usages: ['client auth'], durationMs: 100 * 365 * 24 * 3600_000, now }));
  assert.equal(new Date(long.validTo).getTime(), new Date(caCert.validTo).getTime());
});

it('kube-apiserver-client usages: client auth required, digital signature and key encipherment allowed', () => {
  assert.equal(kubeApiServerClientUsagesError(['client auth', 'key encipherment', 'digital signature']), undefined);
  assert.equal(kubeApiServerClientUsagesError(['digital signature']), 'missing required usage for client certificate: client auth');
  assert.equal(kubeApiServerClientUsagesError(['client auth', 'server auth']), 'invalid usage for client certificate: server auth');
});

async function create(name: string, spec: Record<string, unknown> = {}): Promise<CertificateSigningRequest> {
  return kp.client.resource(CertificateSigningRequests).create({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
  });
}

async function decide(name: string, type: 'Approved' | 'Denied'): Promise<void> {
  const cur = await kp.client.resource(CertificateSigningRequests).get(name);
  cur.status = { conditions: [{ type, status: 'True', reason: type === 'Approved' ? 'KubectlApprove' : 'KubectlDeny', message: 'by test' }] };
  const r = await kp.client.raw({ method: 'PUT', path: `${PATH}/${name}/approval`, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(cur)) });
  assert.equal(r.status, 200);
}

it('signs approved kube-apiserver-client CSRs; pending, denied and other signers are left alone; bad usages fail', async () => {
  const manager = createManager({ client: kp.client });
  createCsrSigningController({ manager, ca, durationMs: 2 * 3600_000 });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const api = kp.client.resource(CertificateSigningRequests);
  try {
    await create('pending');
    await create('denied');
    await create('other', { signerName: 'example.com/other' });
    await create('short', { expirationSeconds: 600 });
    await create('long', { expirationSeconds: 10 * 3600 });
    await create('server', { usages: ['client auth', 'server auth'] });
    for (const n of ['other', 'short', 'long', 'server']) await decide(n, 'Approved');
    await decide('denied', 'Denied');

    const short = await eventually('short signed', async () => (await api.get('short')).status?.certificate);
    const shortCert = new X509Certificate(Buffer.from(short, 'base64'));
    const span = (c: X509Certificate) => new Date(c.validTo).getTime() - new Date(c.validFrom).getTime();
    assert.equal(span(shortCert), 600_000 + BACKDATE_MS);
    assert.equal(shortCert.subject, 'CN=alice\nO=dev\nO=ops');
    const long = await eventually('long signed', async () => (await api.get('long')).status?.certificate);
    assert.equal(span(new X509Certificate(Buffer.from(long, 'base64'))), 2 * 3600_000 + BACKDATE_MS);
    const failed = await eventually('server failed', async () => (await api.get('server')).status?.conditions?.find((c) => c.type === 'Failed'));
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.equal(failed.message, 'invalid usage for client certificate: server auth');
    assert.equal((await api.get('server')).status?.certificate, undefined);
    for (const n of ['pending', 'denied', 'other']) assert.equal((await api.get(n)).status?.certificate, undefined, n);
  } finally {
    abort.abort();
    await done;
  }
});

it('csrCleanupDeadline: pending 24 h after creation, denied/failed 1 h after the condition, issued 1 h after approval or at expiry', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  assert.equal(csrCleanupDeadline({ metadata: { creationTimestamp: iso(t0) } }), t0 + 24 * 3600_000);
  assert.equal(csrCleanupDeadline({ metadata: { creationTimestamp: iso(t0) }, status: { conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: iso(t0 + 60_000) }] } }), t0 + 60_000 + 3600_000);
  assert.equal(csrCleanupDeadline({ metadata: { creationTimestamp: iso(t0) }, status: { conditions: [{ type: 'Failed', status: 'True', lastUpdateTime: iso(t0) }] } }), t0 + 3600_000);
  // Approved but not issued: kept.
  assert.equal(csrCleanupDeadline({ metadata: { creationTimestamp: iso(t0) }, status: { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: iso(t0) }] } }), undefined);
});

it('the cleaner deletes on the injected clock: a denied CSR after 1 h, a pending one after 24 h', async () => {
  const clock = createFakeClock(Date.now());
  const manager = createManager({ client: kp.client, clock });
  createCsrCleanerController({ manager });
  const api = kp.client.resource(CertificateSigningRequests);
  await create('clean-pending');
  await create('clean-denied');
  await decide('clean-denied', 'Denied');
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const exists = async (n: string) => api.get(n).then(() => true, () => false);
  try {
    await eventually('cleaner waiting', () => clock.pendingTimers() > 0);
    await clock.advanceAsync(30 * 60_000);
    assert.equal(await exists('clean-denied'), true);
    await clock.advanceAsync(31 * 60_000);
    await eventually('denied removed', async () => !(await exists('clean-denied')));
    assert.equal(await exists('clean-pending'), true);
    await clock.advanceAsync(23 * 3600_000);
    await eventually('pending removed', async () => !(await exists('clean-pending')));
  } finally {
    abort.abort();
    await done;
  }
});
