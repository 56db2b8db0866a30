/** Child-process entry: runs the authorization benchmark in a fresh process. Arguments: [bindings] [rounds]. */
import { reportFromChild } from './child.js';
import { benchAuthorization } from './authz-bench.js';

await reportFromChild(() => benchAuthorization({ bindings: Number(process.argv[2] ?? 2000), ...(process.argv[3] ? { rounds: Number(process.argv[3]) } : {}) }));
