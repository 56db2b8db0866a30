/**
 * Child process for the sqlite durability test: creates keys one after another in the given
 * database file and prints each key on stdout once its create has resolved (acknowledged).
 * Usage: node durability-writer.js <db-path> <max-keys>
 */
import { createSqliteBackend } from '../sqlite.js';

const [path, max = '100000'] = process.argv.slice(2);
if (!path) {
  process.stderr.write('usage: durability-writer <db-path> [max-keys]\n');
  process.exit(2);
}
const backend = createSqliteBackend({ path });
for (let i = 0; i < Number(max); i++) {
  const key = `/durability/${String(i).padStart(7, '0')}`;
  await backend.create(key, JSON.stringify({ i, payload: 'x'.repeat(200) }));
  // stdout to a pipe is synchronous on POSIX: once written, the parent can count it as acked.
  process.stdout.write(`${key}\n`);
}
await backend.close();
