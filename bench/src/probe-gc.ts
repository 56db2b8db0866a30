/** Child-process entry: runs the garbage-collector benchmark in a fresh process and reports its result. Argument: [dependents]. */
import { benchGarbageCollector } from '@kplane/controllers';
import { reportFromChild } from './child.js';

await reportFromChild(() => benchGarbageCollector(Number(process.argv[2] ?? 10_000)));
