/**
 * Child-process entry: an in-process API server on memory (or SQLite) storage holding `pods`
 * pods (one created through the API, the rest written to storage as its copies, for speed),
 * then one LIST of every pod: `streamed` (GET /api/v1/pods, the body read chunk by chunk as a
 * client would) or `built` (the same JSON built whole in memory first, as before streaming).
 * Reports a ListStreamSample. Arguments: <pods> <streamed|built> [memory|sqlite] [profile.cpuprofile]
 * (the last: a CPU profile of the LIST alone written there).
 */
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer } from '@kplane/apiserver';
import { createMemoryBackend, createSqliteBackend } from '@kplane/storage';
import { reportFromChild } from './child.js';
import { procStatusBytes, scalePod, type ListStreamSample } from './scale-bench.js';

const pods = Number(process.argv[2] ?? 150_000);
const mode = process.argv[3] === 'built' ? 'built' : 'streamed';
const storage = process.argv[4] === 'sqlite' ? 'sqlite' : 'memory';
const profile = process.argv[5];

await reportFromChild<ListStreamSample>(async () => {
  const dir = storage === 'sqlite' ? mkdtempSync(join(tmpdir(), 'kplane-list-probe-')) : undefined;
  const backend = dir ? createSqliteBackend({ path: join(dir, 'state.db'), synchronous: 'normal' }) : createMemoryBackend();
  const server = createApiServer({ backend });
  await server.start();
  const store = server.registry.get('', 'v1', 'pods')!;
  const NAMESPACES = 50;
  for (let n = 0; n < NAMESPACES; n++) {
    await server.registry.get('', 'v1', 'namespaces')!.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `scale-${n}` } });
    await server.registry.get('', 'v1', 'serviceaccounts')!.create(`scale-${n}`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  }
  await store.create('scale-0', scalePod('pod-0', 'scale-0', 'node-0', 0) as never);
  const template = (await backend.get('/registry/pods/scale-0/pod-0'))!.value;
  const writes: Promise<unknown>[] = [];
  for (let i = 1; i < pods; i++) {
    const ns = `scale-${i % NAMESPACES}`;
    const value = template.replaceAll('"pod-0"', `"pod-${i}"`).replaceAll('"scale-0"', `"${ns}"`).replaceAll('"node-0"', `"node-${i % 5000}"`);
    // Stored as storage hands values back: flat strings (not ropes of the replacements).
    writes.push(backend.create(`/registry/pods/${ns}/pod-${i}`, Buffer.from(value).toString('utf8')));
    // SQLite commits the writes of one turn together: a few thousand at a time.
    if (writes.length === 5000) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  // The server's own watchers (the node authorizer's graph...) catch up before the LIST.
  while (server.activity().unreadWatchers > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  global.gc?.();
  const rssBefore = procStatusBytes(process.pid, 'VmRSS');
  writeFileSync(`/proc/${process.pid}/clear_refs`, '5');
  const session = profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let bytes = 0;
  if (mode === 'built') {
    bytes = (await store.listJson(undefined, {}))!.byteLength;
  } else {
    const r = await server.handle({ method: 'GET', path: '/api/v1/pods', headers: { accept: 'application/json' } });
    for await (const chunk of r.stream ?? [r.body!]) bytes += chunk.byteLength;
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const peakRss = procStatusBytes(process.pid, 'VmHWM');
  if (session) writeFileSync(profile!, JSON.stringify((await session.post('Profiler.stop')).profile));
  await server.close();
  await backend.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  return { mode, pods, bytes, ms, cpuMs, rssBefore, peakRss };
});
