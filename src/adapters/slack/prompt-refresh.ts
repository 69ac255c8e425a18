/**
 * After a click, the message that carried the button is edited in place to show what the cluster
 * says now (not what the click hoped for): the request prompt, the whole campaign, or, for a drain
 * question, the decision that was taken. A prompt whose request is gone is edited to say so, so a
 * stale button cannot be clicked again in the hope of acting.
 */
import type { webApi } from '@slack/bolt';
import { DateTime } from 'luxon';
import {
  campaignPrompt,
  requestPrompt,
  type PromptContext,
  type SlackMessage,
} from '../../../templates/slack/index.js';
import { listRequests } from '../../app/control/commands.js';
import { previewCampaign, previewRequest } from '../../app/control/preview.js';
import { windowFacts } from '../../app/control/facts.js';
import type { MaintenanceRequest } from '../../core/request.js';
import { SLACK_ACTION } from '../../../templates/slack/ids.js';
import { escapeMrkdwn as esc } from './mrkdwn.js';
import type { SlackRuntime } from './runtime.js';

export type MessageKind = 'campaign' | 'drain' | 'request';

/** Where the clicked button lives and what kind of message it is. */
export interface MessageRef {
  channel: string;
  ts: string;
  kind: MessageKind;
}

const CAMPAIGN_ACTIONS: readonly string[] = [
  SLACK_ACTION.campaignApprove,
  SLACK_ACTION.campaignApprovePool,
];
const DRAIN_ACTIONS: readonly string[] = [
  SLACK_ACTION.drainWait,
  SLACK_ACTION.drainSkip,
  SLACK_ACTION.drainForce,
];

/** Classify a message by the buttons it carries (a campaign prompt has campaign buttons, …). */
export function messageKind(blocks: unknown): MessageKind {
  const ids = new Set<string>();
  for (const block of Array.isArray(blocks) ? (blocks as { elements?: unknown }[]) : []) {
    for (const element of Array.isArray(block.elements)
      ? (block.elements as { action_id?: unknown }[])
      : [])
      if (typeof element.action_id === 'string') ids.add(element.action_id);
  }
  if ([...ids].some((id) => CAMPAIGN_ACTIONS.includes(id))) return 'campaign';
  if ([...ids].some((id) => DRAIN_ACTIONS.includes(id))) return 'drain';
  return 'request';
}

export function promptContext(rt: SlackRuntime, preview?: PromptContext['preview']): PromptContext {
  const { settings, clock } = rt.deps;
  const now = clock.now();
  const window = windowFacts(settings.schedule, now, settings.timeZone);
  return {
    cluster: settings.cluster,
    ...(rt.several ? { several: true } : {}),
    timeZone: settings.timeZone,
    now,
    ...(preview ? { preview } : {}),
    ...(window.nextOpening
      ? {
          nextWindow: DateTime.fromJSDate(window.nextOpening, { zone: settings.timeZone }).toFormat(
            'ccc d LLL HH:mm ZZZZ',
          ),
        }
      : {}),
  };
}

/** The prompt of one request; a proposal still waiting keeps its preview (pods, PDB headroom). */
export async function renderRequest(
  rt: SlackRuntime,
  request: MaintenanceRequest,
): Promise<SlackMessage> {
  const preview =
    request.state === 'proposed'
      ? await previewRequest(rt.deps, request.node, request).catch(() => undefined)
      : undefined;
  return requestPrompt(request, promptContext(rt, preview));
}

export async function renderCampaign(
  rt: SlackRuntime,
  campaign: string,
): Promise<SlackMessage | undefined> {
  const requests = (await listRequests(rt.deps)).filter((r) => r.campaign === campaign);
  if (requests.length === 0) return undefined;
  const preflight = await previewCampaign(
    (node, request) => previewRequest(rt.deps, node, request),
    requests,
  );
  return campaignPrompt(
    requests.sort((a, b) => a.node.localeCompare(b.node)),
    {
      ...promptContext(rt),
      preflight,
    },
  );
}

export const goneMessage = (id: string, slash: string): SlackMessage => {
  const text = `Request ${esc(id)} no longer exists: it ended and was replaced, or its node is gone. \`${esc(slash)} status\` shows what is open now.`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
};

export const decidedMessage = (text: string): SlackMessage => ({
  text,
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
});

/** Edit the message in place; a failed edit is logged, never thrown (the decision already stands). */
export async function updateMessage(
  rt: SlackRuntime,
  client: webApi.WebClient,
  where: { channel: string; ts: string },
  message: SlackMessage,
): Promise<void> {
  try {
    await client.chat.update({
      channel: where.channel,
      ts: where.ts,
      text: message.text,
      blocks: message.blocks,
    });
  } catch (error) {
    rt.log.warn(
      { err: error, channel: where.channel, ts: where.ts },
      'could not update the Slack prompt',
    );
  }
}

/** Re-render what the clicked message shows, from the cluster's current state. */
export async function refresh(
  rt: SlackRuntime,
  client: webApi.WebClient,
  where: MessageRef,
  request: MaintenanceRequest,
): Promise<void> {
  const message =
    where.kind === 'campaign' && request.campaign
      ? await renderCampaign(rt, request.campaign)
      : await renderRequest(rt, request);
  if (message) await updateMessage(rt, client, where, message);
}
