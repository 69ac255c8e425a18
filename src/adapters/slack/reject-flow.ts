/**
 * Reject asks for a reason: the button opens the reject modal (at once: the click's trigger expires
 * after 3 s), and its submission rejects the request, or every waiting request of a campaign. The
 * modal's `private_metadata` carries the target, its cluster and the message to edit afterwards;
 * the submission is checked again against that cluster's channels and approvers.
 */
import type { App, BlockAction, ButtonAction, webApi } from '@slack/bolt';
import { rejectModal } from '../../../templates/slack/index.js';
import { listRequests, rejectRequest } from '../../app/control/commands.js';
import type { Person } from '../../core/approval.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { isRequestId } from '../../core/request-id.js';
import { hasCampaign } from './campaign-actions.js';
import { readClick, tell } from './clicks.js';
import { recordRefusal, refusal } from './guard.js';
import { REJECT_REASON, SLACK_ACTION, SLACK_VIEW } from '../../../templates/slack/ids.js';
import { escapeMrkdwn as esc, fitLines } from './mrkdwn.js';
import { refresh, type MessageKind } from './prompt-refresh.js';
import { findRequest, hasRequest, routeClick } from './request-clicks.js';
import { routeValue, type Has } from './routes.js';
import type { SlackRoutes, SlackRuntime } from './runtime.js';

export interface RejectTarget {
  /** Set when the app serves several clusters. */
  cluster?: string;
  requestId?: string;
  campaign?: string;
  channel?: string;
  ts?: string;
  kind?: MessageKind;
}

/** The requests a reject aims at: the one request, or the campaign's not yet running ones. */
async function targetsOf(rt: SlackRuntime, target: RejectTarget): Promise<MaintenanceRequest[]> {
  const all = await listRequests(rt.deps);
  if (target.requestId) return all.filter((r) => r.id === target.requestId);
  return all.filter(
    (r) => r.campaign === target.campaign && (r.state === 'proposed' || r.state === 'approved'),
  );
}

export function readRejectTarget(metadata: string): RejectTarget {
  try {
    const parsed = JSON.parse(metadata) as Record<string, unknown>;
    const text = (key: string) => (typeof parsed[key] === 'string' ? { [key]: parsed[key] } : {});
    return {
      ...text('cluster'),
      ...text('requestId'),
      ...text('campaign'),
      ...text('channel'),
      ...text('ts'),
      ...text('kind'),
    };
  } catch {
    return {};
  }
}

async function rejectTargets(
  rt: SlackRuntime,
  client: webApi.WebClient,
  target: RejectTarget,
  person: Person,
  reason: string | undefined,
): Promise<void> {
  const targets = await targetsOf(rt, target);
  const problems: string[] = [];
  for (const t of targets) {
    const result = await rt.serial(t.id, () => rejectRequest(rt.deps, t.id, person, reason));
    if (!result.ok) problems.push(esc(result.message));
  }
  if (targets.length === 0) problems.push('nothing to reject: the request ended or was replaced');
  if (target.channel && problems.length > 0)
    await client.chat.postEphemeral({
      channel: target.channel,
      user: person.id,
      text: fitLines(problems),
    });
  const first = targets[0] ? await findRequest(rt, targets[0].id) : undefined;
  if (target.channel && target.ts && first) {
    const where = { channel: target.channel, ts: target.ts, kind: target.kind ?? 'request' };
    await refresh(rt, client, where, first);
  }
}

/** A request's id or a campaign's, whichever the value is. */
const hasTarget: Has = (rt, value) =>
  isRequestId(value) ? hasRequest(rt, value) : hasCampaign(rt, value);

/** The cluster a submitted modal names (or, without one, the one that has its target). */
async function targetRuntime(
  routes: SlackRoutes,
  target: RejectTarget,
): Promise<SlackRuntime | { problem: string }> {
  const id = target.requestId ?? target.campaign ?? '';
  const routed = await routeValue(
    routes,
    target.cluster === undefined ? id : `${target.cluster}/${id}`,
    hasTarget,
  );
  return 'problem' in routed ? routed : routed.rt;
}

export function registerRejectFlow(app: App, routes: SlackRoutes): void {
  app.action<BlockAction<ButtonAction>>(
    SLACK_ACTION.reject,
    async ({ ack, body, client, respond }) => {
      await ack();
      const clicked = readClick(body, respond);
      await routes.inline(async () => {
        const routed = await routeClick(routes, clicked, hasTarget);
        if (!routed) return;
        const { rt, click } = routed;
        const person = await rt.people.person(click.user, click.team);
        const target: RejectTarget = {
          ...(routes.several ? { cluster: rt.settings.cluster } : {}),
          ...(isRequestId(click.value) ? { requestId: click.value } : { campaign: click.value }),
        };
        const problem = refusal(rt, person, click.channel);
        if (problem) {
          routes.defer(async () => {
            await recordRefusal(rt, await targetsOf(rt, target), person, 'reject', problem);
            await tell(click, `you cannot reject this: ${esc(problem)}`);
          });
          return;
        }
        const view = rejectModal(target);
        view.private_metadata = JSON.stringify({ ...target, ...(click.message ?? {}) });
        await client.views.open({ trigger_id: click.triggerId, view });
      });
    },
  );

  app.view(SLACK_VIEW.reject, async ({ ack, body, view, client }) => {
    const target = readRejectTarget(view.private_metadata);
    const input = view.state.values[REJECT_REASON.block]?.[REJECT_REASON.action]?.value;
    const reason = input?.trim() || undefined;
    const rt = await targetRuntime(routes, target);
    if ('problem' in rt) {
      await ack({
        response_action: 'errors',
        errors: { [REJECT_REASON.block]: rt.problem.slice(0, 150) },
      });
      return;
    }
    const person = await rt.people.person(body.user.id, body.team?.id);
    const problem = refusal(rt, person, target.channel);
    if (problem) {
      await ack({
        response_action: 'errors',
        errors: { [REJECT_REASON.block]: problem.slice(0, 150) },
      });
      routes.defer(async () =>
        recordRefusal(rt, await targetsOf(rt, target), person, 'reject', problem),
      );
      return;
    }
    await ack();
    routes.defer(async () => {
      try {
        await rejectTargets(rt, client, target, person, reason);
      } catch (error) {
        rt.log.error({ err: error, target }, 'reject failed');
      }
    });
  });
}
