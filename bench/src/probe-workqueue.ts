/** Child-process entry: runs the workqueue benchmark in a fresh process and reports its rows. Argument: [scale]. */
import { reportFromChild } from './child.js';
import { benchWorkqueue } from './workqueue-bench.js';

await reportFromChild(() => benchWorkqueue(Number(process.argv[2] ?? 1)));
