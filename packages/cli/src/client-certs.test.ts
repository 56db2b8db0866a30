import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCa } from '@kplane/apiserver';
import { cachedClientCertificate, reusableClientCertificate } from './client-certs.js';

test('cachedClientCertificate issues once, then reuses the files while the CA and name match', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-client-certs-'));
  try {
    const ca = (await createCa()).pem;
    const first = await cachedClientCertificate(dir, 'front-proxy-client', 'front-proxy-client', ca.cert, ca.key);
    assert.equal(await readFile(join(dir, 'front-proxy-client.crt'), 'utf8'), first.cert);
    assert.equal((await stat(join(dir, 'front-proxy-client.key'))).mode & 0o777, 0o600);
    assert.ok(reusableClientCertificate(first, ca.cert, 'front-proxy-client', new Date()));
    const again = await cachedClientCertificate(dir, 'front-proxy-client', 'front-proxy-client', ca.cert, ca.key);
    assert.deepEqual(again, first, 'the second start reads the files');

    // Another CA (the data dir's PKI made again): the certificate is issued anew by it.
    const other = (await createCa()).pem;
    assert.equal(reusableClientCertificate(first, other.cert, 'front-proxy-client', new Date()), false);
    const reissued = await cachedClientCertificate(dir, 'front-proxy-client', 'front-proxy-client', other.cert, other.key);
    assert.notEqual(reissued.cert, first.cert);
    assert.ok(reusableClientCertificate(reissued, other.cert, 'front-proxy-client', new Date()));

    // Another name, a key that does not match, a certificate near its end: not reusable.
    assert.equal(reusableClientCertificate(reissued, other.cert, 'kube-apiserver-kubelet-client', new Date()), false);
    const stranger = await cachedClientCertificate(dir, 'stranger', 'stranger', other.cert, other.key);
    assert.equal(reusableClientCertificate({ cert: reissued.cert, key: stranger.key }, other.cert, 'front-proxy-client', new Date()), false);
    const inElevenMonths = new Date(Date.now() + 340 * 24 * 3600 * 1000);
    assert.equal(reusableClientCertificate(reissued, other.cert, 'front-proxy-client', inElevenMonths), false);

    // A damaged file is replaced.
    await writeFile(join(dir, 'front-proxy-client.crt'), 'not a certificate');
    const repaired = await cachedClientCertificate(dir, 'front-proxy-client', 'front-proxy-client', other.cert, other.key);
    assert.ok(reusableClientCertificate(repaired, other.cert, 'front-proxy-client', new Date()));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
