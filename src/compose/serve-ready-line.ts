/**
 * What `kubemaint serve` prints once it has started: the ready line (tests and scripts wait for it,
 * and read the ports from it), each listed cluster's kubeconfig, and with the embedded demo cluster
 * what to type in another terminal.
 */
import type { ClusterLoop } from './cluster-loop.js';
import type { ClusterSet } from './clusters.js';
import { everywhere } from './slack-serve.js';

export function readyLine(served: {
  clusters: ClusterSet;
  loops: readonly ClusterLoop[];
  opsUrl: string;
  opsHost: string;
  statusUrl?: string;
  slack: string | undefined;
  /** How the demo's commands are typed here. */
  cli: string;
}): string {
  const { clusters, loops, statusUrl } = served;
  const status = statusUrl ? ` status=${statusUrl}` : '';
  const slack = served.slack ? ` slack=${served.slack}` : '';
  const ops = `ops=${served.opsUrl}${everywhere(served.opsHost)}`;
  const election = loops[0]?.leadership.description;
  if (clusters.several) {
    const each = clusters.runtimes.map((r) => r.connection.kubeconfigPath);
    return (
      `kubemaint serve ready: clusters=${clusters.names.join(',')} ${ops}${status}${slack}` +
      `${election ? ` ${election} in each cluster` : ''}\n` +
      clusters.runtimes
        .map((r, i) => (each[i] ? `  cluster ${r.name}: kubeconfig=${each[i]}\n` : ''))
        .join('')
    );
  }
  const { connection, deps } = clusters.runtimes[0]!;
  const kubeconfig = connection.kubeconfigPath;
  return (
    `kubemaint serve ready: cluster=${deps.settings.cluster}` +
    `${kubeconfig ? ` kubeconfig=${kubeconfig}` : ''} ${ops}${status}${slack}` +
    `${election ? ` ${election}` : ''}\n` +
    (connection.sim ? demoHelp(kubeconfig ?? '', statusUrl, served.cli) : '')
  );
}

const demoHelp = (kubeconfig: string, statusUrl: string | undefined, cli: string): string =>
  '\nThe embedded demo cluster is running. In another terminal, in this folder:\n' +
  `  ${`${cli} status`.padEnd(38)}what is proposed, and why\n` +
  `  ${`${cli} approve <request id>`.padEnd(38)}approve one; watch it drain, reboot and come back here\n` +
  `  kubectl --kubeconfig ${kubeconfig} get nodes -L kubemaint.io/state\n` +
  (statusUrl ? `The maintenance timeline, live: open ${statusUrl} in a browser.\n` : '') +
  'Stop with Ctrl-C.\n\n';
