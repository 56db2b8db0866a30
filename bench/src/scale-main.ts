/**
 * The scale case alone: `node bench/dist/scale-main.js [--pods N] [--nodes N] [--concurrency N]
 * [--api-pods N]` (defaults 150000, 5000, 32, 2000: the pods created over HTTPS, the rest
 * written through storage). Prints the table of formatScale.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchScale, formatScale } from './scale-bench.js';

const { values } = parseArgs({ options: { pods: { type: 'string', default: '150000' }, nodes: { type: 'string', default: '5000' }, concurrency: { type: 'string', default: '32' }, 'api-pods': { type: 'string', default: '2000' } } });
const dataDir = await mkdtemp(join(tmpdir(), 'kplane-scale-'));
try {
  console.log(`scale: ${values.pods} pods and ${values.nodes} nodes on one kplane (SQLite) ...`);
  console.log(formatScale(await benchScale({ pods: Number(values.pods), nodes: Number(values.nodes), concurrency: Number(values.concurrency), apiPods: Number(values['api-pods']), dataDir })));
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
