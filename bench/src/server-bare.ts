/**
 * Child-process entry: starts the baseline server. Arguments: <https|http> <getBodyFile>
 * [pkiDir]; with https the serving certificate and key are read from pkiDir.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startBareServer } from './bare-server.js';
import { serveInChild } from './child.js';

const [mode, getBodyFile, pkiDir] = process.argv.slice(2);
if ((mode !== 'https' && mode !== 'http') || !getBodyFile || (mode === 'https' && !pkiDir)) {
  throw new Error('usage: server-bare.js <https|http> <getBodyFile> [pkiDir]');
}

await serveInChild<{ url: string }>(async () => {
  const getBody = await readFile(getBodyFile);
  const tls =
    mode === 'https'
      ? { cert: await readFile(join(pkiDir!, 'serving.crt'), 'utf8'), key: await readFile(join(pkiDir!, 'serving.key'), 'utf8') }
      : undefined;
  const server = await startBareServer(tls ? { tls, getBody } : { getBody });
  return { info: { url: server.url }, stop: () => server.close() };
});
