/**
 * The slash command listener: parse, then answer. Usage errors, `help` and `windows` go out in the ack
 * itself; everything that reads the cluster acks at once and answers through `response_url` when the
 * work is done, so Slack's 3-second limit never depends on the cluster's speed.
 *
 * With several clusters a command names its cluster (parse-cluster.ts) or is answered for each
 * (`status`, `windows`, `slots`, `scan`), and a bare request id or node is looked up in every
 * cluster. Whichever cluster it lands in, that cluster's channels and approvers decide.
 */
import type { App, SlashCommand } from '@slack/bolt';
import { isRequestId } from '../../core/request-id.js';
import { listRequests } from '../../app/control/commands.js';
import { clusterDigest } from './cluster-digest.js';
import { guard } from './guard.js';
import { clusterHelpText } from './help.js';
import { escapeMrkdwn as esc, fitLines } from './mrkdwn.js';
import { parseClusterCommand, type ClusterParse } from './parse-cluster.js';
import { parseCommand, type SlackCommand } from './parse-command.js';
import { hasRequest } from './request-clicks.js';
import { holders, inSeveral, type Has } from './routes.js';
import { isInstant, runCommand, type Answer } from './run-command.js';
import { channelAllowed, channelList, type SlackRoutes, type SlackRuntime } from './runtime.js';

const ephemeral = (text: string) => ({ response_type: 'ephemeral' as const, text });

/** Verbs an approver decides; a refusal is recorded on the node like a refused click. */
const DECISIONS = new Set<SlackCommand['kind']>(['approve', 'reject']);
/** Verbs answered for each cluster when none is named. */
const EACH = new Set<SlackCommand['kind']>(['windows', 'slots', 'scan']);

export function registerCommand(app: App, routes: SlackRoutes): void {
  const slash = routes.command;
  app.command(slash, async ({ command, ack, respond }) => {
    const parsed: ClusterParse = routes.several
      ? parseClusterCommand(command.text, slash, routes.names)
      : parseCommand(command.text, slash);
    if (!parsed.ok) {
      await ack(ephemeral(`${esc(parsed.problem)}\n${esc(parsed.hint)}`));
      return;
    }
    const c = parsed.command;
    const named =
      parsed.cluster !== undefined
        ? routes.named(parsed.cluster)
        : routes.several
          ? undefined
          : routes.all[0];
    // Named (or the only one): that cluster's channels. Else: the clusters that answer here.
    const here = (named ? [named] : routes.all).filter((rt) =>
      channelAllowed(rt.settings, command.channel_id),
    );
    if (here.length === 0) {
      await ack(
        ephemeral(`kubemaint answers${whose(named)} in ${whereAll(named, routes)}; ask there`),
      );
      return;
    }
    const by = { kind: 'person' as const, id: command.user_id };
    if (isInstant(c)) {
      const text =
        c.kind === 'help' && routes.several
          ? clusterHelpText(slash, routes.names)
          : await forEach(here, routes, (rt) => runCommand(c, { deps: rt.deps, slash, by }));
      await ack(ephemeral(text));
      return;
    }
    await ack(c.kind === 'scan' ? ephemeral('scanning the fleet…') : undefined);
    routes.defer(async () => {
      try {
        await respond(ephemeral(await answer(routes, command, c, named, here)));
      } catch (error) {
        routes.log.error({ err: error, text: command.text }, 'slash command failed');
        await respond(
          ephemeral(`that failed: ${esc(String(error))}; try again, or check the logs`),
        );
      }
    });
  });
}

/** The answer to a command that reads a cluster, from the cluster it names or is found in. */
async function answer(
  routes: SlackRoutes,
  command: SlashCommand,
  c: SlackCommand,
  named: SlackRuntime | undefined,
  here: readonly SlackRuntime[],
): Promise<string> {
  if (named) return answerIn(named, routes, command, c);
  if (c.kind === 'status' && c.node === undefined) return clusterDigest(here, routes.command);
  if (EACH.has(c.kind)) return forEach(here, routes, (rt) => runIn(rt, routes, command, c));
  const target = targetOf(c);
  if (!target) return `\`${c.kind}\` needs a cluster: \`${routes.command} help\``;
  const found = await holders(routes, target.value, target.has);
  if (found.length > 1) return esc(inSeveral(target.value, found));
  if (found.length === 0)
    return esc(
      `no ${target.what} ${target.value} in any cluster (${routes.names.join(', ')}); ` +
        `${routes.command} status lists what is open`,
    );
  return answerIn(found[0]!, routes, command, c);
}

/** What a command without a cluster is looked up by: its request id, or its node. */
function targetOf(c: SlackCommand): { value: string; has: Has; what: string } | undefined {
  if ('id' in c) return { value: c.id, has: hasRequest, what: 'request' };
  if ('node' in c && c.node !== undefined) return { value: c.node, has: hasNode, what: 'node' };
  return undefined;
}

const hasNode: Has = async (rt, node) => (await rt.deps.cluster.getNode(node)) !== undefined;

/** One cluster's answer, after its channel rule (a bare id may land in a cluster not asked here). */
async function answerIn(
  rt: SlackRuntime,
  routes: SlackRoutes,
  command: SlashCommand,
  c: SlackCommand,
): Promise<string> {
  if (!channelAllowed(rt.settings, command.channel_id))
    return `kubemaint answers${whose(rt)} in ${channelList(rt.settings)}; ask there`;
  const { text } = await runIn(rt, routes, command, c);
  return rt.several ? `*${esc(rt.settings.cluster)}*: ${text}` : text;
}

async function runIn(
  rt: SlackRuntime,
  routes: SlackRoutes,
  command: SlashCommand,
  c: SlackCommand,
): Promise<Answer> {
  const person = await rt.people.person(command.user_id, command.team_id);
  if (DECISIONS.has(c.kind) && 'id' in c && isRequestId(c.id)) {
    const targets = (await listRequests(rt.deps)).filter((r) => r.id === c.id);
    const problem = await guard(rt, person, command.channel_id, targets, c.kind);
    if (problem) return { ok: false, text: esc(problem) };
  }
  return runCommand(c, {
    deps: rt.deps,
    slash: routes.command,
    by: person,
    ...(rt.scan ? { scan: rt.scan } : {}),
  });
}

/**
 * One answer per cluster, each under its name, a cluster that fails saying so beside the others;
 * one cluster's answer as it is.
 */
async function forEach(
  runtimes: readonly SlackRuntime[],
  routes: SlackRoutes,
  run: (rt: SlackRuntime) => Promise<Answer>,
): Promise<string> {
  if (!routes.several) return (await run(runtimes[0]!)).text;
  const answers = await Promise.all(
    runtimes.map(async (rt) => {
      const text = await run(rt).then(
        (a) => a.text,
        (error: unknown) => `:warning: unreachable: ${esc(String(error))}`,
      );
      return `*${esc(rt.settings.cluster)}*\n${text}`;
    }),
  );
  return fitLines(answers);
}

const whose = (rt: SlackRuntime | undefined): string =>
  rt?.several ? ` for ${esc(rt.settings.cluster)}` : '';

/** The channels a refused command may go to: the named cluster's, else every cluster's. */
function whereAll(named: SlackRuntime | undefined, routes: SlackRoutes): string {
  if (named) return channelList(named.settings);
  const all = new Set(routes.all.flatMap((rt) => rt.settings.allowedChannels));
  return [...all].map((c) => `<#${c}>`).join(', ');
}
