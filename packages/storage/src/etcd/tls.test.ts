import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBackend } from '../factory.js';
import { ETCD_MISSING, findEtcd, startEtcd, type EtcdTlsFiles, type TestEtcd } from '../testing/etcd-server.js';

const hasOpenssl = !spawnSync('openssl', ['version'], { stdio: 'ignore' }).error;
const skip = !findEtcd() ? ETCD_MISSING : !hasOpenssl ? 'openssl is not installed; the etcd TLS test makes its certificates with it' : false;
const dir = mkdtempSync(join(tmpdir(), 'kplane-etcd-tls-'));
let etcd: TestEtcd | undefined;
after(async () => {
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A CA, a server certificate for 127.0.0.1 and a client certificate, with openssl. */
function makeCertificates(): EtcdTlsFiles {
  const f = (name: string): string => join(dir, name);
  const run = (...args: string[]): void => {
    const r = spawnSync('openssl', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  };
  const key = (name: string): void => run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', f(name));
  key('ca.key');
  run('req', '-x509', '-new', '-key', f('ca.key'), '-subj', '/CN=kplane-test-etcd-ca', '-days', '2', '-out', f('ca.crt'));
  const leaf = (name: string, cn: string, ext: string): void => {
    key(`${name}.key`);
    run('req', '-new', '-key', f(`${name}.key`), '-subj', `/CN=${cn}`, '-out', f(`${name}.csr`));
    writeFileSync(f(`${name}.ext`), ext);
    run('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', f(`${name}.ext`), '-out', f(`${name}.crt`));
  };
  leaf('server', 'etcd', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  leaf('client', 'kplane', 'extendedKeyUsage=clientAuth\n');
  return { caFile: f('ca.crt'), certFile: f('server.crt'), keyFile: f('server.key'), clientCertFile: f('client.crt'), clientKeyFile: f('client.key') };
}

test('etcds:// with cafile, certfile and keyfile talks to an etcd that requires client certificates', { skip, timeout: 60_000 }, async () => {
  const files = makeCertificates();
  etcd = await startEtcd({ tls: files });
  const b = await createBackend(etcd.url);
  try {
    const a = await b.create('/registry/configmaps/default/a', '{"tls":true}');
    assert.deepEqual(await b.get('/registry/configmaps/default/a'), a);
    const ac = new AbortController();
    const it = b.watch('/registry/configmaps/', a.modRevision - 1, ac.signal)[Symbol.asyncIterator]();
    assert.equal((await it.next()).value?.kv.value, '{"tls":true}');
    ac.abort();
  } finally {
    await b.close();
  }
  // Without the client certificate etcd refuses the connection.
  const port = etcd.endpoint.split(':')[1];
  await assert.rejects(
    (async () => {
      const anonymous = await createBackend(`etcd://127.0.0.1:${port}?cafile=${encodeURIComponent(files.caFile)}`);
      await anonymous.close();
    })(),
  );
});
