/**
 * "Approve all" and "Approve pool X" on a campaign prompt: approve each waiting request of the
 * campaign (of that pool), each in its own request queue and through the same use case as a single
 * approval, then re-render the campaign prompt once. One person's refusal is recorded on every node
 * it aimed at.
 */
import type { App, BlockAction, ButtonAction, webApi } from '@slack/bolt';
import { approveRequest, listRequests } from '../../app/control/commands.js';
import { readClick, tell, type Click } from './clicks.js';
import { guard } from './guard.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { escapeMrkdwn as esc, fitLines } from './mrkdwn.js';
import { renderCampaign, updateMessage, goneMessage } from './prompt-refresh.js';
import { routeClick } from './request-clicks.js';
import type { Has } from './routes.js';
import type { SlackRoutes, SlackRuntime } from './runtime.js';

type Button = BlockAction<ButtonAction>;

/** `<campaign>` or `<campaign>/<pool>` (pool labels may not contain `/`, campaign ids never do). */
export function readCampaignValue(value: string): { campaign: string; pool?: string } {
  const slash = value.indexOf('/');
  return slash < 0
    ? { campaign: value }
    : { campaign: value.slice(0, slash), pool: value.slice(slash + 1) };
}

/** Whether the cluster has requests of the campaign a value (`<campaign>[/<pool>]`) names. */
export const hasCampaign: Has = async (rt, value) => {
  const { campaign } = readCampaignValue(value);
  return (await listRequests(rt.deps)).some((r) => r.campaign === campaign);
};

export async function approveCampaign(
  routes: SlackRoutes,
  client: webApi.WebClient,
  clicked: Click,
): Promise<void> {
  const routed = await routeClick(routes, clicked, hasCampaign);
  if (routed) await approveIn(routed.rt, client, routed.click);
}

async function approveIn(rt: SlackRuntime, client: webApi.WebClient, click: Click): Promise<void> {
  const { campaign, pool } = readCampaignValue(click.value);
  const all = (await listRequests(rt.deps)).filter((r) => r.campaign === campaign);
  if (all.length === 0) {
    if (click.message)
      await updateMessage(rt, client, click.message, goneMessage(campaign, rt.settings.command));
    return tell(click, `campaign ${esc(campaign)} has no requests any more; nothing was done`);
  }
  const targets = all.filter(
    (r) => r.state === 'proposed' && (pool === undefined || r.pool === pool),
  );
  const person = await rt.people.person(click.user, click.team);
  const verb = pool === undefined ? 'approve the campaign' : `approve pool ${pool}`;
  const problem = await guard(rt, person, click.channel, targets, verb);
  if (problem) return tell(click, `you cannot ${verb}: ${esc(problem)}`);
  const lines: string[] = [];
  for (const target of targets) {
    const result = await rt.serial(target.id, () => approveRequest(rt.deps, target.id, person));
    if (!result.ok) lines.push(esc(result.message));
  }
  const done = targets.length - lines.length;
  await tell(
    click,
    fitLines([
      targets.length === 0
        ? 'no request of this campaign waits for an approval; nothing was done'
        : `${done} of ${targets.length} approved${pool === undefined ? '' : ` in pool ${esc(pool)}`}`,
      ...lines,
    ]),
  );
  const message = await renderCampaign(rt, campaign);
  if (click.message && message) await updateMessage(rt, client, click.message, message);
}

export function registerCampaignActions(app: App, routes: SlackRoutes): void {
  for (const actionId of [SLACK_ACTION.campaignApprove, SLACK_ACTION.campaignApprovePool]) {
    app.action<Button>(actionId, async ({ ack, body, client, respond }) => {
      await ack();
      const click = readClick(body, respond);
      routes.defer(async () => {
        try {
          await approveCampaign(routes, client, click);
        } catch (error) {
          routes.log.error({ err: error, value: click.value }, 'campaign approval failed');
          await tell(click, `that failed: ${esc(String(error))}; try again in a minute`);
        }
      });
    });
  }
}
