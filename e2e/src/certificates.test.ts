import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadKubeconfig } from '@kplane/client';
import { KPLANE_MAIN, eventually, kubectl, kubectlOk, useKplane } from './harness.js';

const run = promisify(execFile);

/** A user's own key and certificate request, made with openssl as a user would. */
async function userRequest(dir: string, name: string, subject: string): Promise<{ key: string; csr: string }> {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  await run('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-subj', subject, '-out', csr]);
  return { key, csr: await readFile(csr, 'utf8') };
}

function csrManifest(name: string, request: string, expirationSeconds?: number): string {
  return JSON.stringify({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: Buffer.from(request).toString('base64'),
      signerName: 'kubernetes.io/kube-apiserver-client',
      usages: ['client auth'],
      ...(expirationSeconds ? { expirationSeconds } : {}),
    },
  });
}

/** A kubeconfig for the cluster of `admin` with the given client certificate and key. */
async function userKubeconfig(admin: string, path: string, user: string, certPem: string, keyPem: string): Promise<string> {
  const t = loadKubeconfig(admin);
  const b64 = (v: string | Uint8Array) => Buffer.from(v).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kplane', cluster: { server: t.server, 'certificate-authority-data': b64(t.transportOptions.ca!) } }],
    users: [{ name: user, user: { 'client-certificate-data': b64(certPem), 'client-key-data': b64(keyPem) } }],
    contexts: [{ name: user, context: { cluster: 'kplane', user } }],
    'current-context': user,
  };
  await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

/** Who the API server says a kubeconfig is (`kubectl auth whoami`): user name and groups. */
async function whoami(kubeconfig: string): Promise<string> {
  await kubectlOk(kubeconfig, ['get', '--raw', '/api']);
  return kubectlOk(kubeconfig, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}']);
}

