/**
 * `kubemaint sim --attach KUBECONFIG`: the sim's kubelets, hosts and jobs runner join the apiserver of
 * that kubeconfig as N simulated nodes, until SIGINT/SIGTERM. Prints exactly one line on stdout,
 * `kubemaint sim attached: nodes=N kubeconfig=PATH host=URL`, once every node is registered and Ready.
 * Stopping ends heartbeats and local processes and leaves the nodes behind (they go NotReady, as a lost
 * machine's would) unless `--cleanup` deletes them.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { KubemaintError } from '../../errors.js';
import { parseGoDuration } from '../../core/graceful-shutdown.js';
import { createLogger } from '../../log.js';
import { KUBELET_VERSION } from '@kubemaint/kubesim/names';
import type { SimOptions } from './sim.js';
import { number, parseImages, parseLabels } from './sim-options.js';
import { withKubemaintImages } from '../../compose/sim-host.js';
import { stopSignal } from '../../compose/stop-signal.js';

export const ATTACH_HELP =
  'Attach mode (--attach KUBECONFIG): N simulated nodes join that apiserver, kwok-style, and its real\n' +
  'controller-manager and scheduler do the rest. Each kubelet registers its Node, renews its Lease in\n' +
  'kube-node-lease, posts node status and runs the pods bound to it (mapped --image pods as local\n' +
  'processes, given a token the kubelet minted for the pod, never the admin credentials). It acts as\n' +
  'system:node:<name> in group system:nodes through impersonation, so the Node authorizer and\n' +
  'NodeRestriction judge what it writes: the kubeconfig needs the `impersonate` verb on users and\n' +
  'groups, and `list` and `watch` on pods in all namespaces, as the fleet reads its pods through one\n' +
  'watch as the kubeconfig itself (a cluster admin has both). Reboots and upgrades go through the\n' +
  'host endpoint printed as host=URL (KUBEMAINT_SIM_HOST_URL of the pods, `kubemaint-sim-host`). A\n' +
  "pod's process finds its service-account token, ca.crt and namespace in\n" +
  "$KUBEMAINT_SIM_SERVICEACCOUNT_DIR and, with --hosts-dir, its node's file system in\n" +
  '$KUBEMAINT_SIM_HOST_ROOT (e.g. var/run/reboot-required). Its ConfigMap, Secret and emptyDir\n' +
  "volumes are copied to a folder of the pod's, and an env value that is a path under their mount\n" +
  "names the copy (KUBEMAINT_CONFIG of the chart's serve pod). Example:\n" +
  '  kubemaint sim --attach .kubemaint/real-cluster/admin.kubeconfig --nodes 3\n' +
  'With --hosts-dir, the agent image (kubemaint-agent:*) runs the real reporter agent too\n' +
  '(bin/kubemaint-sim-agent, in a checkout).';

/** Options that only mean something for the embedded sim, and the ones only for attach mode. */
const EMBEDDED_ONLY = [
  'scenario',
  'podsPerNode',
  'port',
  'kubeconfig',
  'apiVersion',
  'emulatedVersion',
  'apiserver',
  'state',
];
const ATTACH_ONLY = [
  'namePrefix',
  'label',
  'kubeletVersion',
  'maxPods',
  'hostPort',
  'hostsDir',
  'cleanup',
  'shutdownGracePeriod',
  'shutdownGracePeriodCriticalPods',
];

const flag = (name: string): string => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

const given = (command: Command, names: readonly string[]): string[] =>
  names.filter((name) => command.getOptionValueSource(name) === 'cli').map(flag);

export function refuseAttachOptions(command: Command): void {
  const stray = given(command, ATTACH_ONLY);
  if (stray.length > 0) {
    throw new KubemaintError('usage', `${stray.join(', ')} only make sense with --attach`);
  }
}

