/**
 * Listeners for the buttons of one request: Approve, Snooze, Details, and the three answers to a
 * stalled drain. Each acks first (Slack wants it within 3 s); the work continues through `defer`.
 * Details is the exception that works before deferring: a modal needs the click's trigger, which
 * expires 3 s after the click, so the modal opens at once and fills in the preview afterwards.
 */
import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { DateTime } from 'luxon';
import { detailsModal } from '../../../templates/slack/index.js';
import { approveRequest, decideDrain } from '../../app/control/commands.js';
import { previewRequest } from '../../app/control/preview.js';
import type { DrainDecision } from '../../core/request.js';
import { readClick, tell, type Click } from './clicks.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { escapeMrkdwn as esc } from './mrkdwn.js';
import { decidedMessage, refresh, updateMessage } from './prompt-refresh.js';
import { findRequest, hasRequest, onRequestClick, routeClick } from './request-clicks.js';
import { channelAllowed, channelList, type SlackRoutes } from './runtime.js';

type Button = BlockAction<ButtonAction>;
export const SNOOZE_MS = 4 * 3_600_000;
export const SNOOZED_REASON = 'KubemaintSnoozed';

const DRAIN: readonly [string, DrainDecision, string][] = [
  [SLACK_ACTION.drainWait, 'wait', 'keep waiting'],
  [SLACK_ACTION.drainSkip, 'skip', 'skip this node'],
  [SLACK_ACTION.drainForce, 'force', 'force the remaining pods out'],
];

export function registerRequestActions(app: App, routes: SlackRoutes): void {
  const later = (click: Click, work: () => Promise<unknown>) =>
    routes.defer(async () => {
      try {
        await work();
      } catch (error) {
        routes.log.error(
          { err: error, action: click.actionId, value: click.value },
          'click failed',
        );
        await tell(click, `that failed: ${esc(String(error))}; try again in a minute`);
      }
    });

  app.action<Button>(SLACK_ACTION.approve, async ({ ack, body, client, respond }) => {
    await ack();
    const click = readClick(body, respond);
    later(click, () =>
      onRequestClick(routes, client, click, 'approve', (rt, r, by) =>
        approveRequest(rt.deps, r.id, by),
      ),
    );
  });

  app.action<Button>(SLACK_ACTION.snooze, async ({ ack, body, client, respond }) => {
    await ack();
    const click = readClick(body, respond);
    later(click, () =>
      onRequestClick(routes, client, click, 'snooze', async (rt, request, by) => {
        if (request.state !== 'proposed')
          return {
            ok: false,
            message: `request ${request.id} is ${request.state}; only proposals snooze`,
          };
        const { settings, clock } = rt.deps;
        const until = DateTime.fromJSDate(clock.now(), { zone: settings.timeZone })
          .plus({ milliseconds: rt.settings.snoozeMs ?? SNOOZE_MS })
          .toFormat('ccc d LLL HH:mm ZZZZ');
        const text = `snoozed until ${until} by <@${by.id}>; it stays proposed`;
        await rt.deps.cluster.recordEvent(request.node, {
          reason: SNOOZED_REASON,
          message: `${request.id}: snoozed until ${until} by ${by.id}`,
        });
        if (click.channel && click.threadTs)
          await client.chat.postMessage({
            channel: click.channel,
            thread_ts: click.threadTs,
            text,
          });
        return { ok: true, message: text, request };
      }),
    );
  });

  for (const [actionId, decision, words] of DRAIN) {
    app.action<Button>(actionId, async ({ ack, body, client, respond }) => {
      await ack();
      const click = readClick(body, respond);
      later(click, async () => {
        const { rt, request } =
          (await onRequestClick(
            routes,
            client,
            click,
            `decide the drain (${decision})`,
            (rt, r, by) => decideDrain(rt.deps, r.id, decision, by),
          )) ?? {};
        if (!rt || !request?.drainDecision || request.drainDecision.decision !== decision) return;
        // The question is answered: it shows the decision instead of buttons; the prompt shows the state.
        if (click.message)
          await updateMessage(
            rt,
            client,
            click.message,
            decidedMessage(
              `<@${request.drainDecision.by}> decided to ${words} for ${esc(request.node)} (request ${request.id}).`,
            ),
          );
        if (request.slack)
          await refresh(
            rt,
            client,
            { ...request.slack, kind: request.campaign ? 'campaign' : 'request' },
            request,
          );
      });
    });
  }

  app.action<Button>(SLACK_ACTION.details, async ({ ack, body, client, respond }) => {
    await ack();
    const click = readClick(body, respond);
    // The modal is found again by external_id, so the preview can be filled in by work that runs
    // elsewhere (the Lambda's deferred invocation replays this listener; its trigger has expired).
    const externalId = `kubemaint-details-${click.triggerId}`.slice(0, 255);
    // Details decides nothing, so it needs no approver; it still shows only what the channel may see.
    const shown = async () => {
      const routed = await routeClick(routes, click, hasRequest);
      if (!routed) return undefined;
      const { rt } = routed;
      if (!channelAllowed(rt.settings, click.channel)) {
        await tell(
          click,
          `kubemaint shows ${esc(rt.settings.cluster)} only in ${channelList(rt.settings)}`,
        );
        return undefined;
      }
      const request = await findRequest(rt, routed.click.value);
      if (!request) await tell(click, `request ${esc(routed.click.value)} no longer exists`);
      return request && { rt, request };
    };
    // Looked up once for both: the modal that opens now and the preview filled in later.
    let lookup: ReturnType<typeof shown> | undefined;
    const once = () => (lookup ??= shown());
    let opened: Promise<void> = Promise.resolve();
    later(click, async () => {
      const found = await once();
      if (!found) return;
      const { rt, request } = found;
      const preview = await previewRequest(rt.deps, request.node, request);
      await opened;
      await client.views.update({
        external_id: externalId,
        view: { ...detailsModal(request, preview), external_id: externalId },
      });
    });
    opened = routes.inline(async () => {
      const request = (await once())?.request;
      if (!request) return;
      await client.views.open({
        trigger_id: click.triggerId,
        view: { ...detailsModal(request), external_id: externalId },
      });
    });
    await opened;
  });
}
