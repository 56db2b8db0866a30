import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectlOk, useKplane } from './harness.js';

describe('kplane up --controllers-in-worker', () => {
  const k = useKplane(['--nodes', '2', '--controllers-in-worker']);

  test('a Deployment rolls out with the controllers and nodes in a worker thread', async () => {
    const kc = k.kp.kubeconfig;
    assert.match(await kubectlOk(kc, ['get', 'nodes', '-o', 'name']), /node\/kplane-node-0\nnode\/kplane-node-1/);
    await kubectlOk(kc, ['create', 'deployment', 'web', '--image=nginx', '--replicas=4']);
    assert.match(await kubectlOk(kc, ['rollout', 'status', 'deployment/web', '--timeout=60s']), /successfully rolled out/);
    assert.equal((await kubectlOk(kc, ['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}'])).trim(), '4');
  });

  test('a legacy ServiceAccount token Secret is filled, signed by the API server in the main thread', async () => {
    const kc = k.kp.kubeconfig;
    await kubectlOk(
      kc,
      ['apply', '-f', '-'],
      JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'legacy', annotations: { 'kubernetes.io/service-account.name': 'default' } }, type: 'kubernetes.io/service-account-token' }),
    );
    const token = await eventually('the token in the Secret', async () => (await kubectlOk(kc, ['get', 'secret', 'legacy', '-o', 'jsonpath={.data.token}'])).trim());
    const jwt = Buffer.from(token, 'base64').toString();
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    assert.equal(claims['kubernetes.io/serviceaccount/secret.name'], 'legacy');
    // The API server accepts the token it signed.
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: jwt } };
    assert.equal(await kubectlOk(kc, ['create', '-f', '-', '-o', 'jsonpath={.status.user.username}'], JSON.stringify(review)), 'system:serviceaccount:default:default');
  });
});
