import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '@kplane/api/testing';
import { startControlPlane } from '../control-plane.js';

test('controllersInWorker: a Deployment becomes Ready with its controllers and nodes in a worker thread', async () => {
  const cp = await startControlPlane({ storage: 'memory', listen: false, controllers: true, nodes: 2, controllersInWorker: true });
  try {
    assert.equal(cp.controllerManager, undefined, 'the controller manager runs in the worker, not here');
    const nodes = await cp.client.resource({ group: '', version: 'v1', resource: 'nodes', namespaced: false }).list();
    assert.equal(nodes.items.length, 2);
    const deployments = cp.client.resource({ group: 'apps', version: 'v1', resource: 'deployments', namespaced: true });
    await deployments.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    await eventually('3 replicas ready', async () => ((await deployments.get('web')) as { status?: { readyReplicas?: number } }).status?.readyReplicas === 3, 30_000);
  } finally {
    await cp.stop();
  }
});

test('controllersInWorker refuses the options a worker cannot take', async () => {
  await assert.rejects(startControlPlane({ storage: 'memory', listen: false, controllers: true, controllersInWorker: true, wrapTransport: (t) => t }), /controllersInWorker/);
});
