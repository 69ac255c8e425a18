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
import { findRequest, onRequestClick } from './request-clicks.js';
import type { SlackRuntime } from './runtime.js';

type Button = BlockAction<ButtonAction>;
export const SNOOZE_MS = 4 * 3_600_000;
export const SNOOZED_REASON = 'KubemaintSnoozed';

const DRAIN: readonly [string, DrainDecision, string][] = [
  [SLACK_ACTION.drainWait, 'wait', 'keep waiting'],
  [SLACK_ACTION.drainSkip, 'skip', 'skip this node'],
  [SLACK_ACTION.drainForce, 'force', 'force the remaining pods out'],
];

export function registerRequestActions(app: App, rt: SlackRuntime): void {
  const later = (click: Click, work: () => Promise<unknown>) =>
    rt.defer(async () => {
      try {
        await work();
      } catch (error) {
        rt.log.error({ err: error, action: click.actionId, value: click.value }, 'click failed');
        await tell(click, `that failed: ${esc(String(error))}; try again in a minute`);
      }
    });

  app.action<Button>(SLACK_ACTION.approve, async ({ ack, body, client, respond }) => {
    await ack();
    const click = readClick(body, respond);
    later(click, () =>
      onRequestClick(rt, client, click, 'approve', (r, by) => approveRequest(rt.deps, r.id, by)),
    );
  });

  app.action<Button>(SLACK_ACTION.snooze, async ({ ack, body, client, respond }) => {
    await ack();
    const click = readClick(body, respond);
    later(click, () =>
      onRequestClick(rt, client, click, 'snooze', async (request, by) => {
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
        const request = await onRequestClick(
          rt,
          client,
          click,
          `decide the drain (${decision})`,
          (r, by) => decideDrain(rt.deps, r.id, decision, by),
        );
        if (!request?.drainDecision || request.drainDecision.decision !== decision) return;
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
    let opened: Promise<void> = Promise.resolve();
    later(click, async () => {
      const request = await findRequest(rt, click.value);
      if (!request) return;
      const preview = await previewRequest(rt.deps, request.node, request);
      await opened;
      await client.views.update({
        external_id: externalId,
        view: { ...detailsModal(request, preview), external_id: externalId },
      });
    });
    opened = rt.inline(async () => {
      const request = await findRequest(rt, click.value);
      if (!request) return void (await tell(click, `request ${esc(click.value)} no longer exists`));
      await client.views.open({
        trigger_id: click.triggerId,
        view: { ...detailsModal(request), external_id: externalId },
      });
    });
    await opened;
  });
}
