/**
 * The slash command when one app serves several clusters (issue 22): the cluster goes in front of
 * what a verb acts on (`reboot prod-eu/node-7`, `approve prod-eu/r-7f3a9c`, `release
 * prod-eu/kubemaint-slot-0`), or alone where the verb acts on a whole cluster (`status prod-eu`,
 * `pause prod-eu incident 4711`). Left out, a request id or a node is looked up in every cluster
 * (command-listener.ts), and `status`, `windows`, `slots` and `scan` answer for each. Pure, like
 * parse-command.ts, which parses the rest.
 */
import {
  parseCommand,
  verbOf,
  type ParseResult,
  type SlackCommand,
  type Usage,
  type Verb,
} from './parse-command.js';

/** The grammar with clusters; `help` and usage errors quote it. */
export const CLUSTER_USAGE: Usage = {
  help: 'help',
  status: 'status [cluster | [cluster/]node]',
  scan: 'scan [cluster]',
  reboot: 'reboot [cluster/]<node> [reason]',
  upgrade: 'upgrade [cluster/]<node> [version]',
  approve: 'approve [cluster/]<request-id>',
  reject: 'reject [cluster/]<request-id> [reason]',
  cancel: 'cancel [cluster/]<request-id>',
  pause: 'pause <cluster> [reason]',
  resume: 'resume <cluster>',
  windows: 'windows [cluster]',
  slots: 'slots [cluster]',
  release: 'release <cluster>/<slot>',
};

/** Verbs whose first argument may be `<cluster>/<what it acts on>`. */
const TARGETED: ReadonlySet<Verb> = new Set([
  'status',
  'reboot',
  'upgrade',
  'approve',
  'reject',
  'cancel',
  'release',
]);
/** Verbs whose first argument may be a cluster's name alone. */
const WHOLE: ReadonlySet<Verb> = new Set(['status', 'scan', 'pause', 'resume', 'windows', 'slots']);
/** Verbs that change one cluster and guess none: pausing the wrong one is worse than a question. */
const NAMED: ReadonlySet<Verb> = new Set(['pause', 'resume', 'release']);

export type ClusterParse =
  Extract<ParseResult, { ok: false }> | { ok: true; command: SlackCommand; cluster?: string };

export function parseClusterCommand(
  text: string,
  slash: string,
  clusters: readonly string[],
): ClusterParse {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  const verb = verbOf(words[0] ?? '');
  const arg = words[1];
  let cluster: string | undefined;
  if (verb && arg !== undefined) {
    const at = arg.indexOf('/');
    if (at >= 0 && TARGETED.has(verb)) {
      cluster = arg.slice(0, at).toLowerCase();
      words[1] = arg.slice(at + 1);
    } else if (WHOLE.has(verb) && clusters.includes(arg.toLowerCase())) {
      cluster = arg.toLowerCase();
      words.splice(1, 1);
    }
  }
  const names = `the clusters: ${clusters.join(', ')}`;
  if (cluster !== undefined && !clusters.includes(cluster))
    return { ok: false, problem: `no cluster named \`${clip(cluster)}\``, hint: names };
  if (verb && cluster === undefined && NAMED.has(verb))
    return {
      ok: false,
      problem: `which cluster? \`${verb}\` acts on one`,
      hint: `usage: \`${slash} ${CLUSTER_USAGE[verb]}\`; ${names}`,
    };
  const parsed = parseCommand(words.join(' '), slash, CLUSTER_USAGE);
  return parsed.ok && cluster !== undefined ? { ...parsed, cluster } : parsed;
}

const clip = (text: string): string => (text.length > 64 ? `${text.slice(0, 61)}...` : text);
