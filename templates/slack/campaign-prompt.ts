/**
 * One prompt for a campaign: the nodes proposed together for the same reason (DESIGN §1 step 2), so
 * twenty nodes needing the same kernel make one message, not twenty. Approve all, or one pool at a
 * time (button value `<campaign>/<pool>`). Re-rendered as nodes join and as each one moves; once
 * every request has ended the message is plain.
 */
import { SLACK_ACTION, clusterValue } from './ids.js';
import { isActive, type MaintenanceRequest, type RequestState } from '../../src/core/request.js';
import { actions, button, capBlocks, context, header, section, type ButtonSpec } from './blocks.js';
import { LIMITS, clip, code, esc, fitLines } from './mrkdwn.js';
import { campaignPreflight } from './campaign-preflight.js';
import { windowLine } from './sections.js';
import { stateIcon } from './state.js';
import type { KnownBlock, PromptContext, SlackMessage } from './types.js';

export function campaignPrompt(requests: MaintenanceRequest[], ctx: PromptContext): SlackMessage {
  const first = requests[0];
  const campaign = first?.campaign ?? first?.id ?? 'campaign';
  const what = actionWord(requests);
  const targets = new Set(requests.map((r) => r.targetVersion));
  const target = targets.size === 1 ? [...targets][0] : undefined;
  const head = `${what} ${requests.length} node${requests.length === 1 ? '' : 's'}${target ? ` → ${target}` : ''} · ${ctx.cluster}`;
  const counts = countStates(requests);
  const blocks: KnownBlock[] = [
    header(head),
    section(counts, 'state'),
    section(`*Why:* ${esc(first?.reason ?? 'no requests')}`, 'why'),
    section(nodeList(requests), 'nodes'),
  ];
  if (requests.every((r) => r.action === 'upgrade'))
    blocks.push(
      section(
        '*Risk:* a kubelet minor upgrade may recreate every container on the node (the container ' +
          'hash changes), so each node is drained first, one minor at a time.',
        'risk',
      ),
    );
  const proposed = requests.filter((r) => r.state === 'proposed');
  // Approved nodes wait on gates too (window, slots); ended ones no longer do.
  const waiting = requests.filter((r) => r.state === 'proposed' || r.state === 'approved');
  const blocked = [...new Set(waiting.flatMap((r) => r.blockedReasons ?? []))];
  if (blocked.length > 0)
    blocks.push(
      section(
        `*Blockers:*\n${fitLines(
          blocked.map((b) => `• ${esc(b)}`),
          LIMITS.section - 20,
          'more blockers',
        )}`,
        'blockers',
      ),
    );
  // The same preflight a per-node prompt shows, in summary, while people still decide or wait.
  const preflight =
    waiting.length > 0 && ctx.preflight
      ? campaignPreflight(ctx.preflight, (node) =>
          waiting.some((r) => r.node === node && r.action === 'reboot'),
        )
      : undefined;
  if (preflight) blocks.push(section(preflight, 'preflight'));
  const window = proposed.length > 0 ? windowLine(ctx) : undefined;
  if (window) blocks.push(section(window, 'window'));
  blocks.push(context(`campaign ${code(campaign)} · cluster ${code(ctx.cluster)}`));
  if (proposed.length > 0)
    blocks.push(...buttonBlocks(campaign, proposed, proposed.length === requests.length, ctx));
  return {
    // The header is plain_text (shown as typed); the fallback is mrkdwn, so it is escaped.
    text: clip(`${esc(head)}: ${countStates(requests, false)}`, LIMITS.fallbackText),
    blocks: capBlocks(blocks),
  };
}

function actionWord(requests: readonly MaintenanceRequest[]): string {
  const kinds = new Set(requests.map((r) => r.action));
  if (kinds.size !== 1) return 'Maintenance of';
  return kinds.has('reboot') ? 'Reboot' : 'Kubelet upgrade of';
}

function countStates(requests: readonly MaintenanceRequest[], icons = true): string {
  const by = new Map<RequestState, number>();
  for (const r of requests) by.set(r.state, (by.get(r.state) ?? 0) + 1);
  const parts = [...by].map(([state, n]) => `${icons ? `${stateIcon(state)} ` : ''}${n} ${state}`);
  return parts.length > 0 ? parts.join(' · ') : 'no requests';
}

/**
 * The list shows what people must look at first: a campaign of a thousand nodes fits a few dozen
 * lines, and a failed node listed after them would be one of the "more nodes".
 */
const LIST_ORDER: Readonly<Record<RequestState, number>> = {
  failed: 0,
  running: 1,
  verifying: 2,
  approved: 3,
  proposed: 4,
  rejected: 5,
  expired: 6,
  cancelled: 7,
  skipped: 8,
  done: 9,
};

function nodeList(requests: readonly MaintenanceRequest[]): string {
  const ordered = [...requests].sort((a, b) => LIST_ORDER[a.state] - LIST_ORDER[b.state]);
  const lines = ordered.map(
    (r) =>
      `• ${code(r.node)}${r.pool ? ` (pool ${esc(r.pool)})` : ''}: ${r.state}${r.state === 'failed' && r.failure ? `: ${esc(clip(r.failure, 200))}` : ''} · ${code(r.id)}`,
  );
  return `*Nodes:*\n${fitLines(lines, LIMITS.section - 20, 'more nodes')}`;
}

/**
 * Approve all and Reject all, then, while more than one pool waits, one actions block per pool: Slack
 * wants action ids unique within a block, and the listeners match the one pool action id.
 */
function buttonBlocks(
  campaign: string,
  proposed: readonly MaintenanceRequest[],
  everyone: boolean,
  ctx: PromptContext,
): KnownBlock[] {
  const n = proposed.length;
  const valueOf = (value: string) => clusterValue(ctx.several ? ctx.cluster : undefined, value);
  const all: ButtonSpec = {
    actionId: SLACK_ACTION.campaignApprove,
    text: everyone ? `Approve all ${n}` : `Approve the ${n} waiting`,
    value: valueOf(campaign),
    style: 'primary',
    confirm: {
      title: 'Approve the campaign?',
      text: `${n} node${n === 1 ? '' : 's'} will be cordoned and drained, as slots allow, in open windows.`,
      confirm: 'Approve all',
      deny: 'Not yet',
    },
  };
  const reject: ButtonSpec = {
    actionId: SLACK_ACTION.reject,
    text: 'Reject all',
    value: valueOf(campaign),
    style: 'danger',
  };
  const blocks = [actions('campaign', [button(all), button(reject)])];
  const pools = [...new Set(proposed.flatMap((r) => (r.pool === undefined ? [] : [r.pool])))];
  if (pools.length < 2) return blocks;
  for (const [i, pool] of pools.slice(0, MAX_POOL_BUTTONS).entries()) {
    const count = proposed.filter((r) => r.pool === pool).length;
    blocks.push(
      actions(`campaign-pool-${i}`, [
        button({
          actionId: SLACK_ACTION.campaignApprovePool,
          text: `Approve pool ${pool} (${count})`,
          value: valueOf(`${campaign}/${pool}`),
        }),
      ]),
    );
  }
  if (pools.length > MAX_POOL_BUTTONS)
    blocks.push(
      context(
        `… and ${pools.length - MAX_POOL_BUTTONS} more pools (approve all, or use \`/maint approve\`)`,
      ),
    );
  return blocks;
}

/** Leaves room under the 50 blocks for the summary sections above the buttons. */
const MAX_POOL_BUTTONS = 20;

export const campaignActive = (requests: readonly MaintenanceRequest[]): boolean =>
  requests.some((r) => isActive(r.state));
