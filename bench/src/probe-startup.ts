/**
 * Child-process entry: imports kplane and times `startControlPlane({ storage: 'memory',
 * listen: false })` cold, then `warm` more times; reports a StartupSample. Argument: [warm].
 */
import { reportFromChild } from './child.js';
import { measureStartup } from './startup-bench.js';

const warm = Number(process.argv[2] ?? 3);
await reportFromChild(() =>
  measureStartup(async () => {
    const { startControlPlane } = await import('kplane');
    return () => startControlPlane({ storage: 'memory', listen: false });
  }, warm),
);
