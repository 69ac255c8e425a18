/**
 * `kubemaint sim`: serve the embedded Kubernetes until SIGINT/SIGTERM. Prints exactly one line on
 * stdout, `kubemaint sim ready: kubeconfig=PATH`, once it serves (scripts and tests wait for it);
 * everything else is logged to stderr. With `--attach KUBECONFIG` the sim's kubelets join another
 * apiserver instead (sim-attach.ts).
 */
import type { Command } from 'commander';
import { KubemaintError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { DEMO_KUBECONFIG as DEFAULT_KUBECONFIG, DEMO_SIM_STATE } from '../../compose/connect.js';
import {
  isScenarioName,
  nodesProblem,
  SCENARIO_DESCRIPTIONS,
  type ScenarioName,
} from '@kubemaint/kubesim/names';
import { ATTACH_HELP, refuseAttachOptions, runAttach } from './sim-attach.js';
import { number, parseImages } from './sim-options.js';
import { kubemaintAccessObjects } from '../../compose/sim-access.js';
import { withKubemaintImages } from '../../compose/sim-host.js';
import { stopSignal } from '../../compose/stop-signal.js';

export interface SimOptions {
  scenario: string;
  nodes?: string;
  podsPerNode?: string;
  port: string;
  kubeconfig: string;
  /** A directory, or false with --no-state. */
  state: string | false;
  scale: string;
  apiVersion?: string;
  emulatedVersion?: string;
  apiserver: string[];
  image: string[];
  attach?: string;
  namePrefix?: string;
  label: string[];
  kubeletVersion?: string;
  maxPods?: string;
  hostPort?: string;
  rebootDowntime?: string;
  hostsDir?: string;
  cleanup?: boolean;
  shutdownGracePeriod?: string;
  shutdownGracePeriodCriticalPods?: string;
}

export const PODS_HELP =
  "Pods as processes: kubemaint's executor image (ghcr.io/kubemaint/kubemaint:*) runs as this very\n" +
  'kubemaint by default, so a `kubemaint serve` whose config says\n' +
  '  cluster: {type: kubeconfig, kubeconfig: {path: .kubemaint/sim.kubeconfig}}\n' +
  'reboots and upgrades simulated nodes end to end after `kubemaint approve ID`. --image maps other\n' +
  'images (the first matching pattern wins). A simulated node never acts on this machine: every pod\n' +
  "process gets the sim's host endpoint (KUBEMAINT_SIM_HOST_URL), kubemaint's executor sends its host\n" +
  'commands there whatever its settings say, and nsenter, systemctl, reboot, shutdown, halt, poweroff,\n' +
  "kill, init, telinit and systemd-run come first on the process's PATH as shims that reboot the\n" +
  'simulated node or refuse, saying why (`nsenter … -- sh`, a power-off, a signal to PID 1).\n' +
  'Not stopped: a command you map with --image that calls a binary by absolute path or a shell\n' +
  "builtin (sh -c 'kill …') acts on this machine as you; map only what you would run yourself\n" +
  '(SECURITY.md).\n\n';

const scenarioHelp = Object.entries(SCENARIO_DESCRIPTIONS)
  .map(([name, describe]) => `  ${name.padEnd(7)} ${describe}`)
  .join('\n');

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .summary('serve the embedded Kubernetes alone (kubectl works against it)')
    .description(
      'Serve an embedded Kubernetes (HTTPS API, kubelets, controllers on a scaled clock) that kubectl\n' +
        'and kubemaint use like a real cluster. Prints one line when ready; stop it with Ctrl-C.',
    )
    .option(
      '--scenario <name>',
      `what the cluster starts with (${Object.keys(SCENARIO_DESCRIPTIONS).join(', ')})`,
      'demo',
    )
    .option('--nodes <n>', 'fleet: number of nodes (default 50); attach: how many (default 3)')
    .option('--pods-per-node <n>', 'fleet: pods per node, at most 110 (default 20)')
    .option(
      '--port <port>',
      'API server port (0: the one it served on before, if its state has one and it is free; else any)',
      '0',
    )
    .option(
      '--state <dir>',
      'keep the cluster (objects, CA, credentials) here across restarts; a new directory is seeded from --scenario',
      DEMO_SIM_STATE,
    )
    .option('--no-state', 'a fresh cluster that is forgotten when it stops')
    .option('--kubeconfig <path>', 'where to write the kubeconfig for the sim', DEFAULT_KUBECONFIG)
    .option('--scale <x>', 'sim time runs this many times faster than wall time', '1')
    .option('--api-version <v>', 'the version /version reports (kubectl picks its binary by it)')
    .option(
      '--emulated-version <minor>',
      "the minor the apiserver emulates (KEP-4330), e.g. 1.33: its own or the one below; /version's emulationMinor",
    )
    .option(
      '--apiserver <version>',
      'an extra kube-apiserver with its identity Lease, answering /version at its peer address: v1.33.2, or v1.34.4@1.33 emulating 1.33 (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--image <pattern=command>',
      "run pods of matching images as this local command (repeatable; kubemaint's own need none)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--attach <kubeconfig>',
      'instead: attach simulated nodes to the apiserver of this admin kubeconfig (see below)',
    )
    .option('--name-prefix <prefix>', `attach: node names are PREFIX0…PREFIX<N-1>`, 'sim-node-')
    .option(
      '--label <key=value>',
      'attach: a label every node registers with, e.g. topology.kubernetes.io/zone=z1 (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--kubelet-version <v>', "attach: the kubelets' version (default: the apiserver's)")
    .option('--max-pods <n>', "attach: pods each node takes (the kubelet's --max-pods)", '110')
    .option('--host-port <port>', 'attach: host endpoint port on 127.0.0.1 (0 picks one)', '0')
    .option('--reboot-downtime <seconds>', 'how long a rebooted node is down', '60')
    .option(
      '--hosts-dir <dir>',
      "attach: the hosts' file systems, DIR/<node>/ each (pods get KUBEMAINT_SIM_HOST_ROOT; a reboot empties var/run)",
    )
    .option('--cleanup', 'attach: delete the nodes on exit (else they stay and go NotReady)')
    .option(
      '--shutdown-grace-period <duration>',
      'attach: each kubelet serves /configz with this shutdownGracePeriod (20s; its URL is printed)',
    )
    .option(
      '--shutdown-grace-period-critical-pods <duration>',
      'attach: and this shutdownGracePeriodCriticalPods (default 0s)',
    )
    .addHelpText(
      'after',
      `\nScenarios:\n${scenarioHelp}\n\nThe sim writes its kubeconfig (TLS with its own CA, a bearer token) so that\n` +
        '`kubectl --kubeconfig PATH get nodes` works without extra flags.\n\n' +
        PODS_HELP +
        ATTACH_HELP,
    )
    .action(async (options: SimOptions, command: Command) => {
      if (options.attach !== undefined) return runAttach(options, command);
      refuseAttachOptions(command);
      if (!isScenarioName(options.scenario)) {
        throw new KubemaintError('usage', `unknown scenario ${JSON.stringify(options.scenario)}`, {
          hint: `choose one of: ${Object.keys(SCENARIO_DESCRIPTIONS).join(', ')}`,
        });
      }
      const whole = (n: number) => Number.isInteger(n) && n >= 1;
      const nodes =
        options.nodes === undefined ? undefined : nodeCount(options.scenario, options.nodes);
      // A saved cluster keeps its seed: only a scenario asked for by name is checked against it.
      const scenarioGiven = command.getOptionValueSource('scenario') !== 'default';
      const { createSim, parseApiserver, serverVersion } = await import('@kubemaint/kubesim');
      const apiVersion = options.apiVersion ?? 'v1.31.4';
      usable('--emulated-version', options.emulatedVersion ?? '', () =>
        serverVersion(apiVersion, options.emulatedVersion),
      );
      for (const extra of options.apiserver)
        usable('--apiserver', extra, () => parseApiserver(extra));
      const sim = await createSim({
        objects: kubemaintAccessObjects(),
        ...(scenarioGiven || options.state === false ? { scenario: options.scenario } : {}),
        ...(nodes === undefined ? {} : { nodes }),
        ...(options.state === false ? {} : { state: options.state }),
        ...(options.podsPerNode
          ? {
              podsPerNode: number(
                '--pods-per-node',
                options.podsPerNode,
                (n) => whole(n) && n <= 110,
                'a whole number 1..110',
              ),
            }
          : {}),
        port: number(
          '--port',
          options.port,
          (n) => Number.isInteger(n) && n >= 0 && n < 65536,
          'a port number',
        ),
        kubeconfigPath: options.kubeconfig,
        scale: number('--scale', options.scale, (n) => n > 0, 'a positive number'),
        ...(options.apiVersion ? { version: options.apiVersion } : {}),
        ...(options.emulatedVersion ? { emulatedVersion: options.emulatedVersion } : {}),
        ...(options.apiserver.length ? { apiservers: options.apiserver } : {}),
        images: withKubemaintImages(parseImages(options.image), { agent: false }),
        delays: {
          rebootDowntimeMs:
            number(
              '--reboot-downtime',
              options.rebootDowntime ?? '60',
              (n) => n > 0,
              'a positive number of seconds',
            ) * 1_000,
        },
        log: createLogger({ service: 'sim' }),
      });
      // kubemaint's own kinds, as `kubectl apply -k infra/k8s` installs them on a real cluster.
      const [{ bindDemoPeople, installKubemaintKinds }, { loadKubeConfig }] = await Promise.all([
        import('../../compose/sim-kinds.js'),
        import('../../adapters/kube/client.js'),
      ]);
      const admin = loadKubeConfig(sim.kubeconfigPath);
      await installKubemaintKinds(admin);
      await bindDemoPeople(admin);
      const stopped = stopSignal();
      process.stdout.write(`kubemaint sim ready: kubeconfig=${sim.kubeconfigPath}\n`);
      await stopped;
      await sim.stop();
    });
}

/** A version flag the sim takes, or a usage error naming the flag and the form it wants. */
function usable(flag: string, value: string, check: () => unknown): void {
  try {
    check();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new KubemaintError('usage', `${flag} ${JSON.stringify(value)}: ${error.message}`, {
      hint:
        flag === '--apiserver'
          ? 'e.g. --apiserver v1.33.2, or --apiserver v1.34.4@1.33 for one emulating 1.33'
          : 'e.g. --api-version v1.34.4 --emulated-version 1.33',
    });
  }
}

/** `--nodes` as a count the scenario takes, or a usage error saying why not. */
function nodeCount(scenario: ScenarioName, text: string): number {
  const n = text.trim() === '' ? Number.NaN : Number(text);
  const problem = Number.isNaN(n)
    ? `--nodes ${JSON.stringify(text)} is not a whole number`
    : nodesProblem(scenario, n);
  if (problem !== undefined) throw new KubemaintError('usage', problem);
  return n;
}
