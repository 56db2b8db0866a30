import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFailoverTransport } from './failover.js';
import { createHttpsTransport } from './https-transport.js';
import { loadKubeconfig } from './kubeconfig.js';

/** An HTTP server answering its name; `reset` makes it drop connections instead. */
async function serve(name: string): Promise<{ url: string; server: Server; reset: boolean; hits: string[] }> {
  const state = { url: '', server: undefined as unknown as Server, reset: false, hits: [] as string[] };
  state.server = createServer((req, res) => {
    state.hits.push(`${req.method} ${req.url}`);
    if (state.reset) return req.socket.destroy();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ server: name }));
  });
  await new Promise<void>((r) => state.server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  return state;
}

const answer = (r: { body?: Uint8Array }) => JSON.parse(Buffer.from(r.body!).toString('utf8')).server as string;

test('requests go to the next server when one cannot be reached, and stay there', async () => {
  const dead = await serve('dead');
  await new Promise((r) => dead.server.close(r));
  const a = await serve('a');
  const b = await serve('b');
  const t = createFailoverTransport([dead.url, a.url, b.url], {});
  try {
    assert.equal(answer(await t({ method: 'GET', path: '/x' })), 'a');
    // A write that was never sent is sent to the next server too.
    assert.equal(answer(await t({ method: 'POST', path: '/y', body: Buffer.from('{}') })), 'a');
    assert.deepEqual(a.hits, ['GET /x', 'POST /y'], 'the dead server is skipped from then on');
    // a drops its connections: a read goes on to b; a write that may have arrived fails.
    a.reset = true;
    assert.equal(answer(await t({ method: 'GET', path: '/z' })), 'b');
    a.reset = false;
    b.reset = true;
    await assert.rejects(t({ method: 'POST', path: '/w', body: Buffer.from('{}') }), /socket hang up|ECONNRESET/);
    assert.equal(answer(await t({ method: 'GET', path: '/v' })), 'a', 'the next request goes elsewhere');
  } finally {
    t.close();
    await Promise.all([a, b].map((s) => new Promise((r) => s.server.close(r))));
  }
});

test('transport options that list several servers make a failover transport', async () => {
  const dead = await serve('dead');
  await new Promise((r) => dead.server.close(r));
  const live = await serve('live');
  const t = createHttpsTransport({ server: dead.url, servers: [dead.url, live.url] });
  try {
    assert.equal(answer(await t({ method: 'GET', path: '/' })), 'live');
  } finally {
    t.close();
    await new Promise((r) => live.server.close(r));
  }
});

test('a kubeconfig lists further servers in the kplane.io/servers cluster extension', () => {
  const cfg = loadKubeconfig(`
apiVersion: v1
kind: Config
current-context: ha
clusters:
- name: ha
  cluster:
    server: https://127.0.0.1:6443
    extensions:
    - name: kplane.io/servers
      extension:
        servers: [https://127.0.0.1:6443, https://127.0.0.1:6444, https://127.0.0.1:6445]
contexts:
- name: ha
  context: { cluster: ha, user: u }
users:
- name: u
  user: { token: t }
`);
  assert.equal(cfg.server, 'https://127.0.0.1:6443');
  assert.deepEqual(cfg.servers, ['https://127.0.0.1:6443', 'https://127.0.0.1:6444', 'https://127.0.0.1:6445']);
  assert.deepEqual(cfg.transportOptions.servers, cfg.servers, 'every transport made from the options fails over');
  assert.deepEqual(loadKubeconfig(`
current-context: one
clusters: [{ name: one, cluster: { server: "https://h:1" } }]
contexts: [{ name: one, context: { cluster: one } }]
`).servers, ['https://h:1']);
});
