#!/usr/bin/env node
import { createRequire } from 'node:module';
import { friendlyMessage } from './errors.js';

type Run = (args: string[]) => Promise<void>;

/**
 * Every command: name → [one-line summary, loader of its run function]. Each command lives in
 * src/commands/ and is loaded only when it runs, so `--version` and `help` answer at once.
 */
const COMMANDS: Record<string, [string, () => Promise<Run>]> = {
  up: ['Start a control plane (API server on embedded storage).', async () => (await import('./commands/up.js')).up],
  apiserver: [
    'Run the API server alone, over a storage several API servers may share (kube-apiserver).',
    async () => (await import('./commands/apiserver.js')).apiserver,
  ],
  'controller-manager': [
    "Run kplane's controllers against an API server (kube-controller-manager).",
    async () => (await import('./commands/controller-manager.js')).controllerManager,
  ],
  kubelet: [
    'Run simulated nodes and a scheduler against an API server (kwok-style kubelet).',
    async () => (await import('./commands/kubelet.js')).kubelet,
  ],
  scheduler: [
    'Run the scheduler alone, with leader election (kube-scheduler).',
    async () => (await import('./commands/scheduler.js')).scheduler,
  ],
  kubeconfig: [
    "Write a kubeconfig for a new user, its certificate signed by the cluster's CA.",
    async () => (await import('./commands/kubeconfig.js')).kubeconfig,
  ],
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, [summary]]) => `  ${name.padEnd(20)}${summary}`);
  return (
    `Usage: kplane <command> [flags]\n\nCommands:\n${lines.join('\n')}\n\n` +
    `Run "kplane help <command>" or "kplane <command> --help" for a command's flags,\n` +
    `"kplane --version" for the version.\n`
  );
}

/** The version in kplane's package.json. */
function version(): string {
  // By the package's own name: the same file from dist/ and from the bundle in dist/bundle/.
  return (createRequire(import.meta.url)('kplane/package.json') as { version: string }).version;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === 'version') {
    process.stdout.write(`kplane ${version()}\n`);
    return;
  }
  if (command === undefined || command === '--help' || command === '-h' || (command === 'help' && rest.length === 0)) {
    process.stdout.write(usage());
    return;
  }
  const name = command === 'help' ? rest[0] : command;
  const entry = COMMANDS[name];
  if (!entry) {
    process.stderr.write(`kplane: unknown command "${name}"\n\n${usage()}`);
    process.exit(2);
  }
  const run = await entry[1]();
  await run(command === 'help' ? ['--help'] : rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`kplane: ${friendlyMessage(err)}\n`);
  process.exit(1);
});
