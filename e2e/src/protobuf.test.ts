/**
 * kubectl's typed clients send protobuf bodies (`kubectl create <subcommand>`): the server
 * decodes them from the model as Kubernetes does, pointer zeros included.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk, useKplane } from './harness.js';

describe('protobuf bodies from kubectl create', () => {
  const suite = useKplane();
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);

  it('keeps replicas: 0 of kubectl create deployment --replicas=0, sent as protobuf', async () => {
    const r = await kubectl(suite.kp.kubeconfig, ['create', 'deployment', 'zero', '--image=nginx', '--replicas=0', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Content-Type: application\/vnd\.kubernetes\.protobuf/);
    const d = JSON.parse(await k('get', 'deployment', 'zero', '-o', 'json'));
    assert.equal(d.spec.replicas, 0);
    assert.equal(d.spec.strategy.type, 'RollingUpdate');
    assert.match(d.metadata.creationTimestamp, /Z$/);
  });

  it('creates an aggregated ClusterRole (rules: null on the wire) and a Service whose targetPort defaults to its port', async () => {
    assert.match(await k('create', 'clusterrole', 'agg', '--aggregation-rule=rbac.example.com/aggregate=true'), /clusterrole.rbac.authorization.k8s.io\/agg created/);
    const cr = JSON.parse(await k('get', 'clusterrole', 'agg', '-o', 'json'));
    assert.deepEqual(cr.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] });
    assert.match(await k('create', 'service', 'clusterip', 'web', '--tcp=80'), /service\/web created/);
    const svc = JSON.parse(await k('get', 'service', 'web', '-o', 'json'));
    assert.deepEqual(svc.spec.ports.map((p: { port: number; targetPort: unknown }) => [p.port, p.targetPort]), [[80, 80]]);
  });
});
