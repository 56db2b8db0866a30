import assert from 'node:assert/strict';
import { test } from 'node:test';
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ensurePki } from '@kplane/apiserver';
import { kubeconfig } from './kubeconfig.js';

test('kplane kubeconfig --user --group --out: a 0600 kubeconfig whose certificate is CN=user, O=each group, signed by the CA', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-kubeconfig-'));
  try {
    const pki = await ensurePki(join(dir, 'pki'));
    await writeFile(join(dir, 'kubeconfig'), 'clusters:\n- name: kplane\n  cluster:\n    server: https://127.0.0.1:7443\n');
    const out = join(dir, 'alice.kubeconfig');
    await kubeconfig(['--data-dir', dir, '--user', 'alice', '--group', 'dev', '--group', 'team, "a"', '--out', out, '--validity', '2h']);
    assert.equal((await stat(out)).mode & 0o777, 0o600);
    const doc = parse(await readFile(out, 'utf8'));
    assert.equal(doc.clusters[0].cluster.server, 'https://127.0.0.1:7443');
    assert.equal(Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), pki.ca.cert);
    assert.equal(doc['current-context'], 'alice@kplane');
    assert.equal(doc.users[0].name, 'alice');
    const cert = new X509Certificate(Buffer.from(doc.users[0].user['client-certificate-data'], 'base64'));
    const ca = new X509Certificate(pki.ca.cert);
    assert.ok(cert.verify(ca.publicKey));
    assert.equal(cert.issuer, ca.subject);
    // node:crypto escapes the special characters when it prints a subject.
    assert.equal(cert.subject, 'CN=alice\nO=dev\nO=team\\, \\"a\\"');
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    const validMs = new Date(cert.validTo).getTime() - Date.now();
    assert.ok(validMs > 3600_000 && validMs <= 2 * 3600_000, String(validMs));
    // The key is the certificate's.
    const key = createPrivateKey(Buffer.from(doc.users[0].user['client-key-data'], 'base64').toString());
    assert.deepEqual(createPublicKey(key).export({ format: 'der', type: 'spki' }), cert.publicKey.export({ format: 'der', type: 'spki' }));
    await assert.rejects(kubeconfig(['--data-dir', dir]), { message: '--user is required' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
