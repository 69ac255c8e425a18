/**
 * `/maint help`: teaches by example. Each line is a command someone would really type, with what it
 * does, so the answer doubles as the reference for the grammar in DESIGN §3.
 */
import { escapeMrkdwn } from './mrkdwn.js';
import { CLUSTER_USAGE } from './parse-cluster.js';
import { USAGE, type Verb } from './parse-command.js';

const EXAMPLES: Record<Verb, { example: string; does: string }> = {
  help: { example: 'help', does: 'this list' },
  status: {
    example: 'status ip-10-0-1-15',
    does: 'one node’s request, or every open request without a node',
  },
  scan: { example: 'scan', does: 'look for nodes that need a reboot or a kubelet upgrade now' },
  reboot: {
    example: 'reboot ip-10-0-1-15 kernel CVE-2024-1086',
    does: 'propose a reboot (it still needs an approval)',
  },
  upgrade: {
    example: 'upgrade ip-10-0-1-15 v1.31.4',
    does: 'propose a kubelet upgrade (one minor at a time; no version: towards the apiserver)',
  },
  approve: { example: 'approve r-7f3a9c', does: 'approve a request (approvers only)' },
  reject: { example: 'reject r-7f3a9c not during the sale', does: 'turn a request down' },
  cancel: { example: 'cancel r-7f3a9c', does: 'stop a request before its host command runs' },
  pause: { example: 'pause incident 4711', does: 'start nothing new until resumed' },
  resume: { example: 'resume', does: 'lift the pause' },
  windows: { example: 'windows', does: 'the maintenance windows and freezes' },
  slots: { example: 'slots', does: 'who holds the concurrency slots' },
  release: {
    example: 'release kubemaint-slot-0',
    does: 'free a slot whose holder is gone (refused while its request runs)',
  },
};

export function helpText(slash: string, cluster: string): string {
  const lines = (Object.keys(USAGE) as Verb[]).map(
    (verb) => `\`${slash} ${EXAMPLES[verb].example}\` — ${EXAMPLES[verb].does}`,
  );
  return [
    `*kubemaint* keeps *${escapeMrkdwn(cluster)}* patched. For example:`,
    ...lines,
    `Grammar: ${(Object.values(USAGE) as string[]).map((u) => `\`${escapeMrkdwn(u)}\``).join(' · ')}`,
  ].join('\n');
}

/** With several clusters, the examples that differ: each names the cluster `c` it acts in. */
const clusterExamples = (c: string): Partial<Record<Verb, { example: string; does: string }>> => ({
  status: {
    example: 'status',
    does: `every cluster: paused or not, its open requests, which cluster is unreachable; \`status ${c}\` one cluster, \`status ${c}/ip-10-0-1-15\` one node`,
  },
  scan: {
    example: `scan ${c}`,
    does: 'look for nodes that need maintenance now (no cluster: in each)',
  },
  reboot: {
    example: `reboot ${c}/ip-10-0-1-15 kernel CVE-2024-1086`,
    does: 'propose a reboot in that cluster (it still needs an approval there)',
  },
  upgrade: {
    example: `upgrade ${c}/ip-10-0-1-15 v1.31.4`,
    does: 'propose a kubelet upgrade (one minor at a time; no version: towards the apiserver)',
  },
  approve: {
    example: `approve ${c}/r-7f3a9c`,
    does: 'approve a request (that cluster’s approvers only); a bare id works when one cluster has it',
  },
  reject: { example: `reject ${c}/r-7f3a9c not during the sale`, does: 'turn a request down' },
  cancel: { example: `cancel ${c}/r-7f3a9c`, does: 'stop a request before its host command runs' },
  pause: {
    example: `pause ${c} incident 4711`,
    does: 'start nothing new in that cluster until resumed',
  },
  resume: { example: `resume ${c}`, does: 'lift that cluster’s pause' },
  windows: { example: 'windows', does: 'each cluster’s maintenance windows and freezes' },
  slots: { example: `slots ${c}`, does: 'who holds the concurrency slots (no cluster: in each)' },
  release: {
    example: `release ${c}/kubemaint-slot-0`,
    does: 'free a slot whose holder is gone (refused while its request runs)',
  },
});

/** `/maint help` when the app serves several clusters: the same verbs, each naming a cluster. */
export function clusterHelpText(slash: string, clusters: readonly string[]): string {
  const own = clusterExamples(clusters[0] ?? 'prod-eu');
  const lines = (Object.keys(CLUSTER_USAGE) as Verb[]).map((verb) => {
    const { example, does } = own[verb] ?? EXAMPLES[verb];
    return `\`${slash} ${escapeMrkdwn(example)}\` — ${does}`;
  });
  return [
    `*kubemaint* keeps *${clusters.map(escapeMrkdwn).join(', ')}* patched. Name the cluster in front of a node, a request or a slot (\`cluster/…\`). For example:`,
    ...lines,
    `Grammar: ${Object.values<string>(CLUSTER_USAGE)
      .map((u) => `\`${escapeMrkdwn(u)}\``)
      .join(' · ')}`,
  ].join('\n');
}
