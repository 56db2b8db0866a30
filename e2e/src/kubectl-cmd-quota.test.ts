/**
 * kubectl's own command tests for ResourceQuota (the quota steps of its namespace tests),
 * replayed with the real kubectl against `kplane up`: `create quota` dry runs, the quota
 * created, described in pages and deleted with its namespace; and `describe quota` of a quota
 * with hard limits, which the quota controller fills in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, useKplane } from './harness.js';
import { kubectlCmd } from './kubectl-cmd.js';

const FOUND = '{{range.items}}{{ if eq .metadata.name "test-quota" }}found{{end}}{{end}}:';

describe('kubectl command tests: quota', () => {
  const suite = useKplane(['--nodes', '0']);
  const k = kubectlCmd(() => suite.kp.kubeconfig);

  it('creates a quota after dry runs, describes it in pages and deletes it', async () => {
    await k.ok(['create', 'namespace', 'quotas']);
    await k.getAssert('namespaces/quotas', '{{.metadata.name}}', 'quotas');
    await k.getAssert('quota --namespace=quotas', FOUND, ':');
    await k.ok(['create', 'quota', 'test-quota', '--dry-run=client', '--namespace=quotas']);
    await k.ok(['create', 'quota', 'test-quota', '--dry-run=server', '--namespace=quotas']);
    await k.getAssert('quota --namespace=quotas', FOUND, ':');
    await k.ok(['create', 'quota', 'test-quota', '--namespace=quotas']);
    await k.getAssert('quota --namespace=quotas', FOUND, 'found:');
    await k.describeChunkSizeAssert('resourcequotas', [], ['--namespace=quotas']);
    await k.ok(['delete', 'quota', 'test-quota', '--namespace=quotas']);
    await k.ok(['delete', 'namespace', 'quotas']);
  });

  it('describe quota shows what is used of each hard limit', async () => {
    await k.ok(['create', 'namespace', 'limits']);
    await k.ok(['create', 'quota', 'compute', '--hard=cpu=1,pods=2,requests.memory=1Gi', '--namespace=limits']);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '100m', memory: '64Mi' } } }] } };
    await k.ok(['create', '-f', '-', '--namespace=limits'], JSON.stringify(pod));
    const lines = await eventually('usage counted', async () => {
      const out = await k.ok(['describe', 'quota', 'compute', '--namespace=limits']);
      return /^pods\s+1\s+2$/m.test(out) ? out : undefined;
    });
    assert.match(lines, /^Resource\s+Used\s+Hard$/m);
    assert.match(lines, /^cpu\s+100m\s+1$/m);
    assert.match(lines, /^requests\.memory\s+64Mi\s+1Gi$/m);
  });
});
