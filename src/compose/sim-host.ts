/**
 * What changes when the cluster is the embedded sim: its nodes' "hosts" are reached through
 * `kubemaint-sim-host` (the sim puts it on the PATH of every pod it runs), not through nsenter, and the
 * executor image runs as this very program. The configured host commands apply to real clusters only.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/schema.js';
import type { ImageMap } from '@kubemaint/kubesim';

export function forSimHost(config: Config): Config {
  return {
    ...config,
    reboot: { ...config.reboot, method: 'command', command: ['kubemaint-sim-host', 'reboot'] },
    upgrade: {
      ...config.upgrade,
      method: 'command',
      command: ['kubemaint-sim-host', 'upgrade', '{{version}}'],
      // The sim's host restarts its kubelet as part of the upgrade, after the executor has exited.
      restartCommand: [],
    },
    executor: { ...config.executor, hostPrefix: [] },
  };
}

/** The CLI's source, when this runs from a checkout (the installed package has only its bundle). */
const CLI_SOURCE = fileURLToPath(new URL('../cli/main.ts', import.meta.url));

/** How a person types kubemaint here: `npx kubemaint` in a checkout, `kubemaint` once installed. */
export const cliCommand = (): string => (existsSync(CLI_SOURCE) ? 'npx kubemaint' : 'kubemaint');

/** The executor image, run as `kubemaint` itself: from source through tsx, or the built bundle. */
export function simExecutorImages(image: string): ImageMap {
  const source = CLI_SOURCE;
  const command = existsSync(source)
    ? [process.execPath, '--import', import.meta.resolve('tsx'), source]
    : [process.execPath, process.argv[1] ?? 'kubemaint'];
  const repository = image.replace(/(:[\w][\w.-]*)?(@sha256:[a-f0-9]+)?$/, '');
  return { [`${repository}:*`]: { command } };
}
