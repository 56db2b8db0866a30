import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExecCredentialProvider, ExecCredentialError, type ExecConfig } from './exec-credentials.js';
import { KubeconfigError, loadKubeconfig, transportFromKubeconfig } from './kubeconfig.js';
import { createTestPki, type TestPki } from './tls-fixture.js';
import type { HttpsTransport } from './https-transport.js';

// The plugin: a small node script. It counts its runs, records KUBERNETES_EXEC_INFO, and prints
// the file `out` with $N replaced by its run number (or exits with the status after "exit:").
const PLUGIN = `
const fs = require('node:fs');
const dir = process.env.PLUGIN_DIR;
const n = Number(fs.existsSync(dir + '/count') ? fs.readFileSync(dir + '/count', 'utf8') : 0) + 1;
fs.writeFileSync(dir + '/count', String(n));
fs.writeFileSync(dir + '/info', process.env.KUBERNETES_EXEC_INFO || '');
const out = fs.readFileSync(dir + '/out', 'utf8').split('$N').join(String(n));
if (out.startsWith('exit:')) { process.stderr.write('plugin failed\\n'); process.exit(Number(out.slice(5))); }
process.stdout.write(out);
`;

let dir: string;
let script: string;
const V1 = 'client.authentication.k8s.io/v1';
const runs = () => Number(readFileSync(join(dir, 'count'), 'utf8'));
const answer = (out: unknown) => writeFileSync(join(dir, 'out'), typeof out === 'string' ? out : JSON.stringify(out));
const cred = (status: unknown, apiVersion = V1) => ({ kind: 'ExecCredential', apiVersion, status });
const config = (extra: Partial<ExecConfig> = {}): ExecConfig => ({
  command: process.execPath,
  args: [script],
  env: [{ name: 'PLUGIN_DIR', value: dir }],
  apiVersion: V1,
  interactiveMode: 'Never',
  ...extra,
});
const quiet = { stderr: () => {} };

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kplane-exec-'));
  script = join(dir, 'plugin.cjs');
  writeFileSync(script, PLUGIN);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('exec: the token is obtained once and cached until its expirationTimestamp (on the clock)', async () => {
  writeFileSync(join(dir, 'count'), '0');
  answer(cred({ token: 'jeton-$N', expirationTimestamp: '2026-01-01T00:10:00Z' }));
  let now = Date.parse('2026-01-01T00:00:00Z');
  const p = createExecCredentialProvider(config(), { ...quiet, clock: { now: () => now } });
  const [a, b] = await Promise.all([p.get(), p.get()]);
  assert.deepEqual([a, b], [{ token: 'jeton-1' }, { token: 'jeton-1' }], 'concurrent requests share one run');
  assert.equal(runs(), 1);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'info'), 'utf8')), { kind: 'ExecCredential', apiVersion: V1, spec: { interactive: false } });
  now = Date.parse('2026-01-01T00:10:00Z');
  assert.deepEqual(await p.get(), { token: 'jeton-1' }, 'still valid at the expiry instant');
  now += 1;
  assert.deepEqual(await p.get(), { token: 'jeton-2' });
  assert.equal(p.expiresAt(), Date.parse('2026-01-01T00:10:00Z'));
});

test('exec: errors are worded as client-go words them', async () => {
  const failsWith = async (c: ExecConfig, message: string | RegExp, opts = {}) =>
    assert.rejects(createExecCredentialProvider(c, { ...quiet, ...opts }).get(), (e: unknown) => {
      assert.ok(e instanceof ExecCredentialError);
      if (typeof message === 'string') assert.equal(e.message, message);
      else assert.match(e.message, message);
      return true;
    });
  await failsWith(config({ command: join(dir, 'absent'), installHint: 'install it with: npm i -g absent' }), `exec: executable ${join(dir, 'absent')} not found\n\ninstall it with: npm i -g absent`);
  answer('exit:3');
  await failsWith(config(), `exec: executable ${process.execPath} failed with exit code 3`);
  answer('not json');
  await failsWith(config(), /^decoding stdout: /);
  answer(cred({ token: 't' }, 'client.authentication.k8s.io/v1beta1'));
  await failsWith(config(), `exec plugin is configured to use API version ${V1}, plugin returned version client.authentication.k8s.io/v1beta1`);
  answer({ kind: 'ExecCredential', apiVersion: V1 });
  await failsWith(config(), "exec plugin didn't return a status field");
  answer(cred({}));
  await failsWith(config(), "exec plugin didn't return a token or cert/key pair");
  answer(cred({ clientCertificateData: 'PEM' }));
  await failsWith(config(), 'exec plugin returned only certificate or key, not both');
  answer(cred({ token: 't' }));
  await failsWith(config({ interactiveMode: 'Always' }), 'exec plugin cannot support interactive mode: standard input is not a terminal', { stdinIsTerminal: false });
  assert.throws(() => createExecCredentialProvider(config({ apiVersion: 'client.authentication.k8s.io/v1alpha1' })), /^ExecCredentialError: exec plugin: invalid apiVersion "client.authentication.k8s.io\/v1alpha1"$/);
});

test('exec: the plugin\'s stderr is passed on, and IfAvailable is interactive only on a terminal', async () => {
  answer('exit:1');
  const err: string[] = [];
  await assert.rejects(createExecCredentialProvider(config(), { stderr: (c) => err.push(c.toString()) }).get());
  assert.deepEqual(err, ['plugin failed\n']);
  answer(cred({ token: 't' }));
  await createExecCredentialProvider(config({ interactiveMode: 'IfAvailable' }), { ...quiet, stdinIsTerminal: false }).get();
  assert.equal(JSON.parse(readFileSync(join(dir, 'info'), 'utf8')).spec.interactive, false);
});

