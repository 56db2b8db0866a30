import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RawRequest, RawResponse } from '@kplane/api';
import { ClusterRoles, createManager } from '@kplane/runtime';
import { aggregatedRules, createClusterRoleAggregationController, type AggregatedClusterRole } from './index.js';
import { eventually } from '@kplane/api/testing';
import { startTestKplane, type TestKplane } from '../namespace/testing.js';

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

/** The writes a client sends to clusterroles, with the status each got. */
interface Write {
  method: string;
  name: string;
  contentType: string;
  fieldManager?: string;
  force?: string;
  status: number;
}

function recordingClient(writes: Write[], answer?: (req: RawRequest) => RawResponse | undefined) {
  return kp.clientWith(async (req, next) => {
    const write = req.method !== 'GET' && req.path.includes('/clusterroles/');
    const res = (write && answer?.(req)) || (await next(req));
    if (write) {
      writes.push({ method: req.method, name: req.path.split('/').pop()!, contentType: req.headers?.['content-type'] ?? '', fieldManager: req.query?.fieldManager, force: req.query?.force, status: res.status });
    }
    return res;
  });
}

it('keeps the rules of admin, edit and view the union of the roles labelled for them', async () => {
  const writes: Write[] = [];
  const manager = createManager({ client: recordingClient(writes) });
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
    // Every write is a forced server-side apply by the controller's field manager, and none
    // conflicts: each aggregated role is one key of the queue, written by one worker at a time.
    assert.ok(writes.length > 0);
    for (const w of writes) {
      assert.deepEqual([w.method, w.contentType, w.fieldManager, w.force, w.status === 200 || w.status === 201], ['PATCH', 'application/apply-patch+yaml', 'clusterrole-aggregation-controller', 'true', true], JSON.stringify(w));
    }
    const view = await roles.get('view');
    const entry = view.metadata!.managedFields!.find((e) => e.manager === 'clusterrole-aggregation-controller');
    assert.equal(entry?.operation, 'Apply');
    assert.deepEqual(entry?.fieldsV1, { 'f:rules': {} });
    assert.equal(await errorsOf(manager), 0);
  } finally {
    abort.abort();
    await done;
  }
});

async function errorsOf(manager: ReturnType<typeof createManager>): Promise<number> {
  const m = await manager.metrics.reconcileErrors.get();
  return m.values.filter((v) => v.labels.controller === 'ClusterRoleAggregator').reduce((a, v) => a + v.value, 0);
}

it('falls back on an update when the server answers 415 to apply', async () => {
  const writes: Write[] = [];
  const unsupported: RawResponse = {
    status: 415,
    headers: { 'content-type': 'application/json' },
    body: new TextEncoder().encode(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the body of the request was in an unknown format', reason: 'UnsupportedMediaType', code: 415 })),
  };
  const manager = createManager({ client: recordingClient(writes, (req) => (req.method === 'PATCH' ? unsupported : undefined)) });
  createClusterRoleAggregationController({ manager });
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  const roles = kp.client.resource(ClusterRoles);
  try {
    await roles.create(role('old-server', {}, [], { team: 'old' }) as never);
    await roles.create(role('old-1', { team: 'old' }, [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]) as never);
    await eventually('old-server aggregated', async () => ((await roles.get('old-server')) as AggregatedClusterRole).rules?.length === 1);
    const mine = writes.filter((w) => w.name === 'old-server');
    assert.deepEqual(mine.slice(0, 2).map((w) => [w.method, w.status]), [['PATCH', 415], ['PUT', 200]]);
  } finally {
    abort.abort();
    await done;
  }
});
