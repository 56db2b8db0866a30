#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { startControlPlane } from './control-plane.js';

const USAGE = `Usage: kplane <command> [flags]

Commands:
  up    Start a control plane (API server on embedded storage).

Flags of up:
  --data-dir DIR          database, PKI and kubeconfig (default ./.kplane)
  --port N                HTTPS port, 0 picks a free one (default 6443)
  --storage sqlite|memory storage driver (default sqlite)
`;

async function up(args: string[]): Promise<void> {
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
    process.stdout.write(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port number: ${values.port}`);
  const storage = values.storage;
  if (storage !== 'sqlite' && storage !== 'memory') throw new Error(`--storage: must be sqlite or memory, not ${storage}`);
  const cp = await startControlPlane({ dataDir: values['data-dir'], port, storage });
  process.stdout.write(`kubeconfig: ${cp.kubeconfigPath}\nready: ${cp.url}\nexport KUBECONFIG=${cp.kubeconfigPath}\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`kplane: ${signal}, shutting down\n`);
    cp.stop().then(
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

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'up':
      return up(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      process.stderr.write(`kplane: unknown command "${command}"\n\n${USAGE}`);
      process.exit(2);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`kplane: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
