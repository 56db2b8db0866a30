import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientFromKubeconfig } from '@kplane/client';
import { simulationPolicy } from '@kplane/kubelet';
import { createMemoryBackend, type Backend } from '@kplane/storage';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { userKubeconfig } from './commands/kubeconfig.js';

const ENDPOINTS = { group: '', version: 'v1', resource: 'endpoints', namespaced: true, kind: 'Endpoints' } as const;
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true, kind: 'ConfigMap' } as const;

/** The backend, except that closing it is left to the test (several control planes share it). */
const shared = (backend: Backend): Backend => new Proxy(backend, { get: (t, p) => (p === 'close' ? async () => {} : Reflect.get(t, p, t)) });

it('two API servers over one storage: both in the kubernetes endpoints, a kubeconfig listing both fails over when one stops', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-ha-'));
  const backend = createMemoryBackend();
  const servers: ControlPlane[] = [];
  try {
    // As `kplane apiserver` runs them: one data dir (PKI) for the cluster, the nodes' and the scheduler's roles.
    for (let i = 0; i < 2; i++) {
      servers.push(await startControlPlane({ dataDir: dir, backend: shared(backend), port: 0, apiServer: { bootstrapPolicy: simulationPolicy() } }));
    }
    const [a, b] = servers as [ControlPlane, ControlPlane];
    const ports = [a.port!, b.port!].sort((x, y) => x - y);
    // b published both when it started (a's record was there); a publishes both at its next round.
    const ep = await b.client.resource(ENDPOINTS).get('kubernetes', { namespace: 'default' });
    assert.deepEqual(
      (ep as { subsets?: { ports: { port: number }[] }[] }).subsets?.map((s) => s.ports[0]!.port),
      ports,
    );
    const ca = await readFile(join(dir, 'pki', 'ca.crt'), 'utf8');
    const caKey = await readFile(join(dir, 'pki', 'ca.key'), 'utf8');
    const text = await userKubeconfig({ user: 'alice', groups: ['system:masters'], caCert: ca, caKey, server: a.url!, moreServers: [b.url!] });
    const client = clientFromKubeconfig(text);
    try {
      const cms = client.resource(CONFIGMAPS);
      await cms.create({ metadata: { name: 'one' }, data: { v: '1' } }, { namespace: 'default' });
      await a.stop();
      servers.shift();
      // a is gone: the same client now reaches b, where a's write is.
      assert.deepEqual((await cms.get('one', { namespace: 'default' })).data, { v: '1' });
      await cms.create({ metadata: { name: 'two' }, data: { v: '2' } }, { namespace: 'default' });
      const after = await b.client.resource(ENDPOINTS).get('kubernetes', { namespace: 'default' });
      assert.deepEqual((after as { subsets?: { ports: { port: number }[] }[] }).subsets?.map((s) => s.ports[0]!.port), [b.port], 'a left the endpoints when it stopped');
    } finally {
      client.transport.close();
    }
  } finally {
    for (const s of servers) await s.stop();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
});

it('serves with a given serving certificate (--tls-cert-file) and publishes the advertised address', async () => {
  const { createCa, issueCertificate } = await import('@kplane/apiserver');
  const { request } = await import('node:https');
  const dir = await mkdtemp(join(tmpdir(), 'kplane-tls-'));
  const ca = await createCa('another-ca');
  const serving = await issueCertificate(ca, { subject: 'CN=apiserver', usage: 'server', ipAddresses: ['127.0.0.1'] });
  const cp = await startControlPlane({ dataDir: dir, storage: 'memory', port: 0, tls: { cert: serving.cert, key: serving.key }, apiServer: { advertiseAddress: '10.1.2.3' } });
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${cp.url}/readyz`, { ca: ca.pem.cert }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 200, 'the certificate of the other CA is the one served');
    const ep = await cp.client.resource(ENDPOINTS).get('kubernetes', { namespace: 'default' });
    assert.deepEqual((ep as { subsets?: { addresses: { ip: string }[] }[] }).subsets?.[0]?.addresses, [{ ip: '10.1.2.3' }]);
  } finally {
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
