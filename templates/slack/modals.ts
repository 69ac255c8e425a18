/**
 * The two modals: Reject asks for a reason (callback SLACK_VIEW.reject, input REJECT_REASON, the
 * target in `private_metadata` as JSON), and Details shows everything the prompt leaves out: the
 * approvals, the history, the full preview and the window schedule.
 */
import { REJECT_REASON, SLACK_VIEW } from './ids.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import { capBlocks, context, header, section } from './blocks.js';
import { LIMITS, clip, code, esc, fitLines } from './mrkdwn.js';
import { drainProgress, failure, gracefulShutdown, pods, skew } from './sections.js';
import { stateLine, who } from './state.js';
import { title } from './request-prompt.js';
import type { KnownBlock, Preview, View } from './types.js';

export interface RejectModalTarget {
  requestId?: string;
  campaign?: string;
  cluster?: string;
}

const plain = (text: string, max: number = LIMITS.modalTitle) => ({
  type: 'plain_text' as const,
  text: clip(text, max),
});

/** `cluster`: set when the app serves several clusters; the submission goes to that one. */
export function rejectModal(target: RejectModalTarget): View {
  const what =
    (target.requestId
      ? `request ${code(target.requestId)}`
      : `every waiting request of campaign ${code(target.campaign ?? '')}`) +
    (target.cluster === undefined ? '' : ` in ${code(target.cluster)}`);
  return {
    type: 'modal',
    callback_id: SLACK_VIEW.reject,
    // Ids only: they are short, and the listener re-reads the request from the cluster anyway.
    private_metadata: shortTarget(target),
    title: plain('Reject maintenance'),
    submit: plain('Reject'),
    close: plain('Cancel'),
    blocks: [
      section(`Reject ${what}? The reason is posted in the thread.`, 'what'),
      {
        type: 'input',
        block_id: REJECT_REASON.block,
        label: plain('Reason', 2000),
        element: {
          type: 'plain_text_input',
          action_id: REJECT_REASON.action,
          multiline: true,
          max_length: 500,
          placeholder: plain('e.g. payments freeze until Monday', 150),
        },
      },
    ],
  };
}

export function detailsModal(request: MaintenanceRequest, preview?: Preview): View {
  const now = new Date(preview?.at ?? request.updatedAt);
  const ctx = { cluster: '', timeZone: 'UTC', now, ...(preview ? { preview } : {}) };
  const blocks: KnownBlock[] = [
    header(title(request)),
    section(stateLine(request), 'state'),
    section(
      fitLines(
        [
          `*Request:* ${code(request.id)}${request.campaign ? ` · campaign ${code(request.campaign)}` : ''}`,
          `*Why:* ${esc(request.reason)}`,
          `*Requested by:* ${who(request.requestedBy)} at ${esc(request.createdAt)}`,
          ...request.approvals.map((a) => `*Approved by:* ${who(a.by)} at ${esc(a.at)}`),
          ...(request.job ? [`*Job:* ${code(request.job)}`] : []),
          ...(request.slot ? [`*Slot:* ${code(request.slot)}`] : []),
        ],
        LIMITS.section,
        'more lines',
      ),
      'facts',
    ),
  ];
  for (const [id, text] of [
    ['skew', skew(request, preview)],
    ['failure', failure(request)],
    ['drain', drainProgress(request, ctx)],
    ['graceful-shutdown', gracefulShutdown(request, preview)],
  ] as const)
    if (text) blocks.push(section(text, id));
  if (preview) {
    blocks.push(section(pods(preview), 'pods'));
    if (preview.blockers.length > 0)
      blocks.push(
        section(
          `*Blockers now:*\n${fitLines(
            preview.blockers.map((b) => `• ${esc(b)}`),
            2900,
            'more',
          )}`,
          'blockers',
        ),
      );
    blocks.push(
      section(
        `*Windows:*\n${fitLines(
          preview.window.schedule.map((s) => `• ${esc(s)}`),
          2900,
          'more',
        )}`,
        'windows',
      ),
    );
  }
  const history = request.history.map(
    (t) =>
      `${esc(t.at)} ${t.from ?? '∅'} → ${t.to} by ${who(t.by)}${t.note ? `: ${esc(t.note)}` : ''}`,
  );
  blocks.push(section(`*History:*\n${fitLines(history, 2900, 'more transitions')}`, 'history'));
  blocks.push(context(`node ${code(request.node)}`));
  return {
    type: 'modal',
    callback_id: SLACK_VIEW.details,
    private_metadata: shortTarget({ requestId: request.id }),
    title: plain('Maintenance details'),
    close: plain('Close'),
    blocks: capBlocks(blocks, LIMITS.modalBlocks),
  };
}

/**
 * Ids are short in practice; a hostile one is clipped until the JSON fits `private_metadata` (3000),
 * so the listener always gets valid JSON back.
 */
function shortTarget(target: RejectModalTarget): string {
  for (let max = 1000; ; max = Math.floor(max / 2)) {
    const json = JSON.stringify({
      ...(target.cluster !== undefined ? { cluster: clip(target.cluster, max) } : {}),
      ...(target.requestId !== undefined ? { requestId: clip(target.requestId, max) } : {}),
      ...(target.campaign !== undefined ? { campaign: clip(target.campaign, max) } : {}),
    });
    if (json.length <= LIMITS.privateMetadata || max < 2) return json;
  }
}
