import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientFromEnvironment, inClusterClient, isInCluster, loadInClusterConfig, NotInClusterError } from './in-cluster.js';
import { createFileTokenSource } from './token-file.js';
import { createTestPki } from './tls-fixture.js';

test('in-cluster: without KUBERNETES_SERVICE_HOST and _PORT it is not in a cluster', () => {
  assert.equal(isInCluster({}), false);
  assert.throws(() => loadInClusterConfig({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' } }), (e: unknown) =>
    e instanceof NotInClusterError && e.message === 'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
});

test('in-cluster: server, token, CA and namespace from the mounted files; POD_NAMESPACE first', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kplane-sa-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'token'), 'jeton\n');
  writeFileSync(join(dir, 'namespace'), 'equipe');
  const files = { tokenFile: join(dir, 'token'), caFile: join(dir, 'ca.crt'), namespaceFile: join(dir, 'namespace') };
  const cfg = loadInClusterConfig({ ...files, env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' } });
  assert.equal(cfg.server, 'https://[fd00::1]:443');
  assert.equal(cfg.namespace, 'equipe');
  assert.equal(cfg.transportOptions.token, 'jeton');
  assert.equal(cfg.transportOptions.tokenFile, files.tokenFile);
  assert.equal(cfg.transportOptions.ca, undefined, 'no CA file: the system roots');
  const env = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '6443', POD_NAMESPACE: 'autre' };
  assert.equal(loadInClusterConfig({ ...files, env }).namespace, 'autre');
  assert.equal(loadInClusterConfig({ ...files, namespaceFile: join(dir, 'none'), env: { ...env, POD_NAMESPACE: '' } }).namespace, 'default');
  assert.throws(() => loadInClusterConfig({ ...files, tokenFile: join(dir, 'none'), env }), /ENOENT/);
});

test('in-cluster: the client trusts the mounted CA and picks up a rotated token a minute later', async (t) => {
  const pki = await createTestPki();
  const seen: string[] = [];
  const server = https.createServer({ key: pki.serverKey, cert: pki.serverCert }, (req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'equipe' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'kplane-sa-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  writeFileSync(join(dir, 'token'), 'un');
  writeFileSync(join(dir, 'ca.crt'), pki.caCert);
  writeFileSync(join(dir, 'namespace'), 'equipe');
  let now = 1_000_000;
  const client = inClusterClient({
    env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String((server.address() as AddressInfo).port) },
    tokenFile: join(dir, 'token'),
    caFile: join(dir, 'ca.crt'),
    namespaceFile: join(dir, 'namespace'),
    clock: { now: () => now },
  });
  t.after(() => client.transport.close());
  const ns = client.resource({ group: '', version: 'v1', resource: 'namespaces', namespaced: false });
  await ns.get('equipe');
  writeFileSync(join(dir, 'token'), 'deux');
  now += 59_999;
  await ns.get('equipe');
  now += 1;
  await ns.get('equipe');
  assert.deepEqual(seen, ['Bearer un', 'Bearer un', 'Bearer deux']);
});

test('token file: a failed re-read keeps the last token; the first read must succeed', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kplane-token-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'token');
  assert.throws(() => createFileTokenSource(file).token(), /ENOENT/);
  writeFileSync(file, ' un \n');
  let now = 0;
  const errors: unknown[] = [];
  const source = createFileTokenSource(file, { clock: { now: () => now }, onError: (e) => errors.push(e) });
  assert.equal(source.token(), 'un');
  unlinkSync(file);
  now += 60_000;
  assert.equal(source.token(), 'un');
  assert.equal(errors.length, 1);
  writeFileSync(file, 'deux');
  assert.equal(source.token(), 'un', 'the next attempt is a minute later');
  now += 60_000;
  assert.equal(source.token(), 'deux');
});

test('clientFromEnvironment: KUBECONFIG first, then in-cluster', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kplane-env-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{ name: k, cluster: { server: "https://10.1.1.1:6443" } }]\ncontexts: [{ name: c, context: { cluster: k, user: u, namespace: fichier } }]\nusers: [{ name: u, user: { token: t } }]\n');
  const inPod = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const fromFile = clientFromEnvironment({ env: { ...inPod, KUBECONFIG: kubeconfig } });
  t.after(() => fromFile.transport.close());
  assert.equal(fromFile.defaultNamespace, 'fichier');
  // In a pod (no KUBECONFIG): the mounted files.
  writeFileSync(join(dir, 'token'), 'jeton');
  writeFileSync(join(dir, 'namespace'), 'pod');
  const inCluster = clientFromEnvironment({ env: inPod, tokenFile: join(dir, 'token'), caFile: join(dir, 'ca.crt'), namespaceFile: join(dir, 'namespace') });
  t.after(() => inCluster.transport.close());
  assert.equal(inCluster.defaultNamespace, 'pod');
  assert.throws(() => clientFromEnvironment({ env: inPod, tokenFile: join(dir, 'absent') }), /ENOENT/);
});
