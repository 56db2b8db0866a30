/**
 * Child-process entry: imports @kplane/testing and times its `startControlPlane()` (memory
 * storage, every controller, 3 simulated nodes, virtual time; resolved once idle) cold, then
 * `warm` more times; reports a StartupSample. Argument: [warm].
 */
import { reportFromChild } from './child.js';
import { measureStartup } from './startup-bench.js';

const warm = Number(process.argv[2] ?? 3);
await reportFromChild(() =>
  measureStartup(async () => {
    const { startControlPlane } = await import('@kplane/testing');
    return () => startControlPlane();
  }, warm),
);
