import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createApiServer, type ApiServer } from '@kplane/apiserver';
import { createClient, type Client } from '@kplane/client';
import { createMemoryBackend, type Backend } from '@kplane/storage';
import type { CustomResourceDefinition, Deployment } from './builtin/index.js';
import { CustomResourceDefinitions, Deployments, builtinDescriptors } from './descriptors.js';
import { BookKind, type Book } from './book-example.js';

let backend: Backend;
let server: ApiServer;
let client: Client;

before(async () => {
  backend = createMemoryBackend();
  server = createApiServer({ backend });
  await server.start();
  client = createClient({ transport: (req) => server.handle(req) });
});

after(async () => {
  await server.close();
  await backend.close();
});

interface APIResourceList {
  resources: { name: string; namespaced: boolean; kind: string }[];
}

test('kplane discovery agrees with every built-in descriptor', async () => {
  for (const d of builtinDescriptors) {
    const path = d.group ? `/apis/${d.group}/${d.version}` : `/api/${d.version}`;
    const list = await client.request<APIResourceList>({ path });
    const found = list.resources.find((r) => r.name === d.resource);
    assert.ok(found, `${path} lists ${d.resource}`);
    assert.equal(found.namespaced, d.namespaced, `${d.resource} namespaced`);
    assert.equal(found.kind, d.kind, `${d.resource} kind`);
  }
});

test('a typed Deployment round-trips through client.resource(Deployments)', async () => {
  const deployments = client.resource(Deployments);
  const desired: Deployment = {
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              ports: [{ name: 'http', containerPort: 80 }],
              env: [{ name: 'MODE', value: 'prod' }],
              lifecycle: { preStop: { sleep: { seconds: 5 } } },
              readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
            },
          ],
        },
      },
    },
  };
  const created = await deployments.create(desired);
  assert.equal(created.kind, 'Deployment');
  assert.equal(created.apiVersion, 'apps/v1');
  assert.ok(created.metadata?.uid);
  const got = await deployments.get('web');
  const replicas: number | undefined = got.spec?.replicas;
  assert.equal(replicas, 3);
  const container = got.spec!.template.spec!.containers[0]!;
  assert.equal(container.lifecycle?.preStop?.sleep?.seconds, 5);
  assert.equal(container.readinessProbe?.httpGet?.port, 'http');
  assert.deepEqual(got.spec?.strategy?.rollingUpdate, { maxSurge: '50%', maxUnavailable: 0 });
  const list = await deployments.list();
  assert.deepEqual(list.items.map((d) => d.metadata?.name), ['web']);
});

test('a CRD from defineKind is accepted by the server', async () => {
  const crds = client.resource(CustomResourceDefinitions);
  const created: CustomResourceDefinition = await crds.create(BookKind.crd());
  assert.equal(created.metadata?.name, 'books.library.example.com');
  assert.equal(created.spec.names.kind, 'Book');
  assert.deepEqual(created.status?.storedVersions, ['v1']);
  const got = await crds.get(BookKind.crdName);
  assert.deepEqual(got.spec.versions[0]!.schema, BookKind.crd().spec.versions[0]!.schema);
  assert.deepEqual(got.spec.versions[0]!.additionalPrinterColumns, BookKind.crd().spec.versions[0]!.additionalPrinterColumns);
});

/** Waits, by watching, until the CRD reports Established=True (the server serves it then). */
async function established(name: string): Promise<void> {
  const crds = client.resource(CustomResourceDefinitions);
  const isEstablished = (crd: CustomResourceDefinition): boolean =>
    crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
  const current = await crds.get(name);
  if (isEstablished(current)) return;
  const signal = AbortSignal.timeout(5000);
  for await (const event of crds.watch({ fieldSelector: `metadata.name=${name}`, resourceVersion: current.metadata?.resourceVersion, signal })) {
    if ((event.type === 'ADDED' || event.type === 'MODIFIED') && isEstablished(event.object)) return;
  }
  throw new Error(`${name} was not established within 5 s`);
}

test('a typed custom object round-trips through client.resource(BookKind.descriptor)', async () => {
  await established(BookKind.crdName);
  const books = client.resource(BookKind.descriptor);
  const dune: Book = { metadata: { name: 'dune', namespace: 'default' }, spec: { title: 'Dune' } };
  const created = await books.create(dune);
  assert.equal(created.apiVersion, 'library.example.com/v1');
  assert.equal(created.kind, 'Book');
  const got = await books.get('dune');
  const title: string = got.spec.title;
  const copies: number | undefined = got.spec.copies;
  assert.equal(title, 'Dune');
  assert.equal(copies, 2, 'the schema default reached the server');
  got.status = { available: 2, conditions: [{ type: 'Ready', status: 'True', reason: 'Shelved' }] };
  const updated = await books.updateStatus(got);
  assert.equal(updated.status?.conditions?.[0]?.status, 'True');
  assert.deepEqual((await books.list()).items.map((b) => b.spec.title), ['Dune']);
});
