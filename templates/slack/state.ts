/**
 * How a request's state reads at the top of its prompt: one line, with who moved it and why, so the
 * edited-in-place message says where the request is without opening the thread.
 */
import type { MaintenanceRequest, RequestState } from '../../src/core/request.js';
import { esc } from './mrkdwn.js';

const ICON: Readonly<Record<RequestState, string>> = {
  proposed: ':hourglass_flowing_sand:',
  approved: ':white_check_mark:',
  running: ':gear:',
  verifying: ':mag:',
  done: ':tada:',
  failed: ':x:',
  rejected: ':no_entry_sign:',
  expired: ':zzz:',
  cancelled: ':stop_sign:',
  skipped: ':leftwards_arrow_with_hook:',
};

// The state's own word (the one labels, metrics, `kubemaint status` and `kubectl get mr` use),
// capitalised; *proposed* also says what it waits for, because a prompt is read by the people it asks.
const label = (state: RequestState): string =>
  state === 'proposed'
    ? 'Proposed, waiting for approval'
    : `${state.charAt(0).toUpperCase()}${state.slice(1)}`;

export const stateIcon = (state: RequestState): string => ICON[state];
export const stateLabel = (state: RequestState): string => label(state);

/**
 * A person as Slack should show them: Slack user ids become mentions, user groups `<!subteam^…>`,
 * everything else (`cli:alice`, `policy:autoApprove`, `detector`) stays text.
 */
export function who(by: string): string {
  if (/^[UW][A-Z0-9]{2,}$/.test(by)) return `<@${by}>`;
  if (/^S[A-Z0-9]{2,}$/.test(by)) return `<!subteam^${by}>`;
  return esc(by);
}

/** `*Approved* by <@U1>` with the note of the transition that entered the state, if any. */
export function stateLine(request: MaintenanceRequest): string {
  const entered = request.history.findLast((t) => t.to === request.state);
  const head = `${ICON[request.state]} *${label(request.state)}*`;
  switch (request.state) {
    case 'proposed':
      return head;
    case 'approved': {
      const by = request.approvals.map((a) => who(a.by));
      return `${head}${by.length > 0 ? ` by ${by.join(', ')}` : ''}: starts when a window is open and a slot is free`;
    }
    case 'running':
      return `${head}: ${request.slot ? `holds ${esc(request.slot)}, ` : ''}cordoned and draining`;
    case 'verifying':
      return `${head}: ${request.action === 'reboot' ? 'waiting for a new boot id and Ready' : `waiting for kubelet ${esc(request.targetVersion ?? 'target')} and Ready`}`;
    case 'done':
    case 'failed':
    case 'rejected':
    case 'expired':
    case 'cancelled':
    case 'skipped': {
      const by = entered && entered.by !== 'kubemaint' ? ` by ${who(entered.by)}` : '';
      const note = entered?.note ? `: ${esc(entered.note)}` : '';
      return `${head}${by}${note}`;
    }
  }
}
