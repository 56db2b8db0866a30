import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchAuthorization, formatAuthorization } from './authz-bench.js';

test('benchAuthorization measures GETs of a bound user with and without authorization (Node,RBAC)', async () => {
  const rows = await benchAuthorization({ bindings: 50, rounds: 2, roundMs: 100, warmupMs: 20, concurrency: 4 });
  assert.deepEqual(rows.map((r) => r.mode), ['Node,RBAC', 'AlwaysAllow']);
  for (const r of rows) assert.ok(r.requestsPerSecond > 0);
  assert.match(formatAuthorization(rows), /^Node,RBAC \/ AlwaysAllow \d\.\d{3} \(GETs per CPU second, median of 2 rounds.*; target >= 0\.95: (met|NOT met)\)$/m);
});
