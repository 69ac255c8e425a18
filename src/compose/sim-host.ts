/**
 * What changes when the cluster is the embedded sim: its nodes' "hosts" are reached through
 * `kubemaint-sim-host` (the sim puts it on the PATH of every pod it runs), not through nsenter, and the
 * executor image runs as this very program. The configured host commands apply to real clusters only.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config/schema.js';
import type { ImageMap } from '@kubemaint/kubesim';
import { EXECUTOR_IMAGE_REPOSITORY } from '../config/schema-executor.js';

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

/** The reporter agent on a simulated node (a checkout's bin/; the installed package has none). */
const SIM_AGENT = fileURLToPath(new URL('../../bin/kubemaint-sim-agent', import.meta.url));

/** The image of the agent DaemonSet (infra/k8s), any tag. */
export const AGENT_IMAGE_PATTERN = 'kubemaint-agent:*';

/**
 * What a simulator started on its own (`kubemaint sim`, `--attach`) runs for kubemaint's own images
 * unless `--image` says otherwise: the executor as this very program, as the embedded demo does,
 * and, where the simulated nodes have file systems (`--attach --hosts-dir`), the reporter agent.
 * Mappings given by the person come first: the first pattern that matches an image wins.
 */
export function withKubemaintImages(given: ImageMap, options: { agent: boolean }): ImageMap {
  const images: ImageMap = { ...given };
  const own: ImageMap = {
    ...simExecutorImages(EXECUTOR_IMAGE_REPOSITORY),
    ...(options.agent && existsSync(SIM_AGENT)
      ? { [AGENT_IMAGE_PATTERN]: { command: ['sh', SIM_AGENT] } }
      : {}),
  };
  for (const [pattern, mapping] of Object.entries(own)) images[pattern] ??= mapping;
  return images;
}
