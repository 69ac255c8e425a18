/**
 * The simulated hosts' file systems, when a folder is given for them: `<dir>/<node>/` stands for the
 * node's `/`, which a pod sees through `KUBEMAINT_SIM_HOST_ROOT` (the hostPath mount a real agent has at
 * `/host`). Tests write what a package manager would, e.g. `var/run/reboot-required`. `/var/run` is a
 * tmpfs on the hosts kubemaint targets (Debian, Ubuntu, RHEL), so a reboot empties it: that is how the
 * reboot-required file goes away, and how the agent's proof of a reboot (ADR 0007) comes about.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface HostRoots {
  /** The node's root folder (created on first use). */
  of(node: string): string;
  /** The machine booted: its tmpfs `/var/run` starts empty. */
  booted(node: string): void;
}

export function hostRoots(dir: string): HostRoots {
  const of = (node: string) => {
    const root = join(dir, node);
    mkdirSync(root, { recursive: true });
    return root;
  };
  return {
    of,
    booted(node) {
      const run = join(of(node), 'var', 'run');
      rmSync(run, { recursive: true, force: true });
      mkdirSync(run, { recursive: true });
    },
  };
}
