import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@kplane/api/testing';
import { createMemoryBackend } from '@kplane/storage';
import { ensurePki } from '../auth/pki.js';
import { createApiServer, type ApiServerOptions } from './server.js';
import { readEvents } from '../testing.js';

const CM = '/api/v1/namespaces/default/configmaps';

/**
 * Starts an API server on memory storage serving HTTPS on a free port, with one ConfigMap
 * `big` holding `big`, and opens a watch over HTTPS from the revision after it. The caller
 * stops the returned server.
 */
async function watchOverHttps(options: Omit<ApiServerOptions, 'backend'>, big: string) {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-watch-http-'));
  const backend = createMemoryBackend();
  const server = createApiServer({ backend, ...options });
  const call = (method: string, path: string, body: unknown, contentType = 'application/json') =>
    server.handle({ method, path, query: {}, headers: { 'content-type': contentType }, body: Buffer.from(JSON.stringify(body)) });
  const stop = async () => {
    await server.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await server.start();
    const pki = await ensurePki(dir);
    const port = await server.listen({ port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert, tokens: new Map([[pki.adminToken, { username: 'admin', groups: ['system:masters'] }]]) });
    assert.equal((await call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { v: big } })).status, 201);
    const start = await backend.currentRevision();
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: `${CM}?watch=true&resourceVersion=${start}`, ca: pki.ca.cert, headers: { authorization: `Bearer ${pki.adminToken}` } }, resolve);
      req.on('error', reject);
      req.end();
    });
    assert.equal(res.statusCode, 200);
    return { server, call, start, res, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

it('over HTTPS, closes the watch of a client that stopped reading; it then reads a gapless prefix and a clean end', async () => {
  const big = 'x'.repeat(100 * 1024);
  const { server, call, start, res, stop } = await watchOverHttps({ watchCache: { watcherMaxEvents: 20, maxBytes: 512 * 1024 * 1024 } }, big);
  try {
    res.pause(); // The client stops reading.
    const cache = server.registry.get('', 'v1', 'configmaps')!.cache;
    // Far more than the sockets, the watcher's buffer and its 20 unread changes hold (the
    // window, large here, holds them all: only the watcher's own bound closes it).
    const patches = 300;
    for (let i = 0; i < patches; i++) {
      const r = await call('PATCH', `${CM}/big`, { data: { v: big + i } }, 'application/merge-patch+json');
      assert.equal(r.status, 200);
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(cache.usage.watchers, 0, 'the watcher was closed');
    // The client reads again: what the server had sent or buffered, then the end of the stream.
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    res.resume();
    await new Promise((r) => res.on('end', r));
    const events = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata: { resourceVersion: string } } });
    assert.ok(events.length > 0 && events.length < patches, `got ${events.length} events`);
    assert.ok(events.every((e) => e.type === 'MODIFIED'), 'no ERROR event');
    assert.deepEqual(
      events.map((e) => Number(e.object.metadata.resourceVersion)),
      events.map((_, i) => start + 1 + i),
    );
    // Watching again from the last resourceVersion it got gives the rest.
    const abort = new AbortController();
    const again = await server.handle({ method: 'GET', path: CM, query: { watch: 'true', resourceVersion: events[events.length - 1]!.object.metadata.resourceVersion }, headers: {}, signal: abort.signal });
    const rest = await readEvents(again, patches - events.length, 10_000);
    abort.abort();
    assert.equal(rest.length, patches - events.length);
    assert.equal(rest[rest.length - 1]!.object.metadata?.resourceVersion, String(start + patches));
  } finally {
    await stop();
  }
});

it('over HTTPS, cuts the connection of a client that takes no data for maxWriteStallMs', async () => {
  // More than the kernel's socket buffers hold, so the server's writes block.
  const big = 'x'.repeat(900 * 1024);
  const { server, call, res, stop } = await watchOverHttps({ watchCache: { maxBytes: 512 * 1024 * 1024, watcherMaxBytes: 512 * 1024 * 1024 }, limits: { maxWriteStallMs: 200 } }, big);
  try {
    res.pause(); // The client stops reading and never disconnects.
    for (let i = 0; i < 40; i++) {
      assert.equal((await call('PATCH', `${CM}/big`, { data: { v: big + i } }, 'application/merge-patch+json')).status, 200);
      await new Promise((r) => setImmediate(r));
    }
    // The watcher is within its bounds (no lag closes it); the server filled the socket, waited
    // maxWriteStallMs for the client to take data, and closed the connection, which ended it.
    const cache = server.registry.get('', 'v1', 'configmaps')!.cache;
    await until('the stalled watcher to end', () => cache.usage.watchers === 0, { intervalMs: 0 });
    // Reading again, the client finds its response cut short, not ended.
    const ended = await new Promise<string>((resolve) => {
      res.on('end', () => resolve('end'));
      res.on('error', () => resolve('cut'));
      res.on('aborted', () => resolve('cut'));
      res.resume();
    });
    assert.equal(ended, 'cut');
  } finally {
    await stop();
  }
});

it('over HTTPS a watch with sharedObjects is bytes as before: the objects parsed are the client’s own', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kplane-watch-http-'));
  const backend = createMemoryBackend();
  const server = createApiServer({ backend });
  const { createClient, createHttpsTransport } = await import('@kplane/client');
  try {
    await server.start();
    const pki = await ensurePki(dir);
    const port = await server.listen({ port: 0, cert: pki.serving.cert, key: pki.serving.key, clientCa: pki.ca.cert, tokens: new Map([[pki.adminToken, { username: 'admin', groups: ['system:masters'] }]]) });
    const transport = createHttpsTransport({ server: `https://127.0.0.1:${port}`, ca: pki.ca.cert, token: pki.adminToken });
    const cms = createClient({ transport }).resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true });
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { v: '1' } });
    const ctl = new AbortController();
    for await (const ev of cms.watch({ sharedObjects: true, signal: ctl.signal })) {
      assert.equal(ev.type, 'ADDED');
      assert.equal(Object.isFrozen(ev.object), false);
      (ev.object.data as Record<string, string>).v = 'mine';
      ctl.abort();
    }
    transport.close();
  } finally {
    await server.close();
    await backend.close();
    await rm(dir, { recursive: true, force: true });
  }
});
