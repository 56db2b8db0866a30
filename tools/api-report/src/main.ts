#!/usr/bin/env node
/**
 * `npm run api-report`: rewrites the API reports of the published packages (after `tsc -b`).
 * With `--check`, only compares them and exits 1 when one is stale.
 */
import { relative } from 'node:path';
import { ROOT, runApiReports } from './reports.js';

const check = process.argv.includes('--check');
let failed = false;
for (const r of runApiReports({ update: !check })) {
  const where = relative(ROOT, r.reportPath);
  for (const e of r.errors) process.stderr.write(`${r.name}: ${e}\n`);
  if (r.errors.length > 0) failed = true;
  if (r.changed) {
    if (check) failed = true;
    process.stdout.write(check ? `${where}: stale, run "npm run api-report"\n` : `${where}: updated\n`);
  } else {
    process.stdout.write(`${where}: up to date\n`);
  }
}
process.exit(failed ? 1 : 0);
