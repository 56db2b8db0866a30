/**
 * Child process for the durability tests: creates keys one after another in the given store
 * and prints each key on stdout once its create has resolved (acknowledged).
 * Usage: node durability-writer.js <sqlite-db-path | storage URL> <max-keys>
 */
import { createBackend } from '../factory.js';
import { createSqliteBackend } from '../sqlite.js';

const [target, max = '100000'] = process.argv.slice(2);
if (!target) {
  process.stderr.write('usage: durability-writer <db-path | storage URL> [max-keys]\n');
  process.exit(2);
}
const backend = /^[a-z][a-z0-9+.-]*:\/\//i.test(target) ? await createBackend(target) : createSqliteBackend({ path: target });
for (let i = 0; i < Number(max); i++) {
  const key = `/durability/${String(i).padStart(7, '0')}`;
  await backend.create(key, JSON.stringify({ i, payload: 'x'.repeat(200) }));
  // stdout to a pipe is synchronous on POSIX: once written, the parent can count it as acked.
  process.stdout.write(`${key}\n`);
}
await backend.close();
