/**
 * The approval prompt of one request, rendered for every state it moves through: the same message is
 * edited in place, so the channel always shows where each request stands. Active states carry the
 * preview and buttons; a final state is plain (no buttons, no stale preview), so an old prompt cannot
 * be clicked into acting.
 */
import { SLACK_ACTION, clusterValue } from './ids.js';
import { isActive, type MaintenanceRequest } from '../../src/core/request.js';
import { actions, button, capBlocks, context, divider, header, section } from './blocks.js';
import { LIMITS, clip, code, esc } from './mrkdwn.js';
import {
  blockers,
  drainProgress,
  failure,
  gracefulShutdown,
  pods,
  skew,
  whatAndWhy,
  windowLine,
} from './sections.js';
import { stateLabel, stateLine } from './state.js';
import type { KnownBlock, PromptContext, SlackMessage } from './types.js';

/** "Reboot node-2" or "Kubelet upgrade node-3 → v1.31.4": plain text for headers and fallbacks. */
export function title(request: MaintenanceRequest): string {
  return request.action === 'reboot'
    ? `Reboot ${request.node}`
    : `Kubelet upgrade ${request.node}${request.targetVersion ? ` → ${request.targetVersion}` : ''}`;
}

export function requestPrompt(request: MaintenanceRequest, ctx: PromptContext): SlackMessage {
  const active = isActive(request.state);
  const blocks: KnownBlock[] = [
    header(`${title(request)} · ${ctx.cluster}`),
    section(stateLine(request), 'state'),
    section(whatAndWhy(request, ctx), 'why'),
  ];
  const optional = (text: string | undefined, id: string) => {
    if (text) blocks.push(section(text, id));
  };
  optional(skew(request, ctx.preview), 'skew');
  optional(failure(request), 'failure');
  if (active) {
    optional(drainProgress(request, ctx), 'drain');
    if (ctx.preview && (request.state === 'proposed' || request.state === 'approved'))
      blocks.push(section(pods(ctx.preview), 'pods'));
    if (request.state === 'proposed' || request.state === 'approved')
      optional(gracefulShutdown(request, ctx.preview), 'graceful-shutdown');
    // The preview's blockers describe "if approved now": stale once the request has started.
    const deciding = request.state === 'proposed' || request.state === 'approved';
    optional(blockers(request, deciding ? ctx.preview : undefined), 'blockers');
    if (request.state === 'proposed' || request.state === 'approved')
      optional(windowLine(ctx), 'window');
  }
  blocks.push(
    context(
      `request ${code(request.id)} · cluster ${code(ctx.cluster)}${request.campaign ? ` · campaign ${code(request.campaign)}` : ''}${request.pool ? ` · pool ${code(request.pool)}` : ''}`,
    ),
  );
  if (request.state === 'proposed') blocks.push(divider(), proposedButtons(request, ctx));
  else if (active) blocks.push(detailsOnly(request, ctx));
  return {
    // The fallback is mrkdwn too (notifications, screen readers): escaped like the blocks.
    text: clip(
      `${esc(title(request))} (${esc(ctx.cluster)}): ${stateLabel(request.state)}. ${esc(request.reason)}`,
      LIMITS.fallbackText,
    ),
    blocks: capBlocks(blocks),
  };
}

function proposedButtons(request: MaintenanceRequest, ctx: PromptContext): KnownBlock {
  const value = valueOf(request, ctx);
  return actions(`request:${request.id}`, [
    button({
      actionId: SLACK_ACTION.approve,
      text: 'Approve',
      value,
      style: 'primary',
      confirm: {
        title: `${request.action === 'reboot' ? 'Reboot' : 'Upgrade'} this node?`,
        text: `${esc(title(request))} in ${esc(ctx.cluster)}: the node is cordoned and drained in the next open window.`,
        confirm: 'Approve',
        deny: 'Not yet',
      },
    }),
    button({ actionId: SLACK_ACTION.reject, text: 'Reject', value, style: 'danger' }),
    button({ actionId: SLACK_ACTION.snooze, text: 'Snooze', value }),
    button({ actionId: SLACK_ACTION.details, text: 'Details', value }),
  ]);
}

const detailsOnly = (request: MaintenanceRequest, ctx: PromptContext): KnownBlock =>
  actions(`request:${request.id}`, [
    button({ actionId: SLACK_ACTION.details, text: 'Details', value: valueOf(request, ctx) }),
  ]);

const valueOf = (request: MaintenanceRequest, ctx: PromptContext): string =>
  clusterValue(ctx.several ? ctx.cluster : undefined, request.id);
