#!/usr/bin/env node
import { up } from './commands/up.js';
import { controllerManager } from './commands/controller-manager.js';
import { kubelet } from './commands/kubelet.js';
import { kubeconfig } from './commands/kubeconfig.js';

/** Every command: name → [one-line summary, run]. Each command lives in src/commands/. */
const COMMANDS: Record<string, [string, (args: string[]) => Promise<void>]> = {
  up: ['Start a control plane (API server on embedded storage).', up],
  'controller-manager': ["Run kplane's controllers against an API server (kube-controller-manager).", controllerManager],
  kubelet: ['Run simulated nodes and a scheduler against an API server (kwok-style kubelet).', kubelet],
  kubeconfig: ["Write a kubeconfig for a new user, its certificate signed by the cluster's CA.", kubeconfig],
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, [summary]]) => `  ${name.padEnd(20)}${summary}`);
  return `Usage: kplane <command> [flags]\n\nCommands:\n${lines.join('\n')}\n\nRun "kplane <command> --help" for a command's flags.\n`;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(usage());
    return;
  }
  const entry = COMMANDS[command];
  if (!entry) {
    process.stderr.write(`kplane: unknown command "${command}"\n\n${usage()}`);
    process.exit(2);
  }
  await entry[1](rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`kplane: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
