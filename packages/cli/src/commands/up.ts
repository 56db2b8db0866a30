import { parseArgs } from 'node:util';
import { startControlPlane } from '../control-plane.js';

/** Help of `kplane up`. */
export const UP_USAGE = `Usage: kplane up [flags]

Start a control plane: storage and the API server (HTTPS on 127.0.0.1).

Flags:
  --data-dir DIR          database, PKI and kubeconfig (default ./.kplane)
  --port N                HTTPS port, 0 picks a free one (default 6443)
  --storage sqlite|memory storage driver (default sqlite)
`;

/** `kplane up`: runs until SIGINT or SIGTERM. */
export async function up(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string', default: '.kplane' },
      port: { type: 'string', default: '6443' },
      storage: { type: 'string', default: 'sqlite' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(UP_USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port number: ${values.port}`);
  const storage = values.storage;
  if (storage !== 'sqlite' && storage !== 'memory') throw new Error(`--storage: must be sqlite or memory, not ${storage}`);
  const cp = await startControlPlane({ dataDir: values['data-dir'], port, storage });
  process.stdout.write(`kubeconfig: ${cp.kubeconfigPath}\nready: ${cp.url}\nexport KUBECONFIG=${cp.kubeconfigPath}\n`);
  stopOnSignals(() => cp.stop());
}

/** Calls `stop` once on SIGINT or SIGTERM, then exits 0 (1 if stopping failed). */
export function stopOnSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`kplane: ${signal}, shutting down\n`);
    stop().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`kplane: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
