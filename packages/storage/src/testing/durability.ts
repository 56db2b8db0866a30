/** The durability tests' writer child: run it against a store, kill it mid-load, collect what it acknowledged. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What a killed writer acknowledged, and how it ended (the signal, or its exit code). */
export interface DurabilityRun {
  /** The keys whose create resolved, in order (lines still in the pipe at the kill included). */
  acked: string[];
  exit: NodeJS.Signals | number | null;
}

/**
 * Starts `durability-writer.js` on `target` (an SQLite path or a storage URL); once it has
 * acknowledged `atLeast` keys, `kill(child)` ends it (and whatever else the test kills), and
 * this resolves when the writer has exited. Rejects if the writer exits on its own first.
 */
export async function writeUntilKilled(target: string, kill: (child: ChildProcess) => Promise<void> | void, atLeast = 300): Promise<DurabilityRun> {
  const script = fileURLToPath(new URL('./durability-writer.js', import.meta.url));
  const child = spawn(process.execPath, [script, target, '1000000'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked: string[] = [];
  let partial = '';
  let stderr = '';
  let killing = false;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => {
    child.on('exit', (code, signal) => resolve(signal ?? code));
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      acked.push(...lines);
      if (acked.length >= atLeast && !killing) {
        killing = true;
        void Promise.resolve(kill(child)).then(resolve, reject);
      }
    });
    child.on('exit', () => reject(new Error(`writer exited early: ${stderr}`)));
  });
  const exit = await exited;
  // Lines already in the pipe when the kill landed were acknowledged too.
  await new Promise((resolve) => setImmediate(resolve));
  return { acked, exit };
}
