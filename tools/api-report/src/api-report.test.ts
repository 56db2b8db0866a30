import { it } from 'node:test';
import assert from 'node:assert/strict';
import { relative } from 'node:path';
import { ROOT, runApiReports } from './reports.js';

it('the committed API reports match the public API of kplane, @kplane/client, @kplane/runtime and @kplane/testing', () => {
  const results = runApiReports();
  assert.deepEqual(results.flatMap((r) => r.errors.map((e) => `${r.name}: ${e}`)), []);
  const stale = results.filter((r) => r.changed).map((r) => relative(ROOT, r.reportPath));
  assert.deepEqual(stale, [], `stale API reports (the public API changed): run "npm run api-report" and commit them`);
});