describe('certificates', () => {
  const suite = useKplane();

  it('a user sends a CSR, the admin approves it with kubectl certificate approve, and the signed certificate logs the user in', async () => {
    const { key, csr } = await userRequest(suite.dir, 'bob', '/CN=bob/O=devs/O=testers');
    assert.match(await kubectlOk(suite.kp.kubeconfig, ['create', '-f', '-'], csrManifest('bob', csr, 3600)), /certificatesigningrequest.certificates.k8s.io\/bob created/);
    assert.match(await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'bob']), /^bob\s+\S+\s+kubernetes.io\/kube-apiserver-client\s+\S+\s+60m\s+Pending$/m);

    assert.equal(await kubectlOk(suite.kp.kubeconfig, ['certificate', 'approve', 'bob']), 'certificatesigningrequest.certificates.k8s.io/bob approved\n');
    const b64 = await eventually('the certificate', async () => (await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'bob', '-o', 'jsonpath={.status.certificate}'])) || undefined);
    assert.match(await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'bob']), /\s60m\s+Approved,Issued$/m);
    const conditions = JSON.parse(await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'bob', '-o', 'jsonpath={.status.conditions}']));
    assert.equal(conditions[0].type, 'Approved');
    assert.equal(conditions[0].reason, 'KubectlApprove');

    const certPem = Buffer.from(b64, 'base64').toString();
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(await readFile(join(suite.dir, 'pki', 'ca.crt')));
    assert.ok(cert.verify(ca.publicKey));
    assert.equal(cert.subject, 'CN=bob\nO=devs\nO=testers');
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    const hours = (new Date(cert.validTo).getTime() - Date.now()) / 3600_000;
    assert.ok(hours > 0.9 && hours <= 1, String(hours));

    const bob = await userKubeconfig(suite.kp.kubeconfig, join(suite.dir, 'bob.kubeconfig'), 'bob', certPem, await readFile(key, 'utf8'));
    assert.equal(await whoami(bob), 'bob ["devs","testers","system:authenticated"]');
    // The CSR records who asked for it: the admin, who created it.
    assert.equal(await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'bob', '-o', 'jsonpath={.spec.username} {.spec.groups}']), 'kplane-admin ["system:masters","system:authenticated"]');

    // Approving again changes nothing; the request cannot be changed.
    assert.equal(await kubectlOk(suite.kp.kubeconfig, ['certificate', 'approve', 'bob']), 'certificatesigningrequest.certificates.k8s.io/bob approved\n');
    const deny = await kubectl(suite.kp.kubeconfig, ['certificate', 'deny', 'bob']);
    assert.equal(deny.stderr, 'error: certificate signing request "bob" is already Approved\n');
    // Sent anyway, the API server refuses to add Denied to Approved.
    const current = JSON.parse(await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'bob', '-o', 'json']));
    current.status.conditions.push({ type: 'Denied', status: 'True', reason: 'KubectlDeny' });
    const forced = await kubectl(suite.kp.kubeconfig, ['replace', '--raw', '/apis/certificates.k8s.io/v1/certificatesigningrequests/bob/approval', '-f', '-'], JSON.stringify(current));
    assert.notEqual(forced.code, 0);
    assert.match(forced.stderr, /status.conditions\[1\].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive/);
  });

  it('a denied CSR gets no certificate; system:masters and a request that is not a CSR are refused as kube-apiserver refuses them', async () => {
    const { csr } = await userRequest(suite.dir, 'dan', '/CN=dan/O=devs');
    await kubectlOk(suite.kp.kubeconfig, ['create', '-f', '-'], csrManifest('dan', csr));
    assert.equal(await kubectlOk(suite.kp.kubeconfig, ['certificate', 'deny', 'dan']), 'certificatesigningrequest.certificates.k8s.io/dan denied\n');
    assert.match(await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'dan']), /\s<none>\s+Denied$/m);
    // A barrier: a CSR approved after the denial is signed after the signer looked at dan's.
    const later = await userRequest(suite.dir, 'dan-later', '/CN=dan-later');
    await kubectlOk(suite.kp.kubeconfig, ['create', '-f', '-'], csrManifest('dan-later', later.csr));
    await kubectlOk(suite.kp.kubeconfig, ['certificate', 'approve', 'dan-later']);
    await eventually('the later CSR signed', async () => (await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'dan-later', '-o', 'jsonpath={.status.certificate}'])) !== '');
    assert.equal(await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'dan', '-o', 'jsonpath={.status.certificate}']), '');

    const masters = await userRequest(suite.dir, 'eve', '/CN=eve/O=system:masters');
    const refused = await kubectl(suite.kp.kubeconfig, ['create', '-f', '-'], csrManifest('eve', masters.csr));
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Error from server \(Forbidden\): .*certificatesigningrequests.certificates.k8s.io "eve" is forbidden: use of kubernetes.io\/kube-apiserver-client signer with system:masters group is not allowed/);

    const bad = await kubectl(suite.kp.kubeconfig, ['create', '-f', '-'], csrManifest('junk', 'not a request'));
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /The CertificateSigningRequest "junk" is invalid: spec.request: Invalid value: \[\]byte\{.*\}: PEM block type must be CERTIFICATE REQUEST/);
  });

  it('kplane kubeconfig --user writes a 0600 kubeconfig that logs the user in with its groups', async () => {
    const out = join(suite.dir, 'carol.kubeconfig');
    await run(process.execPath, [KPLANE_MAIN, 'kubeconfig', '--data-dir', suite.dir, '--user', 'carol', '--group', 'ops', '--out', out]);
    assert.equal((await stat(out)).mode & 0o777, 0o600);
    assert.equal(await whoami(out), 'carol ["ops","system:authenticated"]');
  });

  it('a user made through a CSR and one made by kplane kubeconfig may do what their Role allows and nothing more', async (t) => {
    const probe = await kubectl(join(suite.dir, 'bob.kubeconfig'), ['get', 'secrets', '-n', 'default']);
    assert.notEqual(probe.code, 0, 'bob, bound to no Role yet, may not list secrets');
    await kubectlOk(suite.kp.kubeconfig, ['create', 'namespace', 'equipe']);
    await kubectlOk(suite.kp.kubeconfig, ['-n', 'equipe', 'create', 'configmap', 'c', '--from-literal=a=1']);
    await kubectlOk(suite.kp.kubeconfig, ['-n', 'equipe', 'create', 'role', 'lecteur', '--verb=get,list', '--resource=configmaps']);
    await kubectlOk(suite.kp.kubeconfig, ['-n', 'equipe', 'create', 'rolebinding', 'lecteurs', '--role=lecteur', '--user=bob', '--group=ops']);
    for (const [user, kubeconfig] of [['bob', join(suite.dir, 'bob.kubeconfig')], ['carol', join(suite.dir, 'carol.kubeconfig')]] as const) {
      assert.match(await kubectlOk(kubeconfig, ['-n', 'equipe', 'get', 'configmaps', '-o', 'name']), /^configmap\/c$/m, user);
      const secrets = await kubectl(kubeconfig, ['-n', 'equipe', 'get', 'secrets']);
      assert.match(secrets.stderr, new RegExp(`secrets is forbidden: User "${user}" cannot list resource "secrets" in API group "" in the namespace "equipe"`), user);
      const elsewhere = await kubectl(kubeconfig, ['-n', 'default', 'get', 'configmaps']);
      assert.match(elsewhere.stderr, new RegExp(`configmaps is forbidden: User "${user}" cannot list resource "configmaps" in API group "" in the namespace "default"`), user);
      const write = await kubectl(kubeconfig, ['-n', 'equipe', 'delete', 'configmap', 'c']);
      assert.match(write.stderr, new RegExp(`configmaps "c" is forbidden: User "${user}" cannot delete resource "configmaps" in API group "" in the namespace "equipe"`), user);
    }

    // Approving takes update on certificatesigningrequests/approval and approve on the signer.
    const carol = join(suite.dir, 'carol.kubeconfig');
    const { csr } = await userRequest(suite.dir, 'erin', '/CN=erin');
    await kubectlOk(suite.kp.kubeconfig, ['create', '-f', '-'], csrManifest('erin', csr));
    await kubectlOk(suite.kp.kubeconfig, ['create', 'clusterrole', 'csr-approver', '--verb=get,list,watch', '--resource=certificatesigningrequests']);
    await kubectlOk(suite.kp.kubeconfig, ['create', 'clusterrolebinding', 'csr-approvers', '--clusterrole=csr-approver', '--group=ops']);
    const noUpdate = await kubectl(carol, ['certificate', 'approve', 'erin']);
    assert.match(noUpdate.stderr, /certificatesigningrequests.certificates.k8s.io "erin" is forbidden: User "carol" cannot update resource "certificatesigningrequests\/approval" in API group "certificates.k8s.io" at the cluster scope/);
    const approval = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'csr-approver' }, rules: [
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
    ] };
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], JSON.stringify(approval));
    const noSigner = await eventually('the approval rule in force', async () => {
      const r = await kubectl(carol, ['certificate', 'approve', 'erin']);
      return /cannot update/.test(r.stderr) ? undefined : r;
    });
    assert.match(noSigner.stderr, /certificatesigningrequests.certificates.k8s.io "erin" is forbidden: user not permitted to approve requests with signerName "kubernetes.io\/kube-apiserver-client"/);
    approval.rules.push({ apiGroups: ['certificates.k8s.io'], resources: ['signers'], verbs: ['approve'], resourceNames: ['kubernetes.io/kube-apiserver-client'] } as never);
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], JSON.stringify(approval));
    await eventually('carol approves', async () => (await kubectl(carol, ['certificate', 'approve', 'erin'])).code === 0);
    assert.match(await kubectlOk(suite.kp.kubeconfig, ['get', 'csr', 'erin']), /Approved/);
  });
});
