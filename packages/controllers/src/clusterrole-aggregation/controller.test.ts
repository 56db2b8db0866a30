import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterRoles, createManager } from '@kplane/runtime';
import { aggregatedRules, createClusterRoleAggregationController, type AggregatedClusterRole } from './index.js';
import { eventually, startTestKplane, type TestKplane } from '../namespace/testing.js';

let kp: TestKplane;
before(async () => {
  kp = await startTestKplane();
});
after(() => kp.close());

const role = (name: string, labels: Record<string, string>, rules: unknown[], aggregate?: Record<string, string>): AggregatedClusterRole => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name, labels },
  rules,
  ...(aggregate ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregate }] } } : {}),
});

it('aggregatedRules: the union of the selected roles, in name order, each rule once', () => {
  const get = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
  const list = { apiGroups: [''], resources: ['pods'], verbs: ['list'] };
  const agg = role('agg', { x: 'y' }, [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], { x: 'y' });
  const all = [agg, role('b', { x: 'y' }, [list, get]), role('a', { x: 'y' }, [get]), role('c', { x: 'z' }, [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }])];
  assert.deepEqual(aggregatedRules(agg, all), [get, list]);
  assert.equal(aggregatedRules(role('plain', {}, []), all), undefined);
  assert.deepEqual(aggregatedRules({ ...agg, aggregationRule: { clusterRoleSelectors: [] } }, all), []);
});

it('keeps the rules of admin, edit and view the union of the roles labelled for them', async () => {
  const manager = createManager({ client: kp.client });
  createClusterRoleAggregationController({ manager });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const roles = kp.client.resource(ClusterRoles);
  const rulesOf = async (name: string) => ((await roles.get(name)) as AggregatedClusterRole).rules ?? [];
  const has = (rules: unknown[], resource: string, verb: string) => rules.some((r: any) => r.resources?.includes(resource) && r.verbs?.includes(verb));
  try {
    // The bootstrap policy's aggregate-to-* roles flow into view, edit (which holds view's) and admin.
    await eventually('view aggregated', async () => has(await rulesOf('view'), 'pods', 'list'));
    await eventually('edit aggregated', async () => has(await rulesOf('edit'), 'pods', 'create') && has(await rulesOf('edit'), 'pods', 'list'));
    await eventually('admin aggregated', async () => has(await rulesOf('admin'), 'rolebindings', 'create') && has(await rulesOf('admin'), 'secrets', 'update'));
    // A new role labelled for view adds its rules; changing or deleting it takes them away.
    await roles.create(role('greetings-view', { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }, [{ apiGroups: ['demo.example.com'], resources: ['greetings'], verbs: ['get', 'list', 'watch'] }]) as never);
    await eventually('greetings in view', async () => has(await rulesOf('view'), 'greetings', 'watch'));
    await eventually('greetings in admin', async () => has(await rulesOf('admin'), 'greetings', 'watch'));
    await roles.delete('greetings-view');
    await eventually('greetings gone from view', async () => !has(await rulesOf('view'), 'greetings', 'watch'));
    // A user's own aggregated role.
    await roles.create(role('monitoring', {}, [], { team: 'mon' }) as never);
    await roles.create(role('mon-1', { team: 'mon' }, [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]) as never);
    await eventually('monitoring aggregated', async () => (await rulesOf('monitoring')).some((r: any) => r.nonResourceURLs?.includes('/metrics')));
  } finally {
    abort.abort();
    await done;
  }
});
