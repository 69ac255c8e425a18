/**
 * One reply in a request's thread per event (DESIGN §1 step 6): short, one line plus detail, so the
 * thread reads as the request's log. Every interpolated value is escaped; approvers are mentioned.
 */
import type { EventKind, MaintenanceEvent } from '../../src/core/events.js';
import { formatDuration } from '../../src/core/duration.js';
import { section } from './blocks.js';
import { LIMITS, clip, code, esc } from './mrkdwn.js';
import { who } from './state.js';
import type { SlackMessage } from './types.js';

const ICON: Readonly<Record<EventKind, string>> = {
  proposed: ':hourglass_flowing_sand:',
  approved: ':white_check_mark:',
  rejected: ':no_entry_sign:',
  blocked: ':construction:',
  draining: ':droplet:',
  rebooting: ':arrows_counterclockwise:',
  upgrading: ':arrow_up:',
  back: ':large_green_circle:',
  done: ':tada:',
  failed: ':x:',
  hook: ':hook:',
};

function line(event: MaintenanceEvent): string {
  const node = code(event.node);
  const by = event.approver ? ` by ${who(event.approver)}` : '';
  const took = event.durationMs !== undefined ? formatDuration(event.durationMs) : undefined;
  const reason = event.reason ? `: ${esc(event.reason)}` : '';
  const what = event.action === 'reboot' ? 'reboot' : 'kubelet upgrade';
  switch (event.kind) {
    case 'proposed':
      return `${node} needs a ${what}${reason}`;
    case 'approved':
      return `Approved${by}`;
    case 'rejected':
      return `Rejected${by}${reason}`;
    case 'blocked':
      return `Waiting${reason}`;
    case 'draining':
      return `Draining ${node}`;
    case 'rebooting':
      return `Rebooting ${node}`;
    case 'upgrading':
      return `Upgrading the kubelet on ${node}${event.targetVersion ? ` to ${code(event.targetVersion)}` : ''}`;
    case 'back':
      return `${node} is back and Ready${took ? ` after ${took}` : ''}`;
    case 'done':
      return `Done${took ? ` in ${took}` : ''}`;
    case 'failed':
      return `Failed${reason}`;
    case 'hook':
      return `Hook${reason}`;
  }
}

/**
 * `several`: the app serves several clusters, so the reply names the event's cluster too (a thread
 * read from a notification, or quoted elsewhere, still says where it happened).
 */
export function threadReply(
  event: MaintenanceEvent,
  options: { several?: boolean } = {},
): SlackMessage {
  const where = options.several ? `${code(event.cluster)} · ` : '';
  const head = `${ICON[event.kind]} ${where}${line(event)}`;
  const detail = event.detail ? `\n${esc(event.detail)}` : '';
  const text = clip(`${head}${detail}`, LIMITS.section);
  return { text: clip(text, LIMITS.fallbackText), blocks: [section(text, 'event')] };
}
