import { it } from 'node:test';
import assert from 'node:assert/strict';
import { nodeIdentity, nodeUser, serviceAccountUser, splitServiceAccountUsername, transportAs, type RawRequest } from './index.js';

it('names ServiceAccounts as their tokens authenticate them', () => {
  assert.deepEqual(serviceAccountUser('kube-system', 'job-controller', 'u1'), {
    username: 'system:serviceaccount:kube-system:job-controller',
    uid: 'u1',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
  });
  assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:ns:sa'), { namespace: 'ns', name: 'sa' });
  assert.equal(splitServiceAccountUsername('system:serviceaccount:ns:sa:x'), undefined);
  assert.equal(splitServiceAccountUsername('alice'), undefined);
});

it('identifies nodes as kube node identifier does (prefix and group both needed)', () => {
  assert.equal(nodeIdentity(nodeUser('n1')), 'n1');
  assert.equal(nodeIdentity({ username: 'system:node:n1', groups: ['system:authenticated'] }), undefined);
  assert.equal(nodeIdentity({ username: 'n1', groups: ['system:nodes'] }), undefined);
  assert.equal(nodeIdentity({ username: 'system:node:', groups: ['system:nodes'] }), '');
});

it('sends every request as the given user', async () => {
  let seen: RawRequest | undefined;
  const t = transportAs(async (req) => ((seen = req), { status: 200, headers: {} }), nodeUser('n2'));
  await t({ method: 'GET', path: '/api' });
  assert.equal(seen?.user?.username, 'system:node:n2');
});
