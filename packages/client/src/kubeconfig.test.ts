import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeconfigError, loadKubeconfig } from './kubeconfig.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (u: Uint8Array | string | undefined) => (u === undefined ? undefined : Buffer.from(u).toString('utf8'));

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'kplane-kubeconfig-'));
}

const inline = `
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c1
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: ${b64('CA-PEM')}
    tls-server-name: kplane.local
- name: c2
  cluster:
    server: https://other:6443
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    client-certificate-data: ${b64('CERT-PEM')}
    client-key-data: ${b64('KEY-PEM')}
- name: bot
  user:
    token: abc
contexts:
- name: dev
  context: { cluster: c1, user: admin, namespace: team-a }
- name: ops
  context: { cluster: c2, user: bot }
`;

test('inline YAML: current-context, *-data fields decoded, namespace', () => {
  const k = loadKubeconfig(inline);
  assert.equal(k.server, 'https://127.0.0.1:6443');
  assert.equal(k.namespace, 'team-a');
  assert.equal(k.contextName, 'dev');
  assert.equal(text(k.transportOptions.ca), 'CA-PEM');
  assert.equal(text(k.transportOptions.cert), 'CERT-PEM');
  assert.equal(text(k.transportOptions.key), 'KEY-PEM');
  assert.equal(k.transportOptions.tlsServerName, 'kplane.local');
  assert.equal(k.transportOptions.insecureSkipTLSVerify, undefined);
});

test('an explicit context wins; namespace defaults to "default"', () => {
  const k = loadKubeconfig(inline, { context: 'ops' });
  assert.equal(k.server, 'https://other:6443');
  assert.equal(k.namespace, 'default');
  assert.equal(k.transportOptions.token, 'abc');
  assert.equal(k.transportOptions.insecureSkipTLSVerify, true);
});

test('file paths resolve against the kubeconfig folder; token beats tokenFile', () => {
  const dir = tmp();
  try {
    mkdirSync(join(dir, 'pki'));
    writeFileSync(join(dir, 'pki', 'ca.crt'), 'CA-FILE');
    writeFileSync(join(dir, 'pki', 'admin.crt'), 'CERT-FILE');
    writeFileSync(join(dir, 'pki', 'admin.key'), 'KEY-FILE');
    writeFileSync(join(dir, 'token'), 'tok\n');
    writeFileSync(join(dir, 'config'), `
clusters:
- name: c
  cluster: { server: 'https://h:1', certificate-authority: pki/ca.crt }
users:
- name: u
  user: { client-certificate: pki/admin.crt, client-key: pki/admin.key }
- name: t
  user: { tokenFile: token }
contexts:
- name: a
  context: { cluster: c, user: u }
- name: b
  context: { cluster: c, user: t }
current-context: a
`);
    const k = loadKubeconfig(join(dir, 'config'));
    assert.equal(text(k.transportOptions.ca), 'CA-FILE');
    assert.equal(text(k.transportOptions.cert), 'CERT-FILE');
    assert.equal(text(k.transportOptions.key), 'KEY-FILE');
    const t = loadKubeconfig(join(dir, 'config'), { context: 'b' });
    assert.equal(t.transportOptions.tokenFile, join(dir, 'token'));
    assert.equal(t.transportOptions.token, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('KUBECONFIG lists files to merge; the first definition wins; missing files are skipped', () => {
  const dir = tmp();
  try {
    writeFileSync(join(dir, 'one'), `
clusters: [{ name: c, cluster: { server: 'https://first:1' } }]
contexts: [{ name: x, context: { cluster: c, namespace: n1 } }]
`);
    writeFileSync(join(dir, 'two'), `
current-context: x
clusters: [{ name: c, cluster: { server: 'https://second:1' } }, { name: d, cluster: { server: 'https://d:1' } }]
contexts: [{ name: x, context: { cluster: d } }, { name: y, context: { cluster: d } }]
`);
    const env = { KUBECONFIG: [join(dir, 'missing'), join(dir, 'one'), join(dir, 'two')].join(delimiter) };
    const k = loadKubeconfig(undefined, { env });
    assert.equal(k.server, 'https://first:1');
    assert.equal(k.namespace, 'n1');
    assert.equal(loadKubeconfig(undefined, { env, context: 'y' }).server, 'https://d:1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('errors use client-go wording', () => {
  assert.throws(() => loadKubeconfig(inline, { context: 'nope' }), new KubeconfigError('context was not found for specified context: nope'));
  assert.throws(
    () => loadKubeconfig('contexts:\n- name: a\n  context: { cluster: c, user: u }\ncurrent-context: a\n'),
    new KubeconfigError('invalid configuration: [cluster "c" was not found for context "a", user "u" was not found for context "a"]'),
  );
  assert.throws(
    () => loadKubeconfig('clusters: [{ name: c, cluster: { insecure-skip-tls-verify: true } }]\ncontexts: [{ name: a, context: { cluster: c } }]\ncurrent-context: a\n'),
    new KubeconfigError('invalid configuration: no server found for cluster "c"'),
  );
  assert.throws(
    () => loadKubeconfig(`clusters: [{ name: c, cluster: { server: 'https://h' } }]\nusers: [{ name: u, user: { client-certificate-data: ${b64('x')} } }]\ncontexts: [{ name: a, context: { cluster: c, user: u } }]\ncurrent-context: a\n`),
    new KubeconfigError('invalid configuration: client-key-data or client-key must be specified for u to use the clientCert authentication method.'),
  );
  assert.throws(() => loadKubeconfig(undefined, { env: { KUBECONFIG: join(tmpdir(), 'kplane-does-not-exist') } }), /no configuration has been provided/);
  assert.throws(() => loadKubeconfig('clusters: []\ncontexts: [{ name: a, context: {} }]\n'), /no context chosen/);
  assert.throws(() => loadKubeconfig(join(tmpdir(), 'kplane-nope', 'config')), /no such file or directory/);
});
