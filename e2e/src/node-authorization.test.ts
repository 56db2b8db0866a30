/**
 * The Node authorizer and NodeRestriction with the real kubectl: a standalone `kplane kubelet`
 * whose nodes each act with their own client certificate (obtained through CSRs), and a node's
 * kubeconfig that reads only the secrets of the pods bound to its node.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { eventually, KPLANE_MAIN, kubectl, kubectlOk, useKplane } from './harness.js';

const run = promisify(execFile);

const pod = (name: string, node: string, secret: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  nodeName: ${node}
  containers:
  - name: app
    image: nginx
  volumes:
  - name: creds
    secret:
      secretName: ${secret}
`;

describe('node authorization (Node,RBAC and NodeRestriction)', () => {
  const suite = useKplane(['--nodes', '0']);

  it('a standalone kubelet acts per node through its own certificate, and a node reads only its pods\' secrets', async () => {
    const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
    const child = spawn(process.execPath, [KPLANE_MAIN, 'kubelet', '--kubeconfig', suite.kp.kubeconfig, '--nodes', '2', '--node-prefix', 'edge-', '--no-scheduler'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      await eventually(`kubelet start:\n${out}`, async () => /2 node\(s\) ready/.test(out));
      // Each node asked for its own certificate; the kubelet's bootstrap user approved it, the signer issued it.
      const csrs = await k('get', 'csr', '-o', 'jsonpath={range .items[*]}{.spec.username}|{.status.conditions[0].type}|{.status.certificate}{"\\n"}{end}');
      const issued = csrs.trim().split('\n').filter((l) => /\|Approved\|.+/.test(l));
      assert.equal(issued.length, 2, csrs);
      const subjects = await k('get', 'csr', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}');
      assert.deepEqual(subjects.trim().split('\n').map((n) => n.replace(/-[0-9a-f]{8}$/, '')).sort(), ['node-client-edge-0', 'node-client-edge-1']);
      assert.match(await k('get', 'nodes'), /^edge-0\s+Ready\s/m);

      // Pods bound to each node, each with a secret: the kubelets (as system:node:edge-N) run them.
      await k('create', 'secret', 'generic', 's0', '--from-literal=k=zero');
      await k('create', 'secret', 'generic', 's1', '--from-literal=k=one');
      await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], pod('p0', 'edge-0', 's0'));
      await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], pod('p1', 'edge-1', 's1'));
      assert.match(await k('wait', '--for=condition=Ready', 'pod/p0', 'pod/p1', '--timeout=20s'), /condition met/);

      // A kubeconfig for node edge-0.
      const nodeConfig = join(suite.dir, 'edge-0.kubeconfig');
      await run(process.execPath, [KPLANE_MAIN, 'kubeconfig', '--data-dir', suite.dir, '--user', 'system:node:edge-0', '--group', 'system:nodes', '--out', nodeConfig]);
      const asNode = (...args: string[]) => kubectl(nodeConfig, args);
      assert.equal((await kubectlOk(nodeConfig, ['get', 'secret', 's0', '-o', 'jsonpath={.data.k}'])).trim(), Buffer.from('zero').toString('base64'));
      const other = await asNode('get', 'secret', 's1');
      assert.notEqual(other.code, 0);
      assert.match(other.stderr, /Error from server \(Forbidden\): secrets "s1" is forbidden: User "system:node:edge-0" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'edge-0' and this object/);
      const all = await asNode('get', 'secrets');
      assert.match(all.stderr, /secrets is forbidden: User "system:node:edge-0" cannot list resource "secrets" in API group "" in the namespace "default": No Object name found/);
      // Its own Node and pods; not the other node's.
      assert.match((await kubectlOk(nodeConfig, ['get', 'node', 'edge-0'])), /^edge-0\s+Ready/m);
      assert.match((await asNode('get', 'node', 'edge-1')).stderr, /nodes "edge-1" is forbidden: User "system:node:edge-0" cannot get resource "nodes" in API group "" at the cluster scope: node 'edge-0' cannot read 'edge-1', only its own Node object/);
      assert.match(await kubectlOk(nodeConfig, ['get', 'pods', '-A', '--field-selector', 'spec.nodeName=edge-0']), /^default\s+p0\s/m);
      // NodeRestriction: no deleting another node's pod, no touching another node's Lease.
      assert.match((await asNode('delete', 'pod', 'p1', '--wait=false')).stderr, /pods "p1" is forbidden: node "edge-0" can only delete pods with spec.nodeName set to itself/);
      assert.match((await asNode('-n', 'kube-node-lease', 'annotate', 'lease', 'edge-1', 'x=y')).stderr, /can only access node lease with the same name as the requesting node/);
      assert.equal((await kubectl(nodeConfig, ['auth', 'can-i', 'get', 'secret/s0'])).stdout.trim(), 'yes');
      assert.equal((await kubectl(nodeConfig, ['auth', 'can-i', 'get', 'secret/s1'])).stdout.trim(), "no - no relationship found between node 'edge-0' and this object");
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, out);
    }
  });
});
