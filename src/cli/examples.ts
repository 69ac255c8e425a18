/**
 * The examples under each command's `--help`: the commands a person types, each with what it does.
 * Kept as argument lists, not text, so a test can parse every one with the real program (an example
 * that stops working fails the build), and printed with the program's own name (`kubemaint`, or
 * `kubectl maint` when kubectl runs the plugin).
 */
import type { Command } from 'commander';

export interface Example {
  args: string[];
  /** What it does, in a few words. */
  does: string;
}

/** By command path (`config check`); windows and completion print their own. */
export const EXAMPLES: Record<string, Example[]> = {
  status: [
    { args: ['status'], does: 'every request, its state and what it waits for' },
    { args: ['status', 'node-2'], does: 'only node-2 (exit 2 if there is no such node)' },
    { args: ['status', '--json'], does: 'one JSON document, for scripts' },
  ],
  approve: [
    { args: ['approve', 'r-7f3a9c'], does: 'approve as whoever your kubeconfig is' },
    { args: ['approve', 'r-7f3a9c', '--as', 'alice'], does: 'as alice (kubectl --as)' },
    { args: ['approve', 'r-7f3a9c', '--wait', '0'], does: 'record it and return at once' },
  ],
  reject: [{ args: ['reject', 'r-7f3a9c', 'not during the sale'], does: 'with a reason' }],
  cancel: [{ args: ['cancel', 'r-7f3a9c', 'wrong node'], does: 'hand the node back' }],
  decide: [
    { args: ['decide', 'r-7f3a9c', 'wait'], does: 'keep evicting politely' },
    { args: ['decide', 'r-7f3a9c', 'force'], does: 'delete the pods the PDBs hold' },
  ],
  reboot: [
    { args: ['reboot', 'node-2', 'kernel CVE-2026-1234'], does: 'propose a reboot, with a reason' },
  ],
  upgrade: [
    { args: ['upgrade', 'node-4'], does: 'the next step toward kubelet.target' },
    {
      args: ['upgrade', 'node-4', 'v1.31.4'],
      does: 'this version (refused, with the allowed ones, if it cannot be)',
    },
  ],
  pause: [
    { args: ['pause', 'launch day'], does: 'no new maintenance starts; running work finishes' },
  ],
  resume: [{ args: ['resume'], does: 'lift the pause; serve starts what waits at once' }],
  slots: [
    { args: ['slots'], does: 'each slot and who holds it' },
    { args: ['slots', '--json'], does: 'as JSON' },
  ],
  release: [{ args: ['release', 'kubemaint-slot-0'], does: 'free a slot whose holder is gone' }],
  tick: [
    { args: ['tick'], does: 'one tick now, as the schedule runs it' },
    { args: ['tick', '--skew-scan', '--json'], does: 'with the kubelet skew scan, as JSON' },
  ],
  scan: [{ args: ['scan'], does: 'what detection finds now; writes nothing' }],
  serve: [
    { args: ['serve'], does: 'with no config: the embedded demo cluster' },
    { args: ['serve', '--config', 'kubemaint.yaml', '--ops-port', '9090'], does: 'a real cluster' },
  ],
  config: [{ args: ['config', 'check', 'kubemaint.yaml'], does: 'every problem, with its path' }],
  'config check': [
    { args: ['config', 'check', 'kubemaint.yaml'], does: 'a summary, or every problem and exit 2' },
  ],
  'config print-defaults': [
    { args: ['config', 'print-defaults'], does: 'every setting and its default, as YAML' },
  ],
  executor: [
    { args: ['executor', '--node', 'node-2', '--request', 'r-7f3a9c'], does: 'what the Job runs' },
  ],
  'upgrade-script': [
    { args: ['upgrade-script'], does: 'the script upgrade.method: kubeadm runs on each node' },
  ],
  drain: [
    { args: ['drain', 'node-3', '--dry-run'], does: 'what would be evicted; nothing changes' },
    { args: ['drain', 'node-3', '--timeout', '10m'], does: 'cordon and drain; no reboot' },
  ],
  notify: [
    { args: ['notify', '--url', 'ntfy://ntfy.sh/my-topic', 'hello'], does: 'one test message' },
    {
      args: ['notify', '--config', 'kubemaint.yaml', '--event', 'proposed'],
      does: "the config's URLs and template",
    },
  ],
  history: [
    { args: ['history', 'node-2'], does: "node-2's maintenance, oldest first, deleted ones too" },
    { args: ['history', 'node-2', '--json'], does: 'as one JSON document' },
  ],
  sim: [
    { args: ['sim'], does: 'the embedded cluster alone (prints its kubeconfig)' },
    {
      args: ['sim', '--attach', 'admin.kubeconfig', '--nodes', '3'],
      does: 'simulated nodes on a real apiserver',
    },
  ],
};

/** How an argument is typed in a POSIX shell: quoted only when it needs to be. */
export const shellWord = (arg: string): string =>
  /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;

/** Add each command's examples under its help. */
export function addExamples(program: Command): void {
  const visit = (command: Command, path: string[]) => {
    const examples = EXAMPLES[path.join(' ')];
    if (examples) {
      const lines = examples.map(({ args, does }) => [
        `${program.name()} ${args.map(shellWord).join(' ')}`,
        does,
      ]);
      const width = Math.max(...lines.map(([typed]) => typed!.length));
      const text = lines.map(([typed, does]) => `  ${typed!.padEnd(width)}   ${does!}`).join('\n');
      command.addHelpText('after', `\nExamples:\n${text}`);
    }
    for (const child of command.commands) visit(child, [...path, child.name()]);
  };
  for (const child of program.commands) visit(child, [child.name()]);
}
