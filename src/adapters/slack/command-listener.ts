/**
 * The slash command listener: parse, then answer. Usage errors, `help` and `windows` go out in the ack
 * itself; everything that reads the cluster acks at once and answers through `response_url` when the
 * work is done, so Slack's 3-second limit never depends on the cluster's speed.
 */
import type { App } from '@slack/bolt';
import { isRequestId } from '../../core/request-id.js';
import { listRequests } from '../../app/control/commands.js';
import { guard } from './guard.js';
import { escapeMrkdwn as esc } from './mrkdwn.js';
import { parseCommand, type SlackCommand } from './parse-command.js';
import { isInstant, runCommand } from './run-command.js';
import { channelAllowed, type SlackRuntime } from './runtime.js';

const ephemeral = (text: string) => ({ response_type: 'ephemeral' as const, text });

/** Verbs an approver decides; a refusal is recorded on the node like a refused click. */
const DECISIONS = new Set<SlackCommand['kind']>(['approve', 'reject']);

export function registerCommand(app: App, rt: SlackRuntime): void {
  const slash = rt.settings.command;
  app.command(slash, async ({ command, ack, respond }) => {
    const parsed = parseCommand(command.text, slash);
    if (!parsed.ok) {
      await ack(ephemeral(`${esc(parsed.problem)}\n${esc(parsed.hint)}`));
      return;
    }
    if (!channelAllowed(rt.settings, command.channel_id)) {
      const where = rt.settings.allowedChannels.map((c) => `<#${c}>`).join(', ');
      await ack(ephemeral(`kubemaint answers in ${where}; ask there`));
      return;
    }
    const by = { kind: 'person' as const, id: command.user_id };
    if (isInstant(parsed.command)) {
      const answer = await runCommand(parsed.command, { deps: rt.deps, slash, by });
      await ack(ephemeral(answer.text));
      return;
    }
    await ack(parsed.command.kind === 'scan' ? ephemeral('scanning the fleet…') : undefined);
    rt.defer(async () => {
      try {
        const person = await rt.people.person(command.user_id, command.team_id);
        const c = parsed.command;
        if (DECISIONS.has(c.kind) && 'id' in c && isRequestId(c.id)) {
          const targets = (await listRequests(rt.deps)).filter((r) => r.id === c.id);
          const problem = await guard(rt, person, command.channel_id, targets, c.kind);
          if (problem) return void (await respond(ephemeral(esc(problem))));
        }
        const answer = await runCommand(c, {
          deps: rt.deps,
          slash,
          by: person,
          ...(rt.scan ? { scan: rt.scan } : {}),
        });
        await respond(ephemeral(answer.text));
      } catch (error) {
        rt.log.error({ err: error, text: command.text }, 'slash command failed');
        await respond(
          ephemeral(`that failed: ${esc(String(error))}; try again, or check the logs`),
        );
      }
    });
  });
}
