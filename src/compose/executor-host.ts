/**
 * The executor's host: the machine, through processes (nsenter, as configured), or, when the pod
 * runs on a simulated node, the simulator's host endpoint. Every pod the simulator runs as a process
 * (embedded, `kubemaint sim`, `kubemaint sim --attach`) has `KUBEMAINT_SIM_HOST_URL` set by the
 * simulator itself, after the pod's own env, so a Job's settings cannot remove it. On such a node no
 * process is started at all: the host commands go to the endpoint in this process, and the settings'
 * host parts are replaced (app/executor/simulated-node.ts). No configuration of serve or the executor
 * can make a simulated node's executor act on the real machine (DESIGN invariant 11, ADR 0036).
 */
import { main as simHostCommand } from '@kubemaint/kubesim/host-cli';
import type { HostPort } from '../app/ports.js';
import { processHost } from '../app/executor/host-process.js';
import type { ExecutorSettings } from '../app/executor/settings.js';
import { onSimulatedNode, SIM_HOST_COMMAND } from '../app/executor/simulated-node.js';
import { KubemaintError } from '../errors.js';

/** Set by the simulator on every pod it runs as a process (packages/kubesim/src/jobs-runner.ts). */
export const SIM_HOST_URL_ENV = 'KUBEMAINT_SIM_HOST_URL';

export interface ExecutorHost {
  host: HostPort;
  settings: ExecutorSettings;
  /** The simulator's host endpoint, when the node is simulated. */
  simulated?: string;
}

export function executorHost(env: NodeJS.ProcessEnv, settings: ExecutorSettings): ExecutorHost {
  const url = env[SIM_HOST_URL_ENV];
  if (url === undefined || url === '') return { host: processHost, settings };
  // The node this pod runs on, as the simulator set it: the host a real pod would reach.
  const node = env['NODE_NAME'];
  if (!node) {
    throw new KubemaintError('config_invalid', `${SIM_HOST_URL_ENV} is set but NODE_NAME is not`, {
      hint: 'a simulated node sets both on the pods it runs; nothing was changed',
    });
  }
  return { host: simulatedHost(url, node), settings: onSimulatedNode(settings), simulated: url };
}

/** The simulated host: `kubemaint-sim-host …` answered in this process; anything else refused. */
export function simulatedHost(url: string, node: string): HostPort {
  return {
    async run(argv) {
      const [command, ...args] = argv;
      if (command !== SIM_HOST_COMMAND) {
        return {
          exitCode: 126,
          stderr:
            `refused on simulated node ${node}: ${argv.join(' ')} would run on the machine that ` +
            `runs the simulator; a simulated node's host takes only ${SIM_HOST_COMMAND} reboot|upgrade`,
        };
      }
      let stderr = '';
      const exitCode = await simHostCommand(
        args,
        { [SIM_HOST_URL_ENV]: url, NODE_NAME: node },
        { stdout: () => undefined, stderr: (s) => (stderr += s) },
      );
      return { exitCode, stderr };
    },
    signal(pid, signal) {
      throw new KubemaintError(
        'config_invalid',
        `refused on simulated node ${node}: signal ${signal} to PID ${pid} would reach the machine that runs the simulator`,
        { hint: `a simulated node reboots through ${SIM_HOST_COMMAND} reboot` },
      );
    },
  };
}
