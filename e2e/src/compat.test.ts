import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

describe('kubectl against kplane up: what kube-apiserver and kube-controller-manager add', () => {
  const suite = useKplane(['--storage', 'memory']);

  it('lists one Local, Available APIService per group/version with kubectl get apiservices', async () => {
    const out = await kubectlOk(suite.kp.kubeconfig, ['get', 'apiservices']);
    assert.match(out, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/m);
    assert.match(out, /^v1\.\s+Local\s+True\s+\S+$/m);
    assert.match(out, /^v1\.apps\s+Local\s+True\s+\S+$/m);
    assert.match(out, /^v1\.rbac\.authorization\.k8s\.io\s+Local\s+True\s+\S+$/m);
  });

  it('publishes kube-root-ca.crt with the cluster CA in every namespace, and again once deleted', async () => {
    const ca = Buffer.from(await kubectlOk(suite.kp.kubeconfig, ['config', 'view', '--raw', '-o', 'jsonpath={.clusters[0].cluster.certificate-authority-data}']), 'base64').toString('utf8');
    await kubectlOk(suite.kp.kubeconfig, ['create', 'namespace', 'ca-check']);
    const read = async () => {
      const r = await kubectl(suite.kp.kubeconfig, ['get', 'configmap', 'kube-root-ca.crt', '-n', 'ca-check', '-o', 'json']);
      return r.code === 0 ? JSON.parse(r.stdout) : undefined;
    };
    const first = await eventually('kube-root-ca.crt in a new namespace', read);
    assert.equal(first.data['ca.crt'], ca);
    assert.match(first.metadata.annotations['kubernetes.io/description'], /^Contains a CA bundle that can be used to verify the kube-apiserver/);
    await kubectlOk(suite.kp.kubeconfig, ['delete', 'configmap', 'kube-root-ca.crt', '-n', 'ca-check']);
    const again = await eventually('kube-root-ca.crt recreated', async () => {
      const cur = await read();
      return cur && cur.metadata.uid !== first.metadata.uid ? cur : undefined;
    });
    assert.equal(again.data['ca.crt'], ca);
  });
});