test('kubeconfig: exec validation as clientcmd, v1beta1 defaults interactiveMode, a token wins over the plugin', () => {
  const kc = (exec: unknown, user: Record<string, unknown> = {}) => `
apiVersion: v1
kind: Config
current-context: c
clusters: [{ name: k, cluster: { server: "https://127.0.0.1:6443" } }]
contexts: [{ name: c, context: { cluster: k, user: u } }]
users: [{ name: u, user: ${JSON.stringify({ exec, ...user })} }]
`;
  assert.throws(() => loadKubeconfig(kc({})), (e: unknown) =>
    e instanceof KubeconfigError &&
    e.message === 'invalid configuration: [command must be specified for u to use exec authentication plugin, apiVersion must be specified for u to use exec authentication plugin, interactiveMode must be specified for u to use exec authentication plugin]');
  assert.throws(() => loadKubeconfig(kc({ command: 'x', apiVersion: V1, interactiveMode: 'Sometimes' })), /^KubeconfigError: invalid configuration: invalid interactiveMode for u: "Sometimes"$/);
  assert.throws(() => loadKubeconfig(kc({ command: 'x', apiVersion: V1, interactiveMode: 'Never', env: [{ value: 'v' }] })), /env variable name must be specified for u to use exec authentication plugin/);
  assert.throws(() => loadKubeconfig(kc({ command: 'x', apiVersion: 'client.authentication.k8s.io/v1alpha1', interactiveMode: 'Never' })), /^KubeconfigError: exec plugin: invalid apiVersion/);
  assert.ok(loadKubeconfig(kc({ command: 'x', apiVersion: 'client.authentication.k8s.io/v1beta1' })).transportOptions.credentials, 'v1beta1 needs no interactiveMode');
  const withToken = loadKubeconfig(kc({ command: 'x', apiVersion: V1, interactiveMode: 'Never' }, { token: 'static' })).transportOptions;
  assert.deepEqual([withToken.token, withToken.credentials], ['static', undefined]);
});

test('kubeconfig exec over HTTP: provideClusterInfo, a 401 runs the plugin again for the next request', async (t) => {
  writeFileSync(join(dir, 'count'), '0');
  answer(cred({ token: 'jeton-$N' }));
  const good = new Set(['jeton-2']);
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    res.writeHead(good.has((req.headers.authorization ?? '').slice(7)) ? 200 : 401, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => server.close(r)));
  const port = (server.address() as AddressInfo).port;
  const kc = `
apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster:
    server: http://127.0.0.1:${port}
    certificate-authority-data: ${Buffer.from('PEM CA').toString('base64')}
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: { audience: kplane }
contexts: [{ name: c, context: { cluster: k, user: u } }]
users:
- name: u
  user:
    exec:
      apiVersion: ${V1}
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(script)}]
      env: [{ name: PLUGIN_DIR, value: ${JSON.stringify(dir)} }]
      interactiveMode: Never
      provideClusterInfo: true
`;
  const transport: HttpsTransport = transportFromKubeconfig(kc, { exec: quiet });
  t.after(() => transport.close());
  assert.equal((await transport({ method: 'GET', path: '/api' })).status, 401, 'the refused request is not retried (as client-go)');
  assert.equal((await transport({ method: 'GET', path: '/api' })).status, 200);
  assert.equal((await transport({ method: 'GET', path: '/api' })).status, 200);
  assert.deepEqual(seen, ['Bearer jeton-1', 'Bearer jeton-2', 'Bearer jeton-2']);
  assert.equal(runs(), 2);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'info'), 'utf8')), {
    kind: 'ExecCredential',
    apiVersion: V1,
    spec: { cluster: { server: `http://127.0.0.1:${port}`, 'certificate-authority-data': Buffer.from('PEM CA').toString('base64'), config: { audience: 'kplane' } }, interactive: false },
  });
  // A request that carries its own Authorization runs no plugin.
  await transport({ method: 'GET', path: '/api', headers: { authorization: 'Bearer mine' } });
  assert.equal(seen.at(-1), 'Bearer mine');
  assert.equal(runs(), 2);
  answer('exit:2');
  const failing = transportFromKubeconfig(kc, { exec: quiet });
  t.after(() => failing.close());
  await assert.rejects(failing({ method: 'GET', path: '/api' }), new RegExp(`^Error: getting credentials: exec: executable .* failed with exit code 2$`));
});

test('exec: a client certificate from the plugin is presented over TLS', async (t) => {
  const pki: TestPki = await createTestPki();
  const server = https.createServer({ key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(String(peer.subject?.CN));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  answer(cred({ clientCertificateData: pki.clientCert, clientKeyData: pki.clientKey }));
  const kc = `
apiVersion: v1
kind: Config
current-context: c
clusters: [{ name: k, cluster: { server: "https://127.0.0.1:${(server.address() as AddressInfo).port}", certificate-authority-data: ${Buffer.from(pki.caCert).toString('base64')} } }]
contexts: [{ name: c, context: { cluster: k, user: u } }]
users: [{ name: u, user: { exec: { apiVersion: ${V1}, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(script)}], env: [{ name: PLUGIN_DIR, value: ${JSON.stringify(dir)} }], interactiveMode: Never } } }]
`;
  const transport = transportFromKubeconfig(kc, { exec: quiet });
  t.after(() => transport.close());
  const res = await transport({ method: 'GET', path: '/api' });
  assert.equal(res.status, 200);
  assert.equal(Buffer.from(res.body!).toString(), 'admin');
});