/** --shutdown-grace-period and its critical-pods share, checked as the kubelet's config takes them. */
function gracefulShutdownOf(
  options: Pick<SimOptions, 'shutdownGracePeriod' | 'shutdownGracePeriodCriticalPods'>,
): { shutdownGracePeriod: string; shutdownGracePeriodCriticalPods: string } | undefined {
  const period = options.shutdownGracePeriod;
  const critical = options.shutdownGracePeriodCriticalPods;
  if (period === undefined && critical === undefined) return undefined;
  for (const [name, value] of [
    ['--shutdown-grace-period', period],
    ['--shutdown-grace-period-critical-pods', critical],
  ] as const) {
    if (value !== undefined && parseGoDuration(value) === undefined)
      throw new KubemaintError(
        'usage',
        `${name} ${JSON.stringify(value)} is not a duration as the kubelet config takes it (20s, 1m30s, 0s)`,
      );
  }
  return { shutdownGracePeriod: period ?? '0s', shutdownGracePeriodCriticalPods: critical ?? '0s' };
}

export async function runAttach(options: SimOptions, command: Command): Promise<void> {
  const stray = given(command, EMBEDDED_ONLY);
  if (stray.length > 0) {
    throw new KubemaintError('usage', `${stray.join(', ')} do not apply with --attach`);
  }
  const whole = (n: number) => Number.isInteger(n) && n >= 1;
  const nodes = number('--nodes', options.nodes ?? '3', whole, 'a positive whole number');
  const prefix = options.namePrefix ?? 'sim-node-';
  if (!/^[a-z0-9]([-a-z0-9.]*[-a-z0-9.])?$/.test(prefix) || prefix.length > 200) {
    throw new KubemaintError(
      'usage',
      `--name-prefix ${JSON.stringify(prefix)} does not make valid node names (lower-case letters, digits, '-', '.')`,
    );
  }
  if (options.kubeletVersion !== undefined && !KUBELET_VERSION.test(options.kubeletVersion)) {
    throw new KubemaintError(
      'usage',
      `--kubelet-version ${JSON.stringify(options.kubeletVersion)} is not a version like v1.34.4`,
    );
  }
  const maxPods = number('--max-pods', options.maxPods ?? '110', whole, 'a positive whole number');
  const port = (n: number) => Number.isInteger(n) && n >= 0 && n < 65536;
  const hostPort = number('--host-port', options.hostPort ?? '0', port, 'a port number');
  const downtime = number(
    '--reboot-downtime',
    options.rebootDowntime ?? '60',
    (n) => n > 0,
    'a positive number of seconds',
  );
  const scale = number('--scale', options.scale, (n) => n > 0, 'a positive number');
  const images = withKubemaintImages(parseImages(options.image), {
    agent: options.hostsDir !== undefined,
  });
  const labels = parseLabels(options.label);
  const gracefulShutdown = gracefulShutdownOf(options);
  const kubeconfig = resolve(options.attach ?? '');
  const { attachSim } = await import('@kubemaint/kubesim/attach');
  const attached = await attachSim({
    kubeconfig,
    nodes,
    prefix,
    labels,
    maxPods,
    ...(options.kubeletVersion ? { kubeletVersion: options.kubeletVersion } : {}),
    images,
    scale,
    hostPort,
    ...(options.hostsDir ? { hostsDir: resolve(options.hostsDir) } : {}),
    delays: { rebootDowntimeMs: downtime * 1_000 },
    ...(gracefulShutdown ? { gracefulShutdown } : {}),
    log: createLogger({ service: 'sim-attach' }),
  });
  const stopped = stopSignal();
  const configz = Object.entries(attached.configz).map(([node, c]) => `${node}=${c.url}`);
  process.stdout.write(
    `kubemaint sim attached: nodes=${nodes} kubeconfig=${kubeconfig} host=${attached.hostUrl}${configz.length ? ` configz=${configz.join(',')}` : ''}\n`,
  );
  await stopped;
  await attached.stop({ cleanup: options.cleanup ?? false });
}
